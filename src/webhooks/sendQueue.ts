import type { ClaimedDelivery } from '../store/deliveryLog.js';

export interface SendQueueLimits {
  /** Attempts in flight at once per receiving host, and in all. */
  inFlightPerHost: number;
  inFlightTotal: number;
  /** Claimed deliveries waiting for a slot, per host and in all. */
  waitingPerHost: number;
  waitingTotal: number;
}

/**
 * Claimed deliveries, per receiving host: those being sent (bounded per host and in all, so
 * a slow receiver cannot hold the rest) and those waiting for a slot. Keeping a few claimed
 * deliveries waiting lets a finished attempt start the next one at once, without a database
 * round per attempt. A waiting delivery waits for at most one attempt per slot of its host
 * (≤ 10 s each), far less than its lease.
 */
export class SendQueue {
  private readonly hosts = new Map<string, { sending: number; waiting: ClaimedDelivery[] }>();
  private sendingTotal = 0;
  private waitingTotal = 0;

  constructor(
    private readonly limits: SendQueueLimits,
    /** Sends one delivery; resolves when the receiver answered (or the attempt failed). */
    private readonly send: (delivery: ClaimedDelivery) => Promise<void>,
    /** A slot of `host` was given back (its waiting list may run low). */
    private readonly onSlotFreed: (host: string, waiting: number) => void,
  ) {}

  /** How many more deliveries for `host` may be claimed now. */
  roomFor(host: string): number {
    const entry = this.hosts.get(host);
    const held = entry ? entry.sending + entry.waiting.length : 0;
    return Math.min(this.limits.inFlightPerHost + this.limits.waitingPerHost - held, this.room());
  }

  /** How many more deliveries may be claimed now, for any host. */
  room(): number {
    const { inFlightTotal, waitingTotal } = this.limits;
    return inFlightTotal + waitingTotal - this.sendingTotal - this.waitingTotal;
  }

  add(host: string, delivery: ClaimedDelivery): void {
    const entry = this.hosts.get(host) ?? { sending: 0, waiting: [] };
    this.hosts.set(host, entry);
    entry.waiting.push(delivery);
    this.waitingTotal += 1;
    this.pump();
  }

  /** Takes every delivery still waiting (to hand them back when stopping). */
  takeWaiting(): ClaimedDelivery[] {
    const waiting = [...this.hosts.values()].flatMap((entry) => entry.waiting.splice(0));
    this.waitingTotal = 0;
    this.forgetIdleHosts();
    return waiting;
  }

  private pump(): void {
    for (const [host, entry] of this.hosts) {
      while (entry.waiting.length > 0 && entry.sending < this.limits.inFlightPerHost && this.sendingTotal < this.limits.inFlightTotal) {
        const delivery = entry.waiting.shift()!;
        this.waitingTotal -= 1;
        entry.sending += 1;
        this.sendingTotal += 1;
        void this.send(delivery).finally(() => {
          entry.sending -= 1;
          this.sendingTotal -= 1;
          this.pump();
          this.onSlotFreed(host, entry.waiting.length);
        });
      }
    }
    this.forgetIdleHosts();
  }

  private forgetIdleHosts(): void {
    for (const [host, entry] of this.hosts) if (entry.sending === 0 && entry.waiting.length === 0) this.hosts.delete(host);
  }
}
