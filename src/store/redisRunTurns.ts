import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { redisOptions } from './redisOptions.js';
import type { RunTurns } from './runTurns.js';

/** How long a turn is held at most: an instance that dies during one holds it no longer. */
const DEFAULT_TURN_TTL_MS = 120_000;
/** How often a waiting instance asks again (one on this instance is woken at once). */
const RETRY_MS = 25;
/** How long the mark of the last turn is kept: a key idle longer counts as changed elsewhere. */
const LAST_TURN_TTL_MS = 24 * 3_600_000;
/** Marks kept in memory at most; a key whose mark was dropped is only read again. */
const MAX_OWN_MARKS = 10_000;

/*
 * Keys, under the prefix: `<key>:turn` (the holder's token, with a TTL) and `<key>:last` (the
 * token of the last turn taken, set as it is taken). An instance remembers the token of its
 * own last turn; finding another one at its next turn means another instance had one since,
 * however that turn ended: handed over, run out (its holder died or outlived it), or never
 * handed over because Redis did not answer. Work done without a turn leaves a mark nobody
 * holds, so every instance reads the key again.
 */

/** KEYS: turn, last. ARGV: token, turn ttl, mark ttl. Answers the last mark ('' if none) once taken, nil while held. */
const TAKE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return nil end
local last = redis.call('GET', KEYS[2]) or ''
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
return last
`;

/** KEYS: turn, last. ARGV: token, a mark to leave ('' for none), mark ttl. Ends the turn if `token` holds it. */
const END = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
`;

/**
 * Turns in Redis (runTurns.ts) for several instances. While Redis cannot answer, work goes on
 * without a turn (each instance still keeps its own order) and is told it may be stale.
 */
export class RedisRunTurns implements RunTurns {
  /** The token of each key's last turn taken on this instance: its mark, unless another turn was taken since. */
  private readonly ownMarks = new Map<string, string>();
  /** Waiters on this instance, woken when one of its turns ends. */
  private readonly waiters = new Map<string, Set<() => void>>();
  private closed = false;

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly turnTtlMs: number,
    private readonly logger: Logger,
  ) {}

  static async open(redisUrl: string, options: { prefix: string; logger: Logger; turnTtlMs?: number }): Promise<RedisRunTurns> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl, redisOptions({ maxRetriesPerRequest: 1 }));
    redis.on('error', (error) => options.logger.warn({ err: error }, 'run turns: Redis error'));
    return new RedisRunTurns(redis, options.prefix, options.turnTtlMs ?? DEFAULT_TURN_TTL_MS, options.logger);
  }

  async take<T>(key: string, work: (othersHadTurns: boolean) => Promise<T>, finished: (result: T) => Promise<unknown>, stop?: AbortSignal): Promise<T> {
    const token = randomUUID();
    const lastMark = await this.waitForTurn(key, token, stop);
    const stale = lastMark === null || lastMark !== this.ownMarks.get(key);
    if (lastMark === null) this.ownMarks.delete(key);
    else this.remember(key, token);
    // Without a turn (Redis did not answer, or this instance stops): the end leaves a mark nobody
    // holds, and frees the turn in case the take was applied but its answer lost.
    const end = () => this.end(key, token, lastMark === null ? randomUUID() : '');
    let result: T;
    try {
      result = await work(stale);
    } catch (error) {
      await end();
      throw error;
    }
    void finished(result).then(end, end);
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
        mark = (await this.redis.eval(TAKE, 2, `${this.prefix}${key}:turn`, `${this.prefix}${key}:last`, token, this.turnTtlMs, LAST_TURN_TTL_MS)) as string | null;
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

  private remember(key: string, mark: string): void {
    if (this.ownMarks.size >= MAX_OWN_MARKS) this.ownMarks.clear();
    this.ownMarks.set(key, mark);
  }

  /** Hands the turn over (if `token` still holds it) and leaves `mark`, if any. */
  private async end(key: string, token: string, mark: string): Promise<void> {
    try {
      await this.redis.eval(END, 2, `${this.prefix}${key}:turn`, `${this.prefix}${key}:last`, token, mark, LAST_TURN_TTL_MS);
    } catch (error) {
      // The turn ends at its TTL instead; the mark taken with it stands.
      this.logger.warn({ err: error, key }, 'run turns: turn not handed over');
    }
    for (const wake of [...(this.waiters.get(key) ?? [])]) wake();
  }
}
