import * as Y from 'yjs';
import { awarenessProblem } from './awarenessBounds.js';
import { encodeUpdateFrame, MessageType, peekFrame, SyncStep } from './wireFrames.js';

/** Limits of one connection's incoming messages. */
export interface MessageGateLimits {
  /** Messages per second let through at once; more are held, and their updates merged. @default 10 */
  perSecond: number;
  /** Messages per second beyond which the connection is flooding and is closed. @default 100 */
  floodPerSecond: number;
  /** Bytes that may wait in the gate before the connection counts as flooding. @default 8 MiB */
  maxHeldBytes: number;
}

export const DEFAULT_GATE_LIMITS: MessageGateLimits = { perSecond: 10, floodPerSecond: 100, maxHeldBytes: 8 * 1024 * 1024 };

/** How often held messages are let through. */
const DRAIN_INTERVAL_MS = 100;
/** Seconds of flooding tolerated as a burst before the connection is closed. */
const FLOOD_BURST_SECONDS = 3;

export interface MessageGateHandlers {
  /** Hands a message to Hocuspocus. */
  deliver(data: Uint8Array): void;
  /** `count` updates for `address` were merged into the one just delivered: they are owed acks. */
  merged(address: string, count: number): void;
  /** Tells the client its messages are being coalesced (at most once a second). */
  notifyCoalescing(address: string, coalesced: number): void;
  /** The connection floods far past the limit. */
  flooding(): void;
  /** An awareness update broke the bounds of presence states (awarenessBounds.ts): nobody received it. */
  invalidAwareness(problem: string): void;
}

interface Held {
  updates: Uint8Array[];
  /** Bytes of the frames the held updates arrived in. */
  updateBytes: number;
  awareness?: Uint8Array;
  stateless: Uint8Array[];
  /** Which kind of message goes first at the next drain: they take turns, so none starves. */
  turn: number;
}

/**
 * Enforces the per-connection message rate without losing data: within the rate,
 * messages pass at once; beyond it, Yjs updates of a document are merged into one,
 * awareness keeps only its latest state, stateless messages wait in order, and all of it
 * is let through at the allowed rate. Handshake messages (auth, sync steps, close) are
 * never held. A connection sending far beyond the rate is reported as flooding, and one
 * sending an awareness state beyond the bounds is reported before the state goes anywhere.
 */
export class MessageGate {
  private tokens: number;
  private floodTokens: number;
  private lastRefill: number;
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;
  private coalescedSinceNotice = 0;
  private lastNotice = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly handlers: MessageGateHandlers,
    private readonly limits: MessageGateLimits = DEFAULT_GATE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = limits.perSecond;
    this.floodTokens = limits.floodPerSecond * FLOOD_BURST_SECONDS;
    this.lastRefill = now();
  }

  receive(data: Uint8Array): void {
    if (this.closed) return;
    const header = peekFrame(data);
    if (header?.type === MessageType.Awareness) {
      const problem = awarenessProblem(data);
      if (problem) return this.refuse(() => this.handlers.invalidAwareness(problem));
    }
    if (!header || !isRateLimited(header.type, header.syncStep)) return this.handlers.deliver(data);
    this.refill();
    this.floodTokens -= 1;
    if (this.floodTokens < 0 || this.heldBytes > this.limits.maxHeldBytes) return this.refuse(() => this.handlers.flooding());
    if (this.tokens >= 1 && this.held.size === 0) {
      this.tokens -= 1;
      return this.handlers.deliver(data);
    }
    this.hold(header.address, header.type, data, header.update);
  }

  /** Stops the drain timer; held messages of a closed socket have nowhere to go. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private hold(address: string, type: number, data: Uint8Array, update?: Uint8Array): void {
    const held = this.held.get(address) ?? { updates: [], updateBytes: 0, stateless: [], turn: 0 };
    if (update) {
      held.updates.push(update);
      held.updateBytes += data.byteLength;
    } else if (type === MessageType.Awareness) {
      this.heldBytes -= held.awareness?.byteLength ?? 0;
      held.awareness = data;
    } else held.stateless.push(data);
    this.held.set(address, held);
    this.heldBytes += data.byteLength;
    this.coalescedSinceNotice += 1;
    if (this.now() - this.lastNotice >= 1_000) {
      this.lastNotice = this.now();
      this.handlers.notifyCoalescing(address, this.coalescedSinceNotice);
      this.coalescedSinceNotice = 0;
    }
    this.timer ??= setInterval(() => this.drain(), DRAIN_INTERVAL_MS);
  }

  private drain(): void {
    this.refill();
    // Documents and kinds of message take turns, so a steady stream of one cannot starve the others.
    for (const [address, held] of [...this.held]) {
      if (this.tokens < 1) break;
      const releases = [() => this.releaseUpdates(address, held), () => this.releaseAwareness(held), () => this.releaseStateless(held)];
      for (let i = 0; i < releases.length; i += 1) releases[(held.turn + i) % releases.length]!();
      held.turn = (held.turn + 1) % releases.length;
      this.held.delete(address);
      if (held.updates.length > 0 || held.awareness || held.stateless.length > 0) this.held.set(address, held);
    }
    if (this.held.size === 0) {
      this.heldBytes = 0;
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
    }
  }

  private releaseUpdates(address: string, held: Held): void {
    if (held.updates.length === 0 || this.tokens < 1) return;
    this.tokens -= 1;
    const updates = held.updates;
    this.heldBytes -= held.updateBytes;
    held.updates = [];
    held.updateBytes = 0;
    const merged = mergeable(updates);
    if (!merged) {
      // One of them cannot be decoded here (a value nested too deep): each goes on alone,
      // and the write check refuses that one (closing the socket) without losing the others.
      for (const update of updates) this.handlers.deliver(encodeUpdateFrame(address, update));
      return;
    }
    if (updates.length > 1) this.handlers.merged(address, updates.length - 1);
    this.handlers.deliver(encodeUpdateFrame(address, merged));
  }

  private releaseAwareness(held: Held): void {
    if (!held.awareness || this.tokens < 1) return;
    this.tokens -= 1;
    const awareness = held.awareness;
    this.heldBytes -= awareness.byteLength;
    held.awareness = undefined;
    this.handlers.deliver(awareness);
  }

  private releaseStateless(held: Held): void {
    while (held.stateless.length > 0 && this.tokens >= 1) {
      this.tokens -= 1;
      const message = held.stateless.shift()!;
      this.heldBytes -= message.byteLength;
      this.handlers.deliver(message);
    }
  }

  private refill(): void {
    const now = this.now();
    const seconds = (now - this.lastRefill) / 1_000;
    this.lastRefill = now;
    this.tokens = Math.min(this.limits.perSecond, this.tokens + seconds * this.limits.perSecond);
    const floodCapacity = this.limits.floodPerSecond * FLOOD_BURST_SECONDS;
    this.floodTokens = Math.min(floodCapacity, this.floodTokens + seconds * this.limits.floodPerSecond);
  }

  /** Lets nothing more through (the socket is being closed) and reports why. */
  private refuse(report: () => void): void {
    this.close();
    this.held.clear();
    report();
  }
}

/** Content messages count against the rate; the handshake never waits. */
/** The updates merged into one, or null when merging them overflows the stack. */
function mergeable(updates: Uint8Array[]): Uint8Array | null {
  if (updates.length === 1) return updates[0]!;
  try {
    return Y.mergeUpdates(updates);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

function isRateLimited(type: number, syncStep: number | undefined): boolean {
  if (type === MessageType.Sync) return syncStep === SyncStep.Update;
  return type === MessageType.Awareness || type === MessageType.Stateless;
}
