import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentRuntime } from './agents/runtime/agentRuntime.js';
import type { AgentSockets } from './agents/ports.js';
import type { BoardService } from './boards/boardService.js';
import type { ExpirySweeper } from './boards/expirySweeper.js';
import { systemClock, type Clock } from './clock.js';
import { buildBoardDomains } from './composition/boardDomains.js';
import { buildCoreDomains, ensureBootstrapOrganization } from './composition/coreDomains.js';
import { buildHttpEdge, listen, publicUrl } from './composition/httpEdge.js';
import { dropStaleCaches, start, stopper } from './composition/lifecycle.js';
import { buildRealtime, openInstanceMode } from './composition/realtime.js';
import { openStore } from './composition/store.js';
import type { AppConfig } from './config.js';
import type { EventBus } from './events/bus.js';
import { CACHE_SIGNALS_CHANNEL, type CacheSignal } from './events/cacheSignals.js';
import { createLogger, type Logger } from './logger.js';
import { createObservability } from './observability/observability.js';
import type { OrganizationService } from './organizations/organizationService.js';
import { isPlan } from './organizations/plans.js';
import type { QuotaService } from './quotas/quotaService.js';
import type { SocketMessageMeter } from './quotas/socketMessageMeter.js';
import type { BoardSeat } from './realtime/boardSeat.js';
import type { DocumentStore } from './store/documentStore.js';
import type { SeatLedger } from './store/seatLedger.js';
import type { Webhooks } from './webhooks/webhooks.js';

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
 * The composition root: opens the database (applying migrations) and the instance mode,
 * builds the domains, the realtime engine and the HTTP edge over them (src/composition/), and
 * listens on one port for HTTP and WebSocket.
 */
export async function startApp(options: AppOptions): Promise<App> {
  const { config, clock = systemClock, logger = createLogger(config.logLevel) } = options;
  const plan = config.bootstrapPlan;
  if (!isPlan(plan)) throw new Error(`BOOTSTRAP_PLAN must be a plan name, got "${plan}"`);
  const database = await openStore(config, logger);
  const observability = createObservability({
    metricsToken: config.metricsToken,
    pendingDeliveries: () => database.prisma.webhookDelivery.count({ where: { status: 'pending' } }),
    now: () => clock.now(),
    logger,
  });
  const instance = await openInstanceMode(config, { clock, logger, decorateSeats: options.decorateSeats });
  const caches = instance.channels.channel<CacheSignal>(CACHE_SIGNALS_CHANNEL);
  const server = createServer();
  const appUrl = publicUrl(config, server);
  const core = await buildCoreDomains({ config, database, instance, caches, appUrl, clock, logger });
  const realtime = buildRealtime({ database, core, instance, observability, clock, logger, decorateStore: options.decorateStore });
  const developmentApiKey = await ensureBootstrapOrganization(core.organizations, { apiKey: config.bootstrapApiKey, plan });

  // Listen first, so links built from the default APP_URL carry the real port (PORT=0 picks one).
  await listen(server, config.port, config.host);
  const domains = await buildBoardDomains({ config, database, core, realtime, instance, caches, observability, appUrl: appUrl(), clock, logger });
  const edge = buildHttpEdge({ config, database, instance, core, domains, realtime, observability, appUrl, dataProvider: options.dataProvider, clock, logger });
  dropStaleCaches(caches, { instance, core, domains });
  await instance.channels.ready();
  const running = { server, database, instance, core, domains, realtime, edge };
  await start(running);

  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`,
    port,
    bus: core.bus,
    boards: domains.boards,
    organizations: core.organizations,
    expirySweeper: domains.expirySweeper,
    webhooks: domains.webhooks,
    quotas: core.quotas,
    agents: domains.agents.runtime,
    agentSockets: realtime.agentSockets,
    seats: instance.seats,
    socketMessages: core.socketMessages,
    developmentApiKey,
    documentsLoaded: () => realtime.hocuspocus.getDocumentsCount(),
    close: stopper(running),
  };
}
