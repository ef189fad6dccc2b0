import type { WebhookDelivery } from '../../generated/sqlite/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../store/database.js';
import { attemptDelivery, DELIVERY_TIMEOUT_MS, type AttemptOutcome } from './sender.js';

/** How often due deliveries are looked for when nothing wakes the dispatcher. */
const POLL_INTERVAL_MS = 250;
/** A claimed delivery is this instance's for this long; after a crash another instance takes it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** Deliveries claimed per round. */
const CLAIM_BATCH = 100;
/** Attempts in flight at once, in all and per receiving host: a slow receiver cannot hold the rest. */
const MAX_IN_FLIGHT = 64;
const MAX_IN_FLIGHT_PER_HOST = 8;
/** Consecutive failed deliveries after which a subscription is disabled (SPEC Limits). */
export const AUTO_DISABLE_AFTER = 10;
const USER_AGENT = 'Whiteboard-Webhooks/1.0';

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Delays before each retry (WEBHOOK_RETRY_DELAYS_MS). */
  retryDelaysMs: number[];
  allowPrivateTargets: boolean;
  /** Jitter added to each retry delay, 0-1000 ms (injectable for tests). */
  jitterMs?: () => number;
}

/**
 * Sends the outbox: claims due deliveries with a lease (so with several instances each
 * delivery is sent by one), POSTs them, and records the outcome: success, a retry after
 * the next delay plus jitter (same delivery_id, same bytes), or `failed` after the last
 * retry, which counts toward disabling the subscription.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly inFlight = new Map<string, number>();
  private inFlightTotal = 0;
  private readonly attempts = new Set<Promise<void>>();

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due deliveries now (called when new ones are written). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch((error) => this.options.logger.error({ err: error }, 'webhook dispatch round failed'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Runs rounds until nothing is due and nothing is in flight (tests and benchmarks). */
  async drain(): Promise<void> {
    do {
      this.wake();
      await this.running;
      await Promise.all([...this.attempts]);
    } while (this.running || this.attempts.size > 0);
  }

  /** Stops claiming and waits for attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await Promise.all([...this.attempts]);
  }

  private async round(): Promise<void> {
    const now = this.options.clock.now();
    const due = await this.options.db.webhookDelivery.findMany({
      where: { status: 'pending', nextAttemptAt: { lte: now }, OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
      orderBy: { nextAttemptAt: 'asc' },
      take: CLAIM_BATCH,
    });
    for (const delivery of due) {
      if (this.inFlightTotal >= MAX_IN_FLIGHT) break;
      const host = hostOf(delivery.url);
      if ((this.inFlight.get(host) ?? 0) >= MAX_IN_FLIGHT_PER_HOST) continue;
      if (!(await this.claim(delivery, now))) continue;
      this.track(host, this.attempt(delivery));
    }
  }

  /** Takes a delivery for this instance; false if another instance got it first. */
  private async claim(delivery: WebhookDelivery, now: Date): Promise<boolean> {
    const claimed = await this.options.db.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'pending', OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }] },
      // Counted before sending: a crash mid-attempt uses the attempt up, so nothing retries forever.
      data: { lockedUntil: new Date(now.getTime() + LEASE_MS), attemptCount: { increment: 1 } },
    });
    return claimed.count === 1;
  }

  private track(host: string, attempt: Promise<void>): void {
    this.inFlight.set(host, (this.inFlight.get(host) ?? 0) + 1);
    this.inFlightTotal += 1;
    const tracked = attempt.finally(() => {
      this.inFlight.set(host, (this.inFlight.get(host) ?? 1) - 1);
      this.inFlightTotal -= 1;
      this.attempts.delete(tracked);
      this.wake();
    });
    this.attempts.add(tracked);
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const outcome = await attemptDelivery({
      url: delivery.url,
      body: delivery.body,
      allowPrivate: this.options.allowPrivateTargets,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Webhook-Signature': delivery.signature,
        'X-Webhook-Event': delivery.event,
        'X-Webhook-Delivery': delivery.id,
        // When the event was written (the signed body's `timestamp` is the exact event time):
        // receivers reject deliveries far older than their tolerance, and dedupe by delivery_id.
        'X-Webhook-Timestamp': String(Math.floor(delivery.createdAt.getTime() / 1000)),
      },
    });
    try {
      await this.record(delivery, outcome);
    } catch (error) {
      this.options.logger.error({ err: error, delivery_id: delivery.id }, 'recording a webhook attempt failed; the lease will expire and it is retried');
    }
  }

  private async record(delivery: WebhookDelivery, outcome: AttemptOutcome): Promise<void> {
    const { db, clock, retryDelaysMs } = this.options;
    const now = clock.now();
    const attemptNumber = delivery.attemptCount + 1;
    const responded = outcome.kind === 'network-error' ? {} : { respondedAttempts: { increment: 1 }, responseMsTotal: { increment: outcome.durationMs } };
    const common = {
      lockedUntil: null,
      lastResponseMs: outcome.durationMs,
      lastStatusCode: outcome.kind === 'network-error' ? null : outcome.statusCode,
      lastError: outcomeError(outcome),
      ...responded,
    };
    if (outcome.kind === 'success') {
      await db.webhookDelivery.update({ where: { id: delivery.id }, data: { ...common, status: 'success', completedAt: now } });
      if (delivery.subscriptionId) await db.webhookSubscription.updateMany({ where: { id: delivery.subscriptionId }, data: { consecutiveFailures: 0 } });
      return;
    }
    const delay = retryDelaysMs[attemptNumber - 1];
    if (delay !== undefined) {
      const jitter = (this.options.jitterMs ?? (() => Math.floor(Math.random() * 1000)))();
      await db.webhookDelivery.update({ where: { id: delivery.id }, data: { ...common, nextAttemptAt: new Date(now.getTime() + delay + jitter) } });
      return;
    }
    await db.webhookDelivery.update({ where: { id: delivery.id }, data: { ...common, status: 'failed', completedAt: now } });
    if (delivery.subscriptionId) await this.countFailure(delivery.subscriptionId, now);
  }

  /** One more delivery failed for good; the tenth in a row disables the subscription. */
  private async countFailure(subscriptionId: string, now: Date): Promise<void> {
    const { db, logger } = this.options;
    const subscription = await db.webhookSubscription.update({
      where: { id: subscriptionId },
      data: { consecutiveFailures: { increment: 1 } },
    });
    if (!subscription.isActive || subscription.consecutiveFailures < AUTO_DISABLE_AFTER) return;
    await db.webhookSubscription.update({ where: { id: subscriptionId }, data: { isActive: false, disabledAt: now } });
    await db.webhookDelivery.updateMany({
      where: { subscriptionId, status: 'pending' },
      data: { status: 'failed', lastError: 'subscription_disabled', completedAt: now, lockedUntil: null },
    });
    logger.warn({ subscription_id: subscriptionId }, 'webhook subscription disabled after consecutive failures');
    this.onDisabled?.(subscription.organizationId);
  }

  /** Called when a subscription was disabled (its organization's cache must be dropped). */
  onDisabled?: (organizationId: string) => void;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function outcomeError(outcome: AttemptOutcome): string | null {
  switch (outcome.kind) {
    case 'success':
      return null;
    case 'http-error':
      return `HTTP ${outcome.statusCode}`;
    case 'network-error':
      return outcome.error;
  }
}
