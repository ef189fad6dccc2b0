import { once } from 'node:events';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';

/** Counts hits per key; each key names one time window, so a count only ever grows. */
export interface HitCounter {
  /** Adds one hit to `key` and answers the total so far, this hit included. */
  hit(key: string): Promise<number>;
}

/** Where rate-limit counters live: in this process, or in Redis shared by every instance. */
export interface CounterStore {
  /** A counter named `name` whose keys are forgotten `windowSeconds` after their first hit. */
  counter(name: string, windowSeconds: number): HitCounter;
  close(): Promise<void>;
}

/**
 * How long one Redis command may take before the call is counted in memory instead: a
 * hung Redis must slow API calls by this much at most, never stall them.
 */
const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;

/**
 * `penalty` adds points and never refuses (unlike `consume`): the caller compares the count
 * with a limit that depends on the plan, so one counter serves every plan.
 */
function hitCounter(limiter: RateLimiterAbstract): HitCounter {
  return {
    async hit(key) {
      const result = await limiter.penalty(key, 1);
      return result.consumedPoints;
    },
  };
}

function memoryStore(keyPrefix: string): CounterStore {
  return {
    counter: (name, windowSeconds) =>
      hitCounter(new RateLimiterMemory({ keyPrefix: `${keyPrefix}${name}`, points: 1, duration: windowSeconds })),
    close: async () => {},
  };
}

/**
 * Counters in Redis (an atomic Lua increment, shared by all instances). While Redis cannot
 * answer, each call is counted by an in-memory insurance limiter of this instance, so the
 * limits still hold per instance instead of failing open or failing the call.
 */
async function redisStore(redisUrl: string, keyPrefix: string, logger: Logger): Promise<CounterStore> {
  const client = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
  });
  watchHealth(client, logger);
  try {
    await once(client, 'ready');
  } catch {
    // Already logged by watchHealth. Starting matters more than sharing counters: the
    // insurance limiter counts until Redis answers, and ioredis keeps reconnecting.
  }
  return {
    counter(name, windowSeconds) {
      const options = { keyPrefix: `${keyPrefix}${name}`, points: 1, duration: windowSeconds };
      return hitCounter(
        new RateLimiterRedis({
          ...options,
          storeClient: client,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        }),
      );
    },
    async close() {
      client.disconnect();
    },
  };
}

/** One warning when Redis goes away and one note when it is back, not one line per retry. */
function watchHealth(client: Redis, logger: Logger): void {
  let healthy = true;
  const lost = (error?: Error) => {
    if (!healthy) return;
    healthy = false;
    logger.warn({ err: error }, 'rate-limit counters: Redis unavailable, counting in memory');
  };
  client.on('error', lost);
  // A dropped connection may reconnect before any error: that outage is worth a line too.
  client.on('reconnecting', () => lost());
  client.on('ready', () => {
    if (healthy) return;
    healthy = true;
    logger.info('rate-limit counters: Redis available again');
  });
}

/** Chooses the store once, at composition: Redis when REDIS_URL is set, this process otherwise. */
export function createCounterStore(options: { redisUrl?: string; keyPrefix: string; logger: Logger }): Promise<CounterStore> {
  const { redisUrl, keyPrefix, logger } = options;
  return redisUrl ? redisStore(redisUrl, keyPrefix, logger) : Promise.resolve(memoryStore(keyPrefix));
}
