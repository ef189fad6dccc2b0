/**
 * Values loaded once per key (a database read) and shared while loading. Besides the promise,
 * it answers synchronously once a value has loaded (`peek`): a caller on a hot path can decide
 * from memory, and treat "not loaded yet" as "ask the slow way".
 */
export class LoadedCache<K, V> {
  private readonly entries = new Map<K, { promise: Promise<V>; loaded?: { value: V } }>();

  /** Past this many keys the oldest is dropped (it reloads on demand). */
  constructor(private readonly maxEntries = Number.POSITIVE_INFINITY) {}

  get(key: K, load: () => Promise<V>): Promise<V> {
    const cached = this.entries.get(key);
    if (cached) return cached.promise;
    this.makeRoom();
    const entry: { promise: Promise<V>; loaded?: { value: V } } = { promise: load() };
    this.entries.set(key, entry);
    entry.promise.then(
      (value) => {
        entry.loaded = { value };
      },
      // A failed load is not kept: the next caller tries again.
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.promise;
  }

  /** A value known without loading it (this process just wrote it). */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.makeRoom();
    this.entries.set(key, { promise: Promise.resolve(value), loaded: { value } });
  }

  /** The loaded value, or undefined while it is loading or was never asked for. */
  peek(key: K): { value: V } | undefined {
    return this.entries.get(key)?.loaded;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private makeRoom(): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }
}
