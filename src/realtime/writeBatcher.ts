import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';

/**
 * The longest a frame waits for others to the same socket. At 1,000 clients a socket is sent
 * about 100 frames a second, so one turn of the event loop rarely held two for it, and batching
 * by turn alone saved almost nothing; a window of one display frame (16 ms) gathers them.
 */
export const FLUSH_WINDOW_MS = 16;

/**
 * How busy the event loop must be (the share of time it ran, over the last UTILIZATION_SAMPLE_MS)
 * for frames to wait for a window. Below it the core has room: queueing costs a client less than
 * the window's wait (8 ms on average), so a window would only add latency. Near saturation the
 * writes it saves are what keeps queues from forming.
 */
export const BUSY_UTILIZATION = 0.8;
const UTILIZATION_SAMPLE_MS = 250;

/** The timers a WriteBatcher runs on (real ones in the service; controlled ones in tests). */
export interface BatchClock {
  now(): number;
  /** Runs `task` once the current turn's I/O callbacks are done. */
  afterTurn(task: () => void): void;
  after(ms: number, task: () => void): void;
  /** The event loop's recent utilization, 0 to 1. */
  utilization(): number;
}

function systemClock(): BatchClock {
  let sample = performance.eventLoopUtilization();
  let sampledAt = performance.now();
  let utilization = 0;
  return {
    now: () => performance.now(),
    afterTurn: (task) => setImmediate(task),
    after: (ms, task) => setTimeout(task, ms),
    utilization() {
      const now = performance.now();
      if (now - sampledAt >= UTILIZATION_SAMPLE_MS) {
        const next = performance.eventLoopUtilization();
        utilization = performance.eventLoopUtilization(next, sample).utilization;
        [sample, sampledAt] = [next, now];
      }
      return utilization;
    },
  };
}

/** Sockets corked until one flush, and when the first of them was. */
class Batch {
  readonly streams = new Set<Duplex>();
  startedAt = 0;
  scheduled = false;

  /** Sends what waited a window already: within a long turn, its timer cannot run. */
  flushIfOverdue(flushedAt: WeakMap<Duplex, number>, now: number): void {
    if (this.streams.size > 0 && now - this.startedAt >= FLUSH_WINDOW_MS) this.flush(flushedAt, now);
  }

  flush(flushedAt: WeakMap<Duplex, number>, now: number): void {
    for (const stream of this.streams) {
      flushedAt.set(stream, now);
      stream.uncork();
    }
    this.streams.clear();
  }
}

/**
 * Gathers the frames written to a socket into one write. Fanning out, a socket is sent one
 * frame per update from anyone, and each frame was a system call of its own: the largest
 * single cost of a busy board. A socket written to is corked until:
 * - the end of the current turn, when it was not flushed within a window (a quiet socket, a
 *   new one) or the event loop has room (BUSY_UTILIZATION): sent at once;
 * - otherwise, on a busy loop, one window after its last flush: a busy socket gets what a
 *   window gathered, in one call;
 * - and within a long turn, the next write to any socket once the oldest held frame has waited
 *   a window: a burst of messages read in one turn must not hold every frame until it is done.
 */
export class WriteBatcher {
  private readonly thisTurn = new Batch();
  private readonly thisWindow = new Batch();
  private readonly flushedAt = new WeakMap<Duplex, number>();

  constructor(private readonly clock: BatchClock = systemClock()) {}

  /** Corks `stream` until its flush (the caller writes to it right after). */
  hold(stream: Duplex): void {
    const now = this.clock.now();
    // Every frame sent passes here: two calls, not a loop over a fresh array.
    this.thisTurn.flushIfOverdue(this.flushedAt, now);
    this.thisWindow.flushIfOverdue(this.flushedAt, now);
    if (this.thisTurn.streams.has(stream) || this.thisWindow.streams.has(stream)) return;
    stream.cork();
    const last = this.flushedAt.get(stream);
    // A socket flushed within the window, on a busy loop, waits for the window's end: one window after that flush.
    const windowEndsIn = last === undefined || this.clock.utilization() < BUSY_UTILIZATION ? 0 : last + FLUSH_WINDOW_MS - now;
    const busy = windowEndsIn > 0;
    const batch = busy ? this.thisWindow : this.thisTurn;
    if (batch.streams.size === 0) batch.startedAt = now;
    batch.streams.add(stream);
    if (batch.scheduled) return;
    batch.scheduled = true;
    const flush = () => {
      batch.scheduled = false;
      batch.flush(this.flushedAt, this.clock.now());
    };
    if (busy) this.clock.after(windowEndsIn, flush);
    else this.clock.afterTurn(flush);
  }
}
