import type { RedisOptions } from 'ioredis';

/**
 * How long any Redis command of the service may go unanswered before it fails. A Redis that
 * stalls without closing its connection (a frozen process, a network path dropping packets
 * without a reset) neither answers nor errors: with no bound, a join waiting for its seat claim,
 * or a document load waiting for its fan-out subscription, waits forever. Failing after this
 * long refuses the join instead (1011; clients retry). Commands keep their order on their
 * connection, so once Redis answers again its late replies still meet the commands they answer.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** The ioredis options every Redis client of the service starts from; `overrides` win. */
export function redisOptions(overrides: RedisOptions = {}): RedisOptions {
  return { commandTimeout: REDIS_COMMAND_TIMEOUT_MS, ...overrides };
}
