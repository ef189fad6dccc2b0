import { describe, expect, it } from 'vitest';
import { KeyedQueue, SerialQueue } from './keyedQueue.js';

/** A promise settled by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('KeyedQueue', () => {
  it('runs the tasks of one key one at a time, in order, and those of other keys beside them', async () => {
    const queue = new KeyedQueue<string>();
    const log: string[] = [];
    const first = gate();
    const a1 = queue.run('a', async () => {
      log.push('a1 start');
      await first.promise;
      log.push('a1 end');
    });
    const a2 = queue.run('a', () => void log.push('a2'));
    await queue.run('b', () => void log.push('b1'));
    expect(log).toEqual(['a1 start', 'b1']);
    first.open();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('rejects a failing task to its caller and still runs the next one', async () => {
    const queue = new KeyedQueue<string>();
    const failed = queue.run('a', () => Promise.reject(new Error('boom')));
    const next = queue.run('a', () => 'next ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next ran');
  });

  it('never starts a task synchronously, even on an idle key', async () => {
    const queue = new KeyedQueue<string>();
    let started = false;
    const done = queue.run('a', () => void (started = true));
    expect(started).toBe(false);
    await done;
    expect(started).toBe(true);
  });

  it('tells when a key is busy and resolves idle once everything queued so far settled', async () => {
    const queue = new KeyedQueue<string>();
    const hold = gate();
    let finished = false;
    void queue.run('a', async () => {
      await hold.promise;
      finished = true;
    });
    expect(queue.busy('a')).toBe(true);
    expect(queue.busy('b')).toBe(false);
    const idle = queue.idle('a');
    hold.open();
    await idle;
    expect(finished).toBe(true);
    expect(queue.busy('a')).toBe(false);
  });
});

describe('SerialQueue', () => {
  it('runs tasks one at a time in order and is busy until the last settled', async () => {
    const queue = new SerialQueue();
    const log: number[] = [];
    const hold = gate();
    const first = queue.run(async () => {
      await hold.promise;
      log.push(1);
    });
    const second = queue.run(() => void log.push(2));
    expect(queue.busy).toBe(true);
    hold.open();
    await Promise.all([first, second]);
    expect(log).toEqual([1, 2]);
    await Promise.resolve();
    expect(queue.busy).toBe(false);
  });
});
