import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { redisOptions } from './redisOptions.js';
import type { OrphanedSeats, SeatClaim, SeatLedger, SeatRelease, SeatSession } from './seatLedger.js';

/** How long an instance counts as alive after its last heartbeat. */
const DEFAULT_INSTANCE_TTL_MS = 15_000;

/*
 * Keys, under the deployment's prefix:
 *   board:<id>:seats       hash  participant key -> seat (JSON)
 *   board:<id>:sockets     hash  participant key -> holders of its seat (SeatLedger.claim), all instances
 *   board:<id>:on:<inst>   hash  holder id -> participant key, the holders on one instance (a claim
 *                                counts a holder once, a release removes it first: each is counted once)
 *   board:<id>:session     string the session (JSON), while a seat is taken
 *   boards                 set   boards with a seat taken
 *   instance:<inst>:boards set   boards an instance holds sockets on
 *   instances              zset  instance -> when it counts as stopped (ms)
 * Every change is one script, so counts and seats never disagree, whatever instances race.
 */

/** KEYS: seats, sockets, on, session, boards, instance boards. ARGV: key, seat, limit (-1: none), session, board id, holder id. */
const CLAIM = `
local held = redis.call('HGET', KEYS[2], ARGV[1])
if not held then
  local seated = redis.call('HLEN', KEYS[1])
  local limit = tonumber(ARGV[3])
  if limit >= 0 and seated >= limit then return {'full', seated} end
end
if redis.call('HSET', KEYS[3], ARGV[6], ARGV[1]) == 1 then redis.call('HINCRBY', KEYS[2], ARGV[1], 1) end
redis.call('SADD', KEYS[6], ARGV[5])
if held then
  return {'held', redis.call('HLEN', KEYS[1]), redis.call('GET', KEYS[4]), redis.call('HGET', KEYS[1], ARGV[1])}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local started = redis.call('SETNX', KEYS[4], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[5])
return {'taken', redis.call('HLEN', KEYS[1]), redis.call('GET', KEYS[4]), started}
`;

/** Same KEYS as CLAIM. ARGV: key, board id, holder id. */
const RELEASE = `
if redis.call('HDEL', KEYS[3], ARGV[3]) == 0 then return {'kept'} end
if redis.call('HLEN', KEYS[3]) == 0 then redis.call('SREM', KEYS[6], ARGV[2]) end
if redis.call('HINCRBY', KEYS[2], ARGV[1], -1) > 0 then return {'kept'} end
redis.call('HDEL', KEYS[2], ARGV[1])
local seat = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
local seated = redis.call('HLEN', KEYS[1])
if seated > 0 then return {'freed', seated, seat} end
local session = redis.call('GET', KEYS[4])
redis.call('DEL', KEYS[4])
redis.call('SREM', KEYS[5], ARGV[2])
return {'freed', 0, seat, session}
`;

/** KEYS: seats. ARGV: key, seat. */
const AMEND = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
`;

/**
 * Frees what a stopped instance held, once: the first survivor to run it takes the instance
 * out of `instances`, a later one finds it gone. KEYS: instances, boards. ARGV: prefix,
 * instance, now. Answers per board: {board id, {seated after, seat}..., ended session or ''}.
 */
const SWEEP = `
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not expiry or tonumber(expiry) > tonumber(ARGV[3]) then return {} end
redis.call('ZREM', KEYS[1], ARGV[2])
local instanceBoards = ARGV[1] .. 'instance:' .. ARGV[2] .. ':boards'
local result = {}
for _, board in ipairs(redis.call('SMEMBERS', instanceBoards)) do
  local b = ARGV[1] .. 'board:' .. board
  local on = b .. ':on:' .. ARGV[2]
  local held = redis.call('HGETALL', on)
  redis.call('DEL', on)
  local keys, counts = {}, {}
  for i = 2, #held, 2 do
    local key = held[i]
    if not counts[key] then
      counts[key] = 0
      table.insert(keys, key)
    end
    counts[key] = counts[key] + 1
  end
  local freed = {}
  for _, key in ipairs(keys) do
    if redis.call('HINCRBY', b .. ':sockets', key, -counts[key]) <= 0 then
      redis.call('HDEL', b .. ':sockets', key)
      local seat = redis.call('HGET', b .. ':seats', key)
      redis.call('HDEL', b .. ':seats', key)
      table.insert(freed, {redis.call('HLEN', b .. ':seats'), seat})
    end
  end
  local session = ''
  if #freed > 0 and redis.call('HLEN', b .. ':seats') == 0 then
    session = redis.call('GET', b .. ':session') or ''
    redis.call('DEL', b .. ':session')
    redis.call('SREM', KEYS[2], board)
  end
  table.insert(result, {board, freed, session})
