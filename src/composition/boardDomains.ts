import { createAgents, type Agents } from '../agents/agents.js';
import { BoardService } from '../boards/boardService.js';
import { ExpirySweeper } from '../boards/expirySweeper.js';
import { ObjectService } from '../objects/objectService.js';
import { ParticipantLinks } from '../boards/participantLinks.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config.js';
import type { CacheSignal } from '../events/cacheSignals.js';
import { FrameCopier } from '../frames/frameCopier.js';
import { FrameService } from '../frames/frameService.js';
import type { Logger } from '../logger.js';
import type { Observability } from '../observability/observability.js';
import type { InstanceMode } from '../realtime/instanceMode.js';
import type { Realtime } from '../realtime/realtime.js';
import type { Database } from '../store/database.js';
import type { InstanceChannel } from '../store/instanceChannels.js';
import { createLimiterStore, type LimiterStore } from '../store/limiterStore.js';
import { serverSecret } from '../store/secrets.js';
import { createUsers } from '../users/users.js';
import { createWebhooks, type Webhooks } from '../webhooks/webhooks.js';
import type { CoreDomains } from './coreDomains.js';

/** What the board domains are built from: the core domains, the realtime documents and the public address, known by now. */
export interface BoardParts {
  config: AppConfig;
  database: Database;
  core: CoreDomains;
  realtime: Realtime;
  instance: InstanceMode;
  caches: InstanceChannel<CacheSignal>;
  observability: Observability;
  appUrl: string;
  clock: Clock;
  logger: Logger;
}

export type BoardDomains = Awaited<ReturnType<typeof buildBoardDomains>>;

/** The domains that work on boards' documents: webhooks, boards and their objects, agents, links, frames, users. */
export async function buildBoardDomains(parts: BoardParts) {
  const { config, core, realtime, caches, appUrl, clock, logger } = parts;
  const db = parts.database.prisma;
  const { bus, tokens, quotas, access, frameDirectory, components, objectTypes } = core;
  const webhooks = await buildWebhooks(parts);
  // What this instance keeps of a board's row: its grants and its webhook target.
  const forgetBoard = (boardId: string) => {
    access.boardChanged(boardId);
    webhooks.boardChanged(boardId);
  };
  const boards = new BoardService({
    db,
    statements: parts.database.statements,
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
  const agents = buildAgents(parts, { boards, objects, limiters });
  const links = new ParticipantLinks({ db, clock, tokens, boards, appUrl, sockets: realtime.documents });
  const frames = new FrameService({ db, directory: frameDirectory, clock, boards, documents: realtime.documents, listener: realtime.zones, links });
  const expirySweeper = new ExpirySweeper(boards, config.expirySweepIntervalMs, logger);
  const users = await createUsers({ prisma: db, clock, logger, jwtSecret: config.jwtSecret, limiters });
  return { webhooks, forgetBoard, boards, limiters, objects, agents, links, frames, expirySweeper, users };
}

async function buildWebhooks({ database, core, caches, observability, config, clock, logger }: BoardParts): Promise<Webhooks> {
  return createWebhooks({
    db: database.prisma,
    deliveryLog: database.deliveryLog,
    clock,
    bus: core.bus,
    logger,
    serverSecret: await serverSecret(database.prisma, 'webhook-secret-key', clock.now()),
    allowPrivateTargets: config.webhookAllowPrivate,
    retryDelaysMs: config.webhookRetryDelaysMs,
    quotas: core.quotas,
    onSubscriptionsChanged: (organizationId) => caches.publish({ kind: 'webhook-subscriptions', organizationId }),
    attempts: observability.webhookAttempts,
  });
}

function buildAgents(
  { database, core, realtime, instance, caches, observability, config, clock, logger }: BoardParts,
  { boards, objects, limiters }: { boards: BoardService; objects: ObjectService; limiters: LimiterStore },
): Agents {
  const { frameDirectory, quotas } = core;
  return createAgents({
    db: database.prisma,
    clock,
    logger,
    bus: core.bus,
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
}
