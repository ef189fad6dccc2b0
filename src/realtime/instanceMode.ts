import type { Extension } from '@hocuspocus/server';
import { soloChannels, type InstanceChannels } from '../store/instanceChannels.js';
import type { Logger } from '../logger.js';
import { RedisChannels } from '../store/redisChannels.js';
import { RedisSeatLedger } from '../store/redisSeatLedger.js';
import { LocalSeatLedger, type SeatLedger } from '../store/seatLedger.js';
import { RedisRunTurns } from '../store/redisRunTurns.js';
import { ownTurns, type RunTurns } from '../store/runTurns.js';
import type { Clock } from '../clock.js';
import type { BoardSeat } from './boardSeat.js';
import { snapshotFromMemory, type SnapshotWriter } from './persistenceExtension.js';

/**
 * Whether this instance runs alone or as one of several: the only difference is what is
 * plugged in here (docs/architecture.md). Several instances share PostgreSQL and
 * Redis, and any of them serves any board.
 */
export interface InstanceMode {
  /** Signals to and from the other instances (sockets, caches). */
  channels: InstanceChannels;
  /** Hocuspocus extensions that carry documents and awareness between instances. */
  documentExtensions: Extension[];
  /** How a live document's snapshot is written (persistenceExtension.ts). */
  writeSnapshot: SnapshotWriter;
  /** Who holds a seat on each board (presenceExtension.ts). */
  seats: SeatLedger<BoardSeat>;
  /** Which instance runs an agent now (agents/runtime/agentRunner.ts). */
  agentTurns: RunTurns;
  /** What the instance needs besides its database to serve, by name, for `/ready`: each rejects when unreachable. */
  dependencies: Record<string, () => Promise<void>>;
  close(): Promise<void>;
}

export function singleInstance(): InstanceMode {
  return {
    channels: soloChannels,
    documentExtensions: [],
    writeSnapshot: snapshotFromMemory,
    seats: new LocalSeatLedger(),
    agentTurns: ownTurns,
    dependencies: {},
    close: async () => {},
  };
}

/**
 * Several instances over Redis: the document fan-out (documentFanOut.ts, on
 * @hocuspocus/extension-redis) carries document updates and awareness (a load waits for the
 * state other instances hold in memory), the instance channels carry the rest. Each update is
 * persisted once, by the instance that received it (PersistenceExtension skips updates that
 * came through Redis), and snapshots are compacted from the store, which holds every
 * instance's updates. Seats are kept in Redis, for every instance to count, and an agent
 * runs on one instance at a time (a turn in Redis).
 */
export async function multiInstance(options: { redisUrl: string; keyPrefix: string; clock: Clock; logger: Logger }): Promise<InstanceMode> {
  const { redisUrl, keyPrefix, clock, logger } = options;
  const channels = await RedisChannels.open(redisUrl, `${keyPrefix}signals:`, logger);
  const seats = await RedisSeatLedger.open<BoardSeat>(redisUrl, { prefix: `${keyPrefix}seats:`, instanceId: channels.instanceId, clock, logger });
  const agentTurns = await RedisRunTurns.open(redisUrl, { prefix: `${keyPrefix}agent-turns:`, logger });
  // Loaded only here: a single instance never loads the Redis extension nor ioredis.
  const { documentFanOut } = await import('./documentFanOut.js');
  const fanOut = documentFanOut({ redisUrl, identifier: channels.instanceId, prefix: `${keyPrefix}documents`, logger });
  return {
    channels,
    documentExtensions: [fanOut],
    writeSnapshot: (store, name) => store.compactStored(name),
    seats,
    agentTurns,
    // Without Redis no document loads (the fan-out's first sync waits) and no seat is taken.
    dependencies: { redis: () => channels.ping() },
    async close() {
      // Its Redis connections may be down (Redis unreachable): shutting down goes on regardless.
      await fanOut.onDestroy().catch((error: unknown) => logger.warn({ err: error }, 'document fan-out: not closed cleanly'));
      await seats.close();
      await agentTurns.close();
      await channels.close();
    },
  };
}
