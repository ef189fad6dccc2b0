/** How long a cached read is trusted, and how many are kept. */
export interface TtlCacheOptions {
  ttlMs: number;
  /** Past this many entries the least recently used goes first. */
  maxEntries: number;
  /** Milliseconds; the wall clock unless a test injects one. */
  now?: () => number;
}

/**
 * Values read recently from the database, each trusted for `ttlMs`. A change made on this
 * instance drops what it touched at once (`forgetWhere`); one made on another instance shows
 * within `ttlMs`.
 *
 * A read that started before a change and ends after it would put the old value back. So a
 * reader takes a `ticket()` before it reads, and `set` keeps the value only if nothing was
 * forgotten since that ticket.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();
  private forgets = 0;
  private readonly now: () => number;

  constructor(private readonly options: TtlCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get(key: K): V | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.until <= this.now()) return null;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Taken before reading the value to cache; see the class comment. */
  ticket(): number {
    return this.forgets;
  }

  set(key: K, value: V, ticket: number): void {
    if (ticket !== this.forgets) return;
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.now() + this.options.ttlMs });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }

  /** Drops every entry whose value matches, and makes reads already under way not cache. */
  forgetWhere(matches: (value: V) => boolean): void {
    this.forgets += 1;
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}
