import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';
import { LocalActionWindows, type ActionWindows } from './actionWindows.js';
import { RedisActionWindows } from './redisActionWindows.js';
import { redisOptions } from './redisOptions.js';

/** A fixed-window limit: `points` per `durationSeconds`, its keys under `name`. */
export interface LimiterOptions {
  name: string;
  points: number;
  durationSeconds: number;
}

/**
 * Where limiters keep their counts (the API rate limits, the login throttle and agents'
 * actions per minute): in this process, or in Redis shared by every instance, over one
 * connection.
 */
export interface LimiterStore {
  limiter(options: LimiterOptions): RateLimiterAbstract;
  /** Sliding one-minute windows, their keys under `prefix`. */
  actionWindows(prefix: string): ActionWindows;
  close(): Promise<void>;
}

/**
 * How long one Redis command may take before the insurance limiter counts instead: shorter than
 * the service's (redisOptions.ts), as every API call passes here; a hung Redis must slow a call
 * by this much at most, never stall it.
 */
const LIMITER_COMMAND_TIMEOUT_MS = 500;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;

function memoryOptions({ name, points, durationSeconds }: LimiterOptions) {
  return { keyPrefix: name, points, duration: durationSeconds };
}

function memoryStore(): LimiterStore {
  return {
    limiter: (options) => new RateLimiterMemory(memoryOptions(options)),
    actionWindows: () => new LocalActionWindows(),
    close: async () => {},
  };
}

/**
 * Limiters in Redis (rate-limiter-flexible's atomic Lua increment). While Redis cannot answer,
 * an in-memory insurance limiter of this instance counts, so limits still hold per instance
 * instead of failing open or failing the call.
 */
async function redisStore(redisUrl: string, logger: Logger): Promise<LimiterStore> {
  // Loaded only when REDIS_URL is set (ioredis is about 20 MiB resident).
  const { Redis } = await import('ioredis');
  const client = new Redis(
    redisUrl,
    redisOptions({
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: LIMITER_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    }),
  );
  watchHealth(client, logger);
  try {
    await once(client, 'ready');
  } catch {
    // Already logged by watchHealth. Starting matters more than sharing counts: the insurance
    // limiters count until Redis answers, and ioredis keeps reconnecting.
  }
  return {
    limiter(options) {
      const memory = memoryOptions(options);
      return new RateLimiterRedis({
        ...memory,
        storeClient: client,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(memory),
      });
    },
    actionWindows: (prefix) => new RedisActionWindows(client, prefix),
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
    logger.warn({ err: error }, 'limiters: Redis unavailable, counting in memory');
  };
  client.on('error', lost);
  // A dropped connection may reconnect before any error: that outage is worth a line too.
  client.on('reconnecting', () => lost());
  client.on('ready', () => {
    if (healthy) return;
    healthy = true;
    logger.info('limiters: Redis available again');
  });
}

/** Chooses the store once, at composition: Redis when REDIS_URL is set, this process otherwise. */
export function createLimiterStore(options: { redisUrl?: string; logger: Logger }): Promise<LimiterStore> {
  return options.redisUrl ? redisStore(options.redisUrl, options.logger) : Promise.resolve(memoryStore());
}
