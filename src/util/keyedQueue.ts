/**
 * Runs tasks one at a time per key, in the order they were queued: a task starts once every
 * task queued before it under the same key has settled, whether it succeeded or failed.
 * Keys with nothing queued take no memory.
 */
export class KeyedQueue<K> {
  /** Per key, a promise that settles (never rejects) once the last task queued has. */
  private readonly tails = new Map<K, Promise<void>>();

  /** Queues `task` under `key`; resolves or rejects as the task does. */
  run<T>(key: K, task: () => T | PromiseLike<T>): Promise<T> {
    // Always started from a `then`, never synchronously, even with nothing queued before.
    const result = this.idle(key).then(task);
    const tail = result.then(ignore, ignore);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves once every task queued under `key` so far has settled. */
  idle(key: K): Promise<void> {
    return this.tails.get(key) ?? Promise.resolve();
  }

  /** True while a task queued under `key` has not settled yet. */
  busy(key: K): boolean {
    return this.tails.has(key);
  }
}

/** One lane of tasks run one at a time, in order (a KeyedQueue with a single key). */
export class SerialQueue {
  private readonly lane = new KeyedQueue<null>();

  run<T>(task: () => T | PromiseLike<T>): Promise<T> {
    return this.lane.run(null, task);
  }

  get busy(): boolean {
    return this.lane.busy(null);
  }
}

function ignore(): void {}