end
redis.call('DEL', instanceBoards)
return result
`;

type Reply = Array<string | number | null>;

/**
 * The seat ledger of several instances (seatLedger.ts), in Redis. Each instance renews its
 * heartbeat; one that stops without letting go of its seats (killed) is found by a survivor
 * once its heartbeat is `ttlMs` old, and its seats are freed there, once for the deployment.
 * Heartbeats are read against each instance's clock, so instances' clocks must agree to well
 * within `ttlMs` (NTP); agent schedule leases assume the same.
 */
export class RedisSeatLedger<Seat> implements SeatLedger<Seat> {
  private readonly listeners: Array<(orphans: OrphanedSeats<Seat>) => void> = [];
  private readonly timer: NodeJS.Timeout;
  private sweeping: Promise<void> | null = null;

  private constructor(
    private readonly redis: Redis,
    private readonly options: { prefix: string; instanceId: string; clock: Clock; ttlMs: number; logger: Logger },
  ) {
    this.timer = setInterval(() => void this.sweepOrphans(), options.ttlMs / 3);
    this.timer.unref();
  }

  static async open<Seat>(redisUrl: string, options: { prefix: string; instanceId: string; clock: Clock; logger: Logger; ttlMs?: number }): Promise<RedisSeatLedger<Seat>> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(redisUrl, redisOptions({ maxRetriesPerRequest: 1 }));
    redis.on('error', (error) => options.logger.warn({ err: error }, 'seat ledger: Redis error'));
    const ledger = new RedisSeatLedger<Seat>(redis, { ...options, ttlMs: options.ttlMs ?? DEFAULT_INSTANCE_TTL_MS });
    await ledger.heartbeat().catch((error: unknown) => options.logger.warn({ err: error }, 'seat ledger: no first heartbeat'));
    return ledger;
  }

  async claim(boardId: string, key: string, seat: Seat, options: { limit: number | null; session: SeatSession; holderId: string }): Promise<SeatClaim<Seat>> {
    const args = [key, JSON.stringify(seat), String(options.limit ?? -1), JSON.stringify(options.session), boardId, options.holderId];
    const reply = (await this.redis.eval(CLAIM, 6, ...this.boardKeys(boardId), ...args)) as Reply;
    const seated = Number(reply[1]);
    switch (reply[0]) {
      case 'full':
        return { kind: 'full', seated };
      case 'held':
        return { kind: 'held', seated, session: parsed<SeatSession>(reply[2]), seat: parsed<Seat>(reply[3]) };
      default:
        return { kind: 'taken', seated, session: parsed<SeatSession>(reply[2]), sessionStarted: Number(reply[3]) === 1 };
    }
  }

  async release(boardId: string, key: string, holderId: string): Promise<SeatRelease<Seat>> {
    const reply = (await this.redis.eval(RELEASE, 6, ...this.boardKeys(boardId), key, boardId, holderId)) as Reply;
    if (reply[0] === 'kept') return { kind: 'kept' };
    const sessionEnded = reply[3] ? parsed<SeatSession>(reply[3]) : null;
    return { kind: 'freed', seated: Number(reply[1]), seat: parsed<Seat>(reply[2]), sessionEnded };
  }

  async amend(boardId: string, key: string, seat: Seat): Promise<void> {
    await this.redis.eval(AMEND, 1, this.boardKey(boardId, 'seats'), key, JSON.stringify(seat));
  }

  async seats(boardId: string): Promise<Seat[]> {
    const stored = await this.redis.hvals(this.boardKey(boardId, 'seats'));
    return stored.map((text) => parsed<Seat>(text));
  }

  count(boardId: string): Promise<number> {
    return this.redis.hlen(this.boardKey(boardId, 'seats'));
  }

  boards(): Promise<string[]> {
    return this.redis.smembers(`${this.options.prefix}boards`);
  }

  onOrphansFreed(listener: (orphans: OrphanedSeats<Seat>) => void): void {
    this.listeners.push(listener);
  }

  /** Renews this instance's heartbeat and frees the seats of instances whose heartbeat ran out. */
  sweepOrphans(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'seat ledger: sweep failed'))
      .finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  /**
   * Stops the heartbeat and marks this instance stopped now, so a survivor frees any seat its
   * sockets could not let go of (their release failed); normally they have all let go by now.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await this.redis
      .zadd(`${this.options.prefix}instances`, this.options.clock.now().getTime(), this.options.instanceId)
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'seat ledger: not marked stopped'));
    this.redis.disconnect();
  }

  private async sweepOnce(): Promise<void> {
    await this.heartbeat();
    const { prefix, instanceId, clock } = this.options;
    const now = clock.now().getTime();
    const stopped = await this.redis.zrangebyscore(`${prefix}instances`, '-inf', now);
    for (const instance of stopped.filter((id) => id !== instanceId)) {
      const reply = (await this.redis.eval(SWEEP, 2, `${prefix}instances`, `${prefix}boards`, prefix, instance, String(now))) as Array<[string, Array<[number, string]>, string]>;
      for (const [boardId, freedSeats, ended] of reply) {
        if (freedSeats.length === 0) continue;
        const freed = freedSeats.map(([seated, seat], index) => ({
          kind: 'freed' as const,
          seated: Number(seated),
          seat: parsed<Seat>(seat),
          sessionEnded: ended && index === freedSeats.length - 1 ? parsed<SeatSession>(ended) : null,
        }));
        for (const listener of this.listeners) listener({ boardId, freed });
      }
    }
  }

  private async heartbeat(): Promise<void> {
    const { prefix, instanceId, clock, ttlMs } = this.options;
    await this.redis.zadd(`${prefix}instances`, clock.now().getTime() + ttlMs, instanceId);
  }

  private boardKeys(boardId: string): string[] {
    const { prefix, instanceId } = this.options;
    return [
      this.boardKey(boardId, 'seats'),
      this.boardKey(boardId, 'sockets'),
      this.boardKey(boardId, `on:${instanceId}`),
      this.boardKey(boardId, 'session'),
      `${prefix}boards`,
      `${prefix}instance:${instanceId}:boards`,
    ];
  }

  private boardKey(boardId: string, part: string): string {
    return `${this.options.prefix}board:${boardId}:${part}`;
  }
}

/** A value the ledger stored as JSON itself. */
function parsed<T>(text: string | number | null | undefined): T {
  return JSON.parse(String(text)) as T;
}
