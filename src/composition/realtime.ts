import type { Clock } from '../clock.js';
import type { AppConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Observability } from '../observability/observability.js';
import type { BoardSeat } from '../realtime/boardSeat.js';
import { multiInstance, singleInstance, type InstanceMode } from '../realtime/instanceMode.js';
import { createRealtime, type Realtime } from '../realtime/realtime.js';
import type { Database } from '../store/database.js';
import type { DocumentStore } from '../store/documentStore.js';
import type { SeatLedger } from '../store/seatLedger.js';
import type { CoreDomains } from './coreDomains.js';

/**
 * Alone, or one of several instances over Redis when REDIS_URL is set: the mode decides the
 * instance channels, the seat ledger, the agent turns and which document extensions the
 * realtime engine adds to its list.
 */
export async function openInstanceMode(
  config: AppConfig,
  options: { clock: Clock; logger: Logger; decorateSeats?: (seats: SeatLedger<BoardSeat>) => SeatLedger<BoardSeat> },
): Promise<InstanceMode> {
  const { clock, logger, decorateSeats } = options;
  const mode = config.redisUrl ? await multiInstance({ redisUrl: config.redisUrl, keyPrefix: config.clusterKeyPrefix, clock, logger }) : singleInstance();
  return decorateSeats ? { ...mode, seats: decorateSeats(mode.seats) } : mode;
}

/** The realtime engine over the domains that check what its sockets join and write, in the instance's mode. */
export function buildRealtime(parts: {
  database: Database;
  core: CoreDomains;
  instance: InstanceMode;
  observability: Observability;
  clock: Clock;
  logger: Logger;
  decorateStore?: (store: DocumentStore) => DocumentStore;
}): Realtime {
  const { core } = parts;
  return createRealtime({
    database: parts.database,
    access: core.access,
    sessions: core.sessions,
    frames: core.frameDirectory,
    history: core.history,
    objectRules: core.objectTypes,
    bus: core.bus,
    clock: parts.clock,
    logger: parts.logger,
    decorateStore: parts.decorateStore,
    socketMessages: core.socketMessages,
    componentManifests: core.components.manifests,
    instance: parts.instance,
    observers: parts.observability.realtime,
  });
}
