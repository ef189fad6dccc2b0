import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RunTurns } from './runTurns.js';

/** How long a turn is held at most: an instance that dies during one holds it no longer. */
const TURN_TTL_MS = 120_000;
/** How often a waiting instance asks again (one on this instance is woken at once). */
const RETRY_MS = 25;
/** How long the mark of the last turn is kept: a key idle longer counts as changed elsewhere. */
const LAST_TURN_TTL_MS = 24 * 3_600_000;
/** Marks kept in memory at most; a key whose mark was dropped is only read again. */
const MAX_OWN_MARKS = 10_000;

/*
 * Keys, under the prefix: `<key>:turn` (the holder's token, with a TTL) and `<key>:last` (a
 * random mark set by each turn as it ends). An instance remembers the mark its own last turn
 * set; finding another one at its next turn means another instance had one meanwhile.
 */

/** KEYS: turn, last. ARGV: token, ttl. Answers the last mark ('' if none) once taken, nil while held. */
const TAKE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return nil end
return redis.call('GET', KEYS[2]) or ''
`;

/** KEYS: turn, last. ARGV: token, mark, mark ttl. */
const END = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
`;

/**
 * Turns in Redis (runTurns.ts) for several instances. While Redis cannot answer, work goes on
 * without a turn (each instance still keeps its own order) and is told it may be stale.
 */
export class RedisRunTurns implements RunTurns {
  /** The mark each key's last turn on this instance left. */
  private readonly ownMarks = new Map<string, string>();
  /** Waiters on this instance, woken when one of its turns ends. */
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  static async open(redisUrl: string, options: { prefix: string; logger: Logger }): Promise<RedisRunTurns> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
    redis.on('error', (error) => options.logger.warn({ err: error }, 'run turns: Redis error'));
    return new RedisRunTurns(redis, options.prefix, options.logger);
  }

  async take<T>(key: string, work: (othersHadTurns: boolean) => Promise<T>, finished: (result: T) => Promise<unknown>, stop?: AbortSignal): Promise<T> {
    const token = randomUUID();
    const lastMark = await this.waitForTurn(key, token, stop);
    const stale = lastMark === null || lastMark !== this.ownMarks.get(key);
    let result: T;
    try {
      result = await work(stale);
    } catch (error) {
      if (lastMark !== null) await this.end(key, token);
      throw error;
    }
    if (lastMark !== null) void finished(result).then(() => this.end(key, token), () => this.end(key, token));
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of [...this.waiters.values()].flatMap((set) => [...set])) wake();
    this.redis.disconnect();
  }

  /** The last turn's mark once the turn is this one's; null when Redis cannot answer (no turn taken). */
  private async waitForTurn(key: string, token: string, stop?: AbortSignal): Promise<string | null> {
    for (;;) {
      let mark: string | null;
      try {
        mark = (await this.redis.eval(TAKE, 2, `${this.prefix}${key}:turn`, `${this.prefix}${key}:last`, token, TURN_TTL_MS)) as string | null;
      } catch (error) {
        this.logger.warn({ err: error, key }, 'run turns: no turn taken, working without one');
        return null;
      }
      if (mark !== null) return mark;
      if (this.closed || stop?.aborted) return null;
      await this.wakeOrRetry(key, stop);
    }
  }

  private wakeOrRetry(key: string, stop?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(key) ?? new Set();
      this.waiters.set(key, waiters);
      const wake = () => {
        clearTimeout(timer);
        stop?.removeEventListener('abort', wake);
        waiters.delete(wake);
        if (waiters.size === 0) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(wake, RETRY_MS);
      stop?.addEventListener('abort', wake, { once: true });
      waiters.add(wake);
    });
  }

  private async end(key: string, token: string): Promise<void> {
    const mark = randomUUID();
    try {
      await this.redis.eval(END, 2, `${this.prefix}${key}:turn`, `${this.prefix}${key}:last`, token, mark, LAST_TURN_TTL_MS);
      if (this.ownMarks.size >= MAX_OWN_MARKS) this.ownMarks.clear();
      this.ownMarks.set(key, mark);
    } catch (error) {
      // The turn ends at its TTL instead; the next one here reads the key again (no mark kept).
      this.ownMarks.delete(key);
      this.logger.warn({ err: error, key }, 'run turns: turn not handed over');
    }
    for (const wake of [...(this.waiters.get(key) ?? [])]) wake();
  }
}
