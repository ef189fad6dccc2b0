import { describe, expect, it } from 'vitest';
import { GroupCommit } from './groupCommit.js';

describe('GroupCommit', () => {
  it('writes the items of one tick together and those added during a write in the next one', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const commit = new GroupCommit<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = [commit.add(1), commit.add(2)];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [commit.add(3), commit.add(4), commit.add(5)];
    release();
    await Promise.all([...first, ...later]);
    expect(writes).toEqual([[1, 2], [3, 4, 5]]);
  });

  it('rejects every item of a failed write and goes on with the next ones', async () => {
    let fail = true;
    const commit = new GroupCommit<string>(async () => {
      if (fail) throw new Error('disk full');
    });
    const failed = [commit.add('a'), commit.add('b')].map((p) => p.then(() => 'ok', (error: Error) => error.message));
    expect(await Promise.all(failed)).toEqual(['disk full', 'disk full']);
    fail = false;
    await expect(commit.add('c')).resolves.toBeUndefined();
  });

  it('resolves an item only after its write finished', async () => {
    let finished = false;
    const commit = new GroupCommit<number>(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished = true;
    });
    await commit.add(1);
    expect(finished).toBe(true);
  });
});
