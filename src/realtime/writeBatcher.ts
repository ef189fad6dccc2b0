import type { Duplex } from 'node:stream';

/**
 * The longest a frame waits for others to the same socket. At 1,000 clients a socket is sent
 * about 100 frames a second, so one turn of the event loop rarely held two for it, and batching
 * by turn alone saved almost nothing; a window of one display frame (16 ms) gathers them.
 */
export const FLUSH_WINDOW_MS = 16;

/** The timers a WriteBatcher runs on (real ones in the service; controlled ones in tests). */
export interface BatchClock {
  now(): number;
  /** Runs `task` once the current turn's I/O callbacks are done. */
  afterTurn(task: () => void): void;
  after(ms: number, task: () => void): void;
}

const systemClock: BatchClock = {
  now: () => performance.now(),
  afterTurn: (task) => setImmediate(task),
  after: (ms, task) => setTimeout(task, ms),
};

/**
 * Gathers the frames written to many sockets into one write per socket. Fanning out, a socket
 * is sent one frame per update from anyone, and each frame was a system call of its own: the
 * largest single cost of a busy board. A socket written to is corked until the next flush:
 * - at the end of the current turn, when nothing was flushed for a window (an idle server
 *   sends at once);
 * - otherwise one window after the last flush (a busy server sends each socket what a window
 *   gathered, in one system call);
 * - and within a turn, at the next write, once the oldest held frame has waited a window: a
 *   burst of messages read in one turn must not hold every frame until the whole turn is done.
 */
export class WriteBatcher {
  private readonly corked = new Set<Duplex>();
  private batchStartedAt = 0;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private flushPending = false;

  constructor(private readonly clock: BatchClock = systemClock) {}

  /** Corks `stream` until the next flush (the caller writes to it right after). */
  hold(stream: Duplex): void {
    if (this.corked.size > 0 && this.clock.now() - this.batchStartedAt >= FLUSH_WINDOW_MS) this.flush();
    if (this.corked.has(stream)) return;
    stream.cork();
    if (this.corked.size === 0) this.startBatch();
    this.corked.add(stream);
  }

  /** Sends everything held now. */
  flush(): void {
    this.lastFlushAt = this.clock.now();
    for (const stream of this.corked) stream.uncork();
    this.corked.clear();
  }

  /** One scheduled flush for every socket held until then, not one each. */
  private startBatch(): void {
    this.batchStartedAt = this.clock.now();
    if (this.flushPending) return;
    this.flushPending = true;
    const flush = () => {
      this.flushPending = false;
      this.flush();
    };
    const wait = this.lastFlushAt + FLUSH_WINDOW_MS - this.batchStartedAt;
    if (wait <= 0) this.clock.afterTurn(flush);
    else this.clock.after(wait, flush);
  }
}
