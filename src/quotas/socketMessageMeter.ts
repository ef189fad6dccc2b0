import type { Logger } from '../logger.js';
import type { QuotaService } from './quotaService.js';

/** How often counted socket messages are added to the stored daily total. */
const FLUSH_INTERVAL_MS = 1_000;

/**
 * Meters `websocket_messages_daily`. Counting each message with its own database write
 * would cost more than handling the message, so counts gather in memory and are added to
 * the stored total once a second; an organization whose total reached its limit has its
 * further messages refused until the period's counter starts again (or its plan grows). The
 * hard block can therefore trail the limit by up to one second of messages.
 */
export class SocketMessageMeter {
  private readonly pending = new Map<string, number>();
  /** Organizations over their limit, with the period (UTC day) they are blocked for. */
  private readonly blocked = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly quotas: QuotaService,
    private readonly logger: Logger,
  ) {}

  /** Counts one message of the organization; false once its daily limit is used up. */
  count(organizationId: string): boolean {
    if (!this.allows(organizationId)) return false;
    this.pending.set(organizationId, (this.pending.get(organizationId) ?? 0) + 1);
    return true;
  }

  /** Whether the organization's sockets may send now (checked at connect as well). */
  allows(organizationId: string): boolean {
    const blockedFor = this.blocked.get(organizationId);
    if (blockedFor === undefined) return true;
    if (blockedFor === this.quotas.currentPeriod('websocket_messages_daily')) return false;
    this.blocked.delete(organizationId);
    return true;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  /** Adds the messages counted so far to the stored totals (tests call it instead of waiting). */
  flush(): Promise<void> {
    // Chained, not shared: a flush already under way may have started before this call's counts.
    this.flushing = this.flushing.then(() => this.writeCounts());
    return this.flushing;
  }

  private async writeCounts(): Promise<void> {
    const counts = [...this.pending];
    this.pending.clear();
    // Blocked organizations are looked at again: a plan upgrade lets their sockets in within a second.
    for (const organizationId of this.blocked.keys()) {
      if (!counts.some(([id]) => id === organizationId)) counts.push([organizationId, 0]);
    }
    for (const [organizationId, amount] of counts) {
      try {
        const usage = await this.quotas.recordUsage(organizationId, 'websocket_messages_daily', amount);
        if (usage.exhausted) this.blocked.set(organizationId, usage.period);
        else this.blocked.delete(organizationId);
      } catch (error) {
        // Kept for the next flush rather than lost.
        this.pending.set(organizationId, (this.pending.get(organizationId) ?? 0) + amount);
        this.logger.warn({ err: error, organization_id: organizationId }, 'socket message usage could not be stored; retrying');
      }
    }
  }
}
