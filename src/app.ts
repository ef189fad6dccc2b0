import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgents } from './agents/agents.js';
import type { AgentRuntime } from './agents/agentRuntime.js';
import type { AgentSockets } from './agents/ports.js';
import { AccessTokens } from './boards/accessTokens.js';
import { BoardAccess } from './boards/boardAccess.js';
import { BoardService } from './boards/boardService.js';
import { ObjectService } from './boards/objectService.js';
import { ExpirySweeper } from './boards/expirySweeper.js';
import { ParticipantLinks } from './boards/participantLinks.js';
import { SessionParticipants } from './boards/sessionParticipants.js';
import { systemClock, type Clock } from './clock.js';
import type { AppConfig } from './config.js';
import { EventBus } from './events/bus.js';
import { CACHE_SIGNALS_CHANNEL, type CacheSignal } from './events/cacheSignals.js';
import { multiInstance, singleInstance } from './realtime/instanceMode.js';
import type { SeatLedger } from './store/seatLedger.js';
import type { BoardSeat } from './realtime/boardSeat.js';
import { assertNever } from './util/assertNever.js';
import { apiRouter } from './http/apiRouter.js';
import { Router } from 'express';
import { boardPageRouter } from './http/boardPage.js';
import { componentFilesRouter } from './http/componentFilesRoute.js';
import { ComponentObjectRules } from './components/componentObjects.js';
import { ComponentService } from './components/componentService.js';
import { ComponentActions } from './components/componentActions.js';
import { ComponentStorage } from './components/componentStorage.js';
import { ComponentDataService } from './components/dataProvider.js';
import { createHttpApp } from './http/httpApp.js';
import { answerProbesFirst } from './http/probes.js';
import { FrameCopier } from './frames/frameCopier.js';
import { FrameDirectory } from './frames/frameDirectory.js';
import { FrameService } from './frames/frameService.js';
import { ParticipantHistory } from './boards/participantHistory.js';
import { createLogger, type Logger } from './logger.js';
import { OrganizationService } from './organizations/organizationService.js';
import { isPlan } from './organizations/plans.js';
import { ApiRateLimits } from './rateLimits/apiRateLimits.js';
import { OrganizationQueue, PlanRead, RowLock } from './quotas/organizationSerializer.js';
import { QuotaService } from './quotas/quotaService.js';
import { SocketMessageMeter } from './quotas/socketMessageMeter.js';
import { UsageGauges, type OnlineParticipants } from './quotas/usageGauges.js';
import { UsageStore } from './quotas/usageStore.js';
import { ObjectTypeService } from './objectTypes/objectTypeService.js';
import { createRealtime } from './realtime/realtime.js';
import { createUsers } from './users/users.js';
import { openDatabase } from './store/database.js';
import { createLimiterStore } from './store/limiterStore.js';
import type { DocumentStore } from './store/documentStore.js';
import { migrate } from './store/migrator.js';
import { serverSecret } from './store/secrets.js';
import { createWebhooks, type Webhooks } from './webhooks/webhooks.js';
import { createObservability } from './observability/observability.js';

export interface AppOptions {
  config: AppConfig;
  clock?: Clock;
  logger?: Logger;
  /** Wraps the Yjs document store; tests use it to inject storage failures. */
  decorateStore?: (store: DocumentStore) => DocumentStore;
  /** Wraps the seat ledger; tests use it to lose its answers. */
  decorateSeats?: (seats: SeatLedger<BoardSeat>) => SeatLedger<BoardSeat>;
  /** Limits of board data provider calls; tests shorten the 5 s timeout. */
  dataProvider?: { timeoutMs?: number; maxInFlightPerBoard?: number };
}

/** A running service. */
export interface App {
  url: string;
  port: number;
  bus: EventBus;
  boards: BoardService;
  organizations: OrganizationService;
  expirySweeper: ExpirySweeper;
  webhooks: Webhooks;
  quotas: QuotaService;
  /** The agent runtime (tests call `tick()` after moving a ManualClock, and `settled()`). */
  agents: AgentRuntime;
  /** The sockets of boards as agents reach them (tests check notifications and presence through it). */
  agentSockets: AgentSockets;
  /** Who holds a seat on each board (tests call `sweepOrphans()` after moving a ManualClock past a killed instance's heartbeat). */
  seats: Pick<SeatLedger<unknown>, 'sweepOrphans'>;
  /** Socket message metering (tests flush it instead of waiting a second). */
  socketMessages: SocketMessageMeter;
  /** The development API key, when this start had to create the development organization. */
  developmentApiKey: string | null;
  /** How many Yjs documents are loaded in memory now (read-only; tests check unloading). */
  documentsLoaded(): number;
  close(): Promise<void>;
}

