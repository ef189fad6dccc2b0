import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { ActionWindows } from '../../src/store/actionWindows.js';
import { createLimiterStore, type LimiterStore } from '../../src/store/limiterStore.js';

/**
 * Agents' actions per minute (store/actionWindows.ts): one sliding minute per key, the same in
 * memory and in Redis, where instances taking the last slots at once never pass the limit.
 */
const REDIS_URL = process.env.REDIS_URL;
const logger = createLogger('silent');
const stores: LimiterStore[] = [];
const storeOf = async (redisUrl?: string) => {
  const store = await createLimiterStore({ redisUrl, logger });
  stores.push(store);
  return store;
};
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
});
const prefix = () => `wb:test:${randomBytes(6).toString('hex')}:agent-actions:`;
const T0 = Date.parse('2026-11-25T10:00:00Z');

const kinds: Array<[string, boolean, () => Promise<ActionWindows>]> = [
  ['in memory', true, async () => (await storeOf()).actionWindows(prefix())],
  ['in Redis', Boolean(REDIS_URL), async () => (await storeOf(REDIS_URL)).actionWindows(prefix())],
];

describe.each(kinds)('action windows %s', (_name, runs, open) => {
  it.runIf(runs)('takes `limit` slots in a minute, frees each sixty seconds after it was taken', async () => {
    const windows = await open();
    for (const at of [0, 10_000, 20_000]) expect(await windows.tryTake('agent', 3, T0 + at)).toBe(true);
    expect(await windows.tryTake('agent', 3, T0 + 30_000)).toBe(false);
    // Another key has its own window.
    expect(await windows.tryTake('other', 3, T0 + 30_000, 3)).toBe(true);
    expect(await windows.tryTake('agent', 3, T0 + 59_999)).toBe(false);
    // One slot is free a minute after the first was taken: two at once do not fit, one does.
    expect(await windows.tryTake('agent', 3, T0 + 60_000, 2)).toBe(false);
    expect(await windows.tryTake('agent', 3, T0 + 60_000)).toBe(true);
    expect(await windows.tryTake('agent', 3, T0 + 60_001)).toBe(false);
    await windows.forget('agent');
    expect(await windows.tryTake('agent', 3, T0 + 60_000, 3)).toBe(true);
  });

  it.runIf(runs)('takes several slots at once or none: a refused take leaves the room it found', async () => {
    const windows = await open();
    expect(await windows.tryTake('agent', 5, T0, 3)).toBe(true);
    expect(await windows.tryTake('agent', 5, T0 + 1, 3)).toBe(false);
    expect(await windows.tryTake('agent', 5, T0 + 2, 2)).toBe(true);
    expect(await windows.tryTake('agent', 5, T0 + 3)).toBe(false);
    // The three taken together free together.
    expect(await windows.tryTake('agent', 5, T0 + 60_000, 4)).toBe(false);
    expect(await windows.tryTake('agent', 5, T0 + 60_000, 3)).toBe(true);
  });
});

describe.skipIf(!REDIS_URL)('action windows of several instances (needs REDIS_URL)', () => {
  it('two instances taking slots at once get `limit` of them between them, no more', async () => {
    const shared = prefix();
    const [one, two] = [(await storeOf(REDIS_URL)).actionWindows(shared), (await storeOf(REDIS_URL)).actionWindows(shared)];
    const takes = await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? one : two).tryTake('agent', 7, T0)));
    expect(takes.filter(Boolean)).toHaveLength(7);
    expect(await one.tryTake('agent', 7, T0)).toBe(false);
  });

  it('two instances taking two slots at a time never split a pair or pass the limit', async () => {
    const shared = prefix();
    const [one, two] = [(await storeOf(REDIS_URL)).actionWindows(shared), (await storeOf(REDIS_URL)).actionWindows(shared)];
    const takes = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? one : two).tryTake('agent', 7, T0, 2)));
    expect(takes.filter(Boolean)).toHaveLength(3);
    // The seventh slot is the only one left.
    expect(await two.tryTake('agent', 7, T0, 2)).toBe(false);
    expect(await one.tryTake('agent', 7, T0)).toBe(true);
  });

  it('counts in memory while Redis cannot answer: the limit holds for this instance', async () => {
    const windows = (await storeOf('redis://127.0.0.1:1')).actionWindows(prefix());
    const takes = [];
    for (let index = 0; index < 5; index += 1) takes.push(await windows.tryTake('agent', 3, T0));
    expect(takes).toEqual([true, true, true, false, false]);
    expect(await windows.tryTake('agent', 3, T0 + 60_000, 3)).toBe(true);
  });
});
