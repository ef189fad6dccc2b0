import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { RedisRunTurns } from '../../src/store/redisRunTurns.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Turns of several instances (store/redisRunTurns.ts): one holder of a key at a time, held
 * until its work's writes are done, and each holder told whether another instance held it since.
 */
const REDIS_URL = process.env.REDIS_URL;
const logger = createLogger('silent');
const opened: RedisRunTurns[] = [];
const instance = async (prefix: string, redisUrl = REDIS_URL!, turnTtlMs?: number) => {
  const turns = await RedisRunTurns.open(redisUrl, { prefix, logger, turnTtlMs });
  opened.push(turns);
  return turns;
};
afterAll(async () => {
  await Promise.all(opened.map((turns) => turns.close()));
});
const prefix = () => `wb:test:${randomBytes(6).toString('hex')}:agent-turns:`;
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe.skipIf(!REDIS_URL)('run turns in Redis (needs REDIS_URL)', () => {
  it('gives a key to one instance at a time, until the work and its writes are done', async () => {
    const shared = prefix();
    const [one, two] = [await instance(shared), await instance(shared)];
    let holding = 0;
    let most = 0;
    const timeline: string[] = [];
    const writes: Array<Promise<unknown>> = [];
    const turn = (turns: RedisRunTurns, name: string) =>
      turns.take(
        'agent',
        async () => {
          holding += 1;
          most = Math.max(most, holding);
          timeline.push(`${name} works`);
          await pause();
          const written = pause().then(() => timeline.push(`${name} written`));
          writes.push(written);
          return { written };
        },
        async ({ written }) => {
          await written;
          holding -= 1;
        },
      );
    await Promise.all([turn(one, 'a'), turn(two, 'b'), turn(one, 'c'), turn(two, 'd')]);
    await Promise.all(['x', 'y'].map((name, index) => turn(index === 0 ? one : two, name)));
    await Promise.all(writes);
    expect(timeline).toHaveLength(12);
    expect(most).toBe(1);
    // Each turn's writes land before the next turn's work starts.
    for (let index = 0; index < timeline.length; index += 2) expect(timeline[index + 1]).toBe(timeline[index]!.replace('works', 'written'));
  });

  it("tells a holder whether another instance held the key since its own last turn", async () => {
    const shared = prefix();
    const [one, two] = [await instance(shared), await instance(shared)];
    const told = (turns: RedisRunTurns, key = 'agent') => {
      let othersHadTurns: boolean | undefined;
      return turns.take(key, async (stale) => (othersHadTurns = stale), async () => {}).then(() => othersHadTurns);
    };
    // A first turn here knows nothing of the key: whatever is kept of it must be read again.
    expect(await told(one)).toBe(true);
    expect(await told(one)).toBe(false);
    expect(await told(two)).toBe(true);
    expect(await told(one)).toBe(true);
    expect(await told(one)).toBe(false);
    // Keys are apart.
    expect(await told(two, 'other')).toBe(true);
    expect(await told(one)).toBe(false);
  });

  it('tells a holder whose turn ran out that another instance had one meanwhile, though its own ended last', async () => {
    const shared = prefix();
    const [slow, other] = [await instance(shared, REDIS_URL, 150), await instance(shared, REDIS_URL, 150)];
    const told = (turns: RedisRunTurns) => turns.take('agent', async (stale) => stale, async () => {});
    expect(await told(slow)).toBe(true);
    let otherRan!: () => void;
    const otherHasRun = new Promise<void>((resolve) => (otherRan = resolve));
    // The slow instance's work outlives its turn: the other takes the key once it runs out, and
    // hands it over before the slow one ends its own (too late to hand anything over).
    const outlived = slow.take('agent', async (stale) => {
      await otherHasRun;
      return stale;
    }, async () => {});
    await pause();
    expect(await told(other)).toBe(true);
    otherRan();
    expect(await outlived).toBe(false);
    expect(await told(slow)).toBe(true);
    expect(await told(slow)).toBe(false);
  });

  it('leaves a mark after work done without a turn, so the instance that held the key last reads it again', async () => {
    const shared = prefix();
    const [holder, stopping] = [await instance(shared), await instance(shared)];
    const told = (turns: RedisRunTurns, stop?: AbortSignal) => turns.take('agent', async (stale) => stale, async () => {}, stop);
    expect(await told(holder)).toBe(true);
    expect(await told(holder)).toBe(false);
    const stopped = new AbortController();
    stopped.abort();
    // A stopping instance works without a turn only when it would have to wait for one.
    let release!: () => void;
    const held = holder.take('agent', () => new Promise<boolean>((resolve) => (release = () => resolve(false))), async () => {});
    await pause();
    const turnless = told(stopping, stopped.signal);
    expect(await turnless).toBe(true);
    release();
    await held;
    // The mark is left once the turnless work's end has run: a turn taken before it is still told false.
    expect(await eventually(() => told(holder))).toBe(true);
  });

  it('works without a turn while Redis cannot answer, told that what it keeps may be stale', async () => {
    const unreachable = await instance(prefix(), 'redis://127.0.0.1:1');
    const stale = await unreachable.take('agent', async (othersHadTurns) => othersHadTurns, async () => {});
    expect(stale).toBe(true);
  });

  it('gives up waiting once told to stop: the work goes on without a turn, told it may be stale', async () => {
    const shared = prefix();
    const [holder, waiter] = [await instance(shared), await instance(shared)];
    let release!: () => void;
    let holding!: () => void;
    const taken = new Promise<void>((resolve) => (holding = resolve));
    const held = holder.take('agent', async () => {
      holding();
      await new Promise<void>((resolve) => (release = resolve));
    }, async () => {});
    await taken;
    const stop = new AbortController();
    let ran: boolean | undefined;
    const waiting = waiter.take('agent', async (stale) => (ran = stale), async () => {}, stop.signal);
    await pause();
    expect(ran).toBeUndefined();
    stop.abort();
    await waiting;
    expect(ran).toBe(true);
    release();
    await held;
  });
});