/**
 * The composition root: opens the database, applies migrations, wires every domain to
 * its routes and to the realtime engine, and listens on one port for HTTP and WebSocket.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config, clock = systemClock, logger = createLogger(config.logLevel) } = options;
  if (!isPlan(config.bootstrapPlan)) throw new Error(`BOOTSTRAP_PLAN must be a plan name, got "${config.bootstrapPlan}"`);
  const database = await openDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  const applied = await migrate(database);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  const db = database.prisma;
  const observability = createObservability({
    metricsToken: config.metricsToken,
    pendingDeliveries: () => db.webhookDelivery.count({ where: { status: 'pending' } }),
    now: () => clock.now(),
    logger,
  });
  const mode = config.redisUrl ? await multiInstance({ redisUrl: config.redisUrl, keyPrefix: config.clusterKeyPrefix, clock, logger }) : singleInstance();
  const instance = options.decorateSeats ? { ...mode, seats: options.decorateSeats(mode.seats) } : mode;
  const caches = instance.channels.channel<CacheSignal>(CACHE_SIGNALS_CHANNEL);
  const bus = new EventBus(clock, logger);
  const organizations = new OrganizationService({ db, clock });
  const tokens = new AccessTokens(await serverSecret(db, 'board-token-key', clock.now()));
  // Known once the server listens (PORT=0 picks the port).
  let appUrl = config.appUrl ?? '';
  // Quotas measure live participants through the realtime seat ledger, created just below.
  let online: OnlineParticipants = { count: async () => 0, boards: async () => [] };
  const quotas = new QuotaService({
    db,
    serializer: new OrganizationQueue(database.flavour === 'postgres' ? new RowLock(db) : new PlanRead(db, (id) => organizations.planOf(id))),
    clock,
    usage: new UsageStore(db, database.statements),
    gauges: new UsageGauges(db, database.statements, { count: (boardId: string) => online.count(boardId), boards: () => online.boards() }),
    upgradeUrl: () => config.upgradeUrl ?? `${appUrl}/upgrade`,
  });
  const socketMessages = new SocketMessageMeter(quotas, logger);
  const access = new BoardAccess({ db, clock, tokens, quotas });
  organizations.onChanged((organizationId) => {
    access.planChanged(organizationId);
    caches.publish({ kind: 'organization', organizationId });
  });
  await access.backfillLookupHashes();
  const frameDirectory = new FrameDirectory(db);
  const components = new ComponentService({ db, clock, quotas, componentsUrl: () => config.componentsUrl ?? appUrl, appUrl: () => appUrl });
  const objectTypes = new ObjectTypeService({ db, clock, logger, quotas, components: new ComponentObjectRules(components.manifests, () => config.webhookAllowPrivate) });
  const history = new ParticipantHistory(db);
  const sessions = new SessionParticipants({ db, clock, tokens, history, appUrl: () => appUrl });
  const realtime = createRealtime({
    database,
    access,
    sessions,
    frames: frameDirectory,
    history,
    objectRules: objectTypes,
    bus,
    clock,
    logger,
    decorateStore: options.decorateStore,
    socketMessages,
    componentManifests: components.manifests,
    instance,
    observers: observability.realtime,
  });
  online = { count: (boardId) => realtime.participantsOnline(boardId), boards: () => realtime.boardsOnline() };

  let developmentApiKey: string | null = null;
  if (config.bootstrapApiKey) await organizations.ensureBootstrapKey(config.bootstrapApiKey, config.bootstrapPlan);
  else developmentApiKey = await organizations.ensureDevelopmentOrganization(config.bootstrapPlan);

  // Listen first, so links built from the default APP_URL carry the real port (PORT=0 picks one).
  const server = createServer();
  await listen(server, config.port, config.host);
  const port = (server.address() as AddressInfo).port;
  appUrl = config.appUrl ?? `http://localhost:${port}`;

  const webhooks = createWebhooks({
    db,
    deliveryLog: database.deliveryLog,
    clock,
    bus,
    logger,
    serverSecret: await serverSecret(db, 'webhook-secret-key', clock.now()),
    allowPrivateTargets: config.webhookAllowPrivate,
    retryDelaysMs: config.webhookRetryDelaysMs,
    quotas,
    onSubscriptionsChanged: (organizationId) => caches.publish({ kind: 'webhook-subscriptions', organizationId }),
    attempts: observability.webhookAttempts,
  });
  // What this instance keeps of a board's row: its grants and its webhook target.
  const forgetBoard = (boardId: string) => {
    access.boardChanged(boardId);
    webhooks.boardChanged(boardId);
  };
  const boards = new BoardService({
    db,
    clock,
    bus,
    documents: realtime.documents,
    tokens,
    appUrl,
    webhooks: webhooks.boardKeys,
    quotas,
    objectRules: objectTypes,
    components,
    frames: new FrameCopier(db, clock),
    changeListeners: [forgetBoard, (boardId) => caches.publish({ kind: 'board', boardId })],
    logger,
  });
  // One store (one Redis connection) for the API rate limits, the login throttle and agents' rates.
  const limiters = await createLimiterStore({ redisUrl: config.redisUrl, logger });
  const objects = new ObjectService({ boards, documents: realtime.documents, frames: frameDirectory, objectRules: objectTypes, clock });
  const agents = createAgents({
    db,
    clock,
    logger,
    bus,
    boards,
    objects,
    // The cached frames (invalidated on every frame change): agents read them on every event they handle.
    frames: { framesOfBoard: (boardId) => frameDirectory.cachedFramesOfBoard(boardId) },
    sockets: realtime.agentSockets,
    consumeAiRequest: (organizationId) => quotas.consumeFor(organizationId, 'ai_requests_monthly'),
    llm: config.llm,
    tickMs: config.agentTickMs,
    claimOnce: (key, ttlMs) => instance.channels.claimOnce(key, ttlMs),
    announceChange: (boardId, agentId) => caches.publish({ kind: 'agent', boardId, agentId }),
    windows: limiters.actionWindows(`${config.rateLimits.keyPrefix}agent-actions:`),
    turns: instance.agentTurns,
    runs: observability.agentRuns,
  });
  const links = new ParticipantLinks({ db, clock, tokens, boards, appUrl, sockets: realtime.documents });
  const frames = new FrameService({ db, directory: frameDirectory, clock, boards, documents: realtime.documents, listener: realtime.zones, links });
  const expirySweeper = new ExpirySweeper(boards, config.expirySweepIntervalMs, logger);
  const users = await createUsers({ prisma: db, clock, logger, jwtSecret: config.jwtSecret, limiters });
  const api = apiRouter({
    adminToken: config.adminToken,
    organizations,
    access,
    boards,
    objects,
    documents: realtime.documents,
    frames,
    links,
    sessions,
    subscriptions: webhooks.subscriptions,
    objectTypes,
    users,
    agents: agents.service,
    quotas,
    rateLimits: new ApiRateLimits({ config: config.rateLimits, limiters, clock }),
    components,
    componentStorage: new ComponentStorage({ objects, manifests: components.manifests, documents: realtime.documents, frames: frameDirectory, db, clock }),
    componentActions: new ComponentActions({ objects, manifests: components.manifests, db, bus, clock }),
    componentData: new ComponentDataService({ boards, clock, logger, allowPrivate: config.webhookAllowPrivate, ...options.dataProvider }),
    appOrigin: () => new URL(appUrl).origin,
  });
  const app = createHttpApp({
    logger,
    now: () => clock.now(),
    api,
    pages: Router().use(boardPageRouter({ componentsOrigin: () => new URL(config.componentsUrl ?? appUrl).origin }), componentFilesRouter(components, () => new URL(appUrl).origin)),
  });
  let draining = false;
  const probeChecks = {
    dependencies: {
      database: async () => {
        await db.$queryRawUnsafe('SELECT 1');
      },
      ...instance.dependencies,
    },
    draining: () => draining,
    now: () => clock.now(),
  };
  caches.subscribe((signal) => dropStale(signal, { forgetBoard, access, organizations, webhooks, agents: agents.runtime }));
  // Grants, keys and plans are trusted for seconds only; frames and webhook targets until told.
  instance.channels.onReconnect(() => {
    frameDirectory.invalidateAll();
    webhooks.forgetCached();
  });
  await instance.channels.ready();
  server.on('request', observability.answerMetricsFirst(answerProbesFirst(probeChecks, logger, observability.observeHttp(app))));
  realtime.listen(server);
  expirySweeper.start();
  webhooks.start();
  socketMessages.start();
  await agents.runtime.start();

  let closing: Promise<void> | null = null;
  async function close(): Promise<void> {
    closing ??= (async () => {
      // From here `/ready` answers 503 and requests are turned away (http/probes.ts).
      draining = true;
      await expirySweeper.stop();
      await agents.runtime.stop();
      // Sockets are told 1012 and reconnect elsewhere; every pending durable write is flushed.
      await realtime.close();
      // After the sockets: their leaving still raises events, which the outbox records.
      await webhooks.stop();
      await socketMessages.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await limiters.close();
      await instance.close();
      await database.close();
    })();
    return closing;
  }

  return {
    url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`,
    port,
    bus,
    boards,
    organizations,
    expirySweeper,
    webhooks,
    quotas,
    agents: agents.runtime,
    agentSockets: realtime.agentSockets,
    seats: instance.seats,
    socketMessages,
    developmentApiKey,
    documentsLoaded: () => realtime.hocuspocus.getDocumentsCount(),
    close,
  };
}

/** Drops what this instance cached of a change another instance made (events/cacheSignals.ts). */
function dropStale(
  signal: CacheSignal,
  caches: { forgetBoard: (boardId: string) => void; access: BoardAccess; organizations: OrganizationService; webhooks: Webhooks; agents: AgentRuntime },
): void {
  switch (signal.kind) {
    case 'board':
      caches.forgetBoard(signal.boardId);
      return;
    case 'organization':
      caches.organizations.forget(signal.organizationId);
      caches.access.planChanged(signal.organizationId);
      return;
    case 'webhook-subscriptions':
      caches.webhooks.subscriptionsChanged(signal.organizationId);
      return;
    case 'agent':
      caches.agents.agentChangedElsewhere(signal.boardId, signal.agentId);
      return;
    default:
      assertNever(signal);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
