import { once } from 'node:events';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';

/** A fixed-window limit: `points` per `durationSeconds`. */
export interface LimiterOptions {
  name: string;
  points: number;
  durationSeconds: number;
}

/** Where limiters keep their counts: in this process, or in Redis shared by every instance. */
export interface LimiterStore {
  limiter(options: LimiterOptions): RateLimiterAbstract;
  close(): Promise<void>;
}

/** A hung Redis may delay a login by this much at most; then the insurance limiter counts. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIS_CONNECT_TIMEOUT_MS = 2_000;

function memoryOptions(keyPrefix: string, { name, points, durationSeconds }: LimiterOptions) {
  return { keyPrefix: `${keyPrefix}${name}`, points, duration: durationSeconds };
}

function memoryStore(keyPrefix: string): LimiterStore {
  return {
    limiter: (options) => new RateLimiterMemory(memoryOptions(keyPrefix, options)),
    close: async () => {},
  };
}

/**
 * Limiters in Redis (rate-limiter-flexible's atomic Lua increment). While Redis cannot answer,
 * an in-memory insurance limiter of this instance counts, so the limit still holds per
 * instance instead of failing open or failing the login.
 */
async function redisStore(redisUrl: string, keyPrefix: string, logger: Logger): Promise<LimiterStore> {
  const client = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
  });
  let healthy = true;
  client.on('error', (error) => {
    if (healthy) logger.warn({ err: error }, 'login throttle: Redis unavailable, counting in memory');
    healthy = false;
  });
  client.on('ready', () => {
    if (!healthy) logger.info('login throttle: Redis available again');
    healthy = true;
  });
  try {
    await once(client, 'ready');
  } catch {
    // Logged above; ioredis keeps reconnecting and the insurance limiter counts meanwhile.
  }
  return {
    limiter(options) {
      const memory = memoryOptions(keyPrefix, options);
      return new RateLimiterRedis({
        ...memory,
        storeClient: client,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(memory),
      });
    },
    async close() {
      client.disconnect();
    },
  };
}

/** Chooses the store once, at composition: Redis when REDIS_URL is set, this process otherwise. */
export function createLimiterStore(options: { redisUrl?: string; keyPrefix: string; logger: Logger }): Promise<LimiterStore> {
  const { redisUrl, keyPrefix, logger } = options;
  return redisUrl ? redisStore(redisUrl, keyPrefix, logger) : Promise.resolve(memoryStore(keyPrefix));
}
