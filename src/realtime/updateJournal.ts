import type { Logger } from '../logger.js';
import type { DocumentStore } from '../store/documentStore.js';
import type { AppendResult, DocumentAppend } from '../store/updateLog.js';

/** Longest pause between two attempts to commit after the database failed. */
const MAX_RETRY_DELAY_MS = 5_000;
const FIRST_RETRY_DELAY_MS = 100;

/** What the journal tells observability (metrics) as it commits; nothing by default. */
export interface UpdateJournalObserver {
  /** Updates of one document, recorded at these `performance.now()` times, were committed at `committedAt`. */
  updatesDurable(recordedAt: readonly number[], committedAt: number): void;
  /** A group commit failed; its updates wait for the retry. */
  commitFailed(): void;
}

const NOT_OBSERVED: UpdateJournalObserver = { updatesDurable: () => undefined, commitFailed: () => undefined };

interface PendingDocument {
  updates: Uint8Array[];
  /** When each update was recorded (`performance.now()`), for the durable-write latency. */
  recordedAt: number[];
  board?: { id: string; objectsCount: number | null };
  waiters: Array<() => void>;
  /** Per update (its index in `updates`), who waits for the state version it made. */
  versionWaiters: Array<{ index: number; resolve: (version: number | undefined) => void }>;
}

/**
 * Makes every Yjs update durable by appending it to the update log, with group commit:
 * updates that arrive while a commit is in flight are written together by the next one.
 * A failed commit keeps its updates and retries with backoff; nothing is dropped and
 * nobody waiting on `whenDurable` is told "saved" before the rows are committed.
 */
export class UpdateJournal {
  private pending = new Map<string, PendingDocument>();
  private readonly committedSeq = new Map<string, number>();
  private flushing: Promise<void> | null = null;
  private retryDelayMs = FIRST_RETRY_DELAY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly store: DocumentStore,
    private readonly logger: Logger,
    private readonly observer: UpdateJournalObserver = NOT_OBSERVED,
  ) {}

  /**
   * Queues an update of document `name` for the next group commit. Resolves once it is
   * committed, with the board's `state.version` this very update made (undefined for a
   * zone document, a board deleted meanwhile, or a forgotten document).
   */
  record(name: string, update: Uint8Array, board?: { id: string; objectsCount: number | null }): Promise<number | undefined> {
    const entry = this.pending.get(name) ?? { updates: [], recordedAt: [], waiters: [], versionWaiters: [] };
    const index = entry.updates.push(update) - 1;
    entry.recordedAt.push(performance.now());
    if (board) entry.board = board;
    this.pending.set(name, entry);
    this.scheduleFlush();
    return new Promise((resolve) => entry.versionWaiters.push({ index, resolve }));
  }

  /** Resolves once every update recorded so far for `name` is committed. */
  whenDurable(name: string): Promise<void> {
    const entry = this.pending.get(name);
    const inFlight = this.flushing;
    if (!entry && !inFlight) return Promise.resolve();
    if (!entry) return inFlight!.then(() => this.whenDurable(name));
    return new Promise((resolve) => entry.waiters.push(resolve));
  }

  /** Remembers how far a freshly loaded document's state reaches into the log. */
  noteLoaded(name: string, lastSeq: number): void {
    if (!this.committedSeq.has(name)) this.committedSeq.set(name, lastSeq);
  }

  /** The highest log sequence committed for `name`: a snapshot taken now covers it. */
  lastCommittedSeq(name: string): number {
    return this.committedSeq.get(name) ?? 0;
  }

  /** Resolves when the commit in flight (if any) has finished. */
  async idle(): Promise<void> {
    await this.flushing;
  }

  /** Drops everything known about a deleted document (pending updates included). */
  forget(name: string): void {
    const entry = this.pending.get(name);
    this.pending.delete(name);
    this.committedSeq.delete(name);
    entry?.waiters.forEach((resolve) => resolve());
    entry?.versionWaiters.forEach(({ resolve }) => resolve(undefined));
  }

  /** Commits whatever is pending, retrying until it is written. */
  async close(): Promise<void> {
    while (this.pending.size > 0 || this.flushing) {
      if (this.retryTimer) {
        // A commit failed before: wait out its backoff instead of hammering the database.
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
        clearTimeout(this.retryTimer);
        this.retryTimer = null;
      }
      await (this.flushing ?? this.flush());
    }
    this.closed = true;
  }

  private scheduleFlush(): void {
    if (this.flushing || this.retryTimer || this.closed) return;
    // setImmediate, not a microtask: every update of the current event-loop turn joins the commit.
    this.flushing = new Promise((resolve) => setImmediate(() => void this.flush().then(resolve)));
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    try {
      if (batch.size > 0) {
        const results = await this.store.append(toAppends(batch));
        this.onCommitted(batch, results);
      }
      this.retryDelayMs = FIRST_RETRY_DELAY_MS;
      this.flushing = null;
      if (this.pending.size > 0) this.scheduleFlush();
    } catch (error) {
      this.requeue(batch);
      this.flushing = null;
      this.observer.commitFailed();
      this.logger.error({ err: error, documents: batch.size, retryInMs: this.retryDelayMs }, 'update log commit failed; retrying');
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.scheduleFlush();
      }, this.retryDelayMs);
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_DELAY_MS);
    }
  }

  private onCommitted(batch: Map<string, PendingDocument>, results: Map<string, AppendResult>): void {
    const committedAt = performance.now();
    for (const [name, entry] of batch) {
      this.observer.updatesDurable(entry.recordedAt, committedAt);
      const result = results.get(name);
      if (result) this.committedSeq.set(name, Math.max(this.lastCommittedSeq(name), result.lastSeq));
      entry.waiters.forEach((resolve) => resolve());
      // One commit raises the version by its update count at once: update i made the version
      // that many steps below the commit's last one.
      const last = result?.stateVersion;
      for (const { index, resolve } of entry.versionWaiters) {
        resolve(last === undefined ? undefined : last - (entry.updates.length - 1 - index));
      }
    }
  }

  /** Puts a failed batch back in front of whatever arrived meanwhile, keeping update order. */
  private requeue(batch: Map<string, PendingDocument>): void {
    for (const [name, later] of this.pending) {
      const earlier = batch.get(name);
      if (!earlier) {
        batch.set(name, later);
        continue;
      }
      const offset = earlier.updates.length;
      earlier.updates.push(...later.updates);
      earlier.recordedAt.push(...later.recordedAt);
      earlier.waiters.push(...later.waiters);
      earlier.versionWaiters.push(...later.versionWaiters.map((waiter) => ({ ...waiter, index: waiter.index + offset })));
      if (later.board) earlier.board = later.board;
    }
    this.pending = batch;
  }
}

function toAppends(batch: Map<string, PendingDocument>): DocumentAppend[] {
  return [...batch].map(([name, entry]) => ({ name, updates: entry.updates, board: entry.board }));
}
