import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LocalActionWindows, WINDOW_MS, type ActionWindows } from './actionWindows.js';

/*
 * One sorted set per key: each slot taken is a member scored with when it was taken (ms, the
 * taking instance's clock). Slots a minute old are trimmed before every count, in the same
 * script as the take, so two instances taking the last slot at once never both get it.
 */

/**
 * KEYS: the window. ARGV: now, limit, window ms, a member prefix of its own, slots. Answers 1
 * when all the slots were taken, 0 when none was.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[3]))
local slots = tonumber(ARGV[5])
if redis.call('ZCARD', KEYS[1]) + slots > tonumber(ARGV[2]) then return 0 end
for slot = 1, slots do redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4] .. ':' .. slot) end
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
return 1
`;

/**
 * The action windows of several instances, in Redis (actionWindows.ts), so an agent's rate is
 * counted once for the deployment whichever instance raised its events. While Redis cannot
 * answer, this instance's windows in memory count instead: the limit then holds per instance,
 * neither failing open nor failing the run (the API limiters' insurance, limiterStore.ts).
 */
export class RedisActionWindows implements ActionWindows {
  private readonly insurance = new LocalActionWindows();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async tryTake(key: string, limit: number, now: number, slots = 1): Promise<boolean> {
    try {
      return Number(await this.redis.eval(TAKE, 1, this.prefix + key, now, limit, WINDOW_MS, `${now}:${randomUUID()}`, slots)) === 1;
    } catch {
      return this.insurance.tryTakeNow(key, limit, now, slots);
    }
  }

  async forget(key: string): Promise<void> {
    await this.insurance.forget(key);
    await this.redis.del(this.prefix + key).catch(() => {});
  }
}
