import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../store/database.js';
import type { RecordedAttempt } from '../store/deliveryLog.js';

/** Consecutive failed deliveries after which a subscription is disabled; any success resets the count. */
export const AUTO_DISABLE_AFTER = 10;

export interface SubscriptionHealthDependencies {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Called when a subscription was disabled for failing (its organization's cache must be dropped). */
  onDisabled(organizationId: string): void;
}

/** The columns of a subscription that a change of `is_active` sets. */
export interface ActivationChange {
  isActive?: boolean;
  consecutiveFailures?: number;
  disabledAt?: Date | null;
}

/**
 * The one rule of a subscription's health. A delivery that fails for good (after its last
 * retry) counts; `AUTO_DISABLE_AFTER` of them in a row disable the subscription. Any
 * successful delivery ends the run, and so does re-enabling it. A disabled subscription,
 * whoever disabled it, sends nothing more, not even what was waiting.
 */
export class SubscriptionHealth {
  constructor(private readonly deps: SubscriptionHealthDependencies) {}

  /**
   * The subscriptions whose run of failures these outcomes end: those with a success among
   * them. The delivery log resets their counts in the transaction that records the outcomes.
   */
  recoveredBy(attempts: RecordedAttempt[]): string[] {
    return [...new Set(attempts.flatMap((a) => (a.next.status === 'success' && a.subscriptionId ? [a.subscriptionId] : [])))];
  }

  /** An attempt's outcome was recorded: a delivery given up counts toward disabling its subscription. */
  async outcomeRecorded({ subscriptionId, next }: RecordedAttempt): Promise<void> {
    if (next.status === 'failed' && subscriptionId) await this.countFailure(subscriptionId, next.at);
  }

  /** What a PATCH of `is_active` sets: re-enabling starts a fresh count, disabling stamps when. */
  activationChange(current: { isActive: boolean }, isActive: boolean | undefined): ActivationChange {
    if (isActive === undefined) return {};
    if (isActive && !current.isActive) return { isActive, consecutiveFailures: 0, disabledAt: null };
    if (!isActive && current.isActive) return { isActive, disabledAt: this.deps.clock.now() };
    return { isActive };
  }

  /** After `activationChange` was written: a subscription just disabled (stamped) gives up what was waiting for it. */
  async activationChanged(subscriptionId: string, change: ActivationChange): Promise<void> {
    if (change.disabledAt) await this.failPending(subscriptionId, this.deps.clock.now());
  }

  /** One more delivery failed for good; the `AUTO_DISABLE_AFTER`-th in a row disables the subscription. */
  private async countFailure(subscriptionId: string, now: Date): Promise<void> {
    const { db, logger } = this.deps;
    const subscription = await db.webhookSubscription.update({
      where: { id: subscriptionId },
      data: { consecutiveFailures: { increment: 1 } },
    });
    if (!subscription.isActive || subscription.consecutiveFailures < AUTO_DISABLE_AFTER) return;
    await db.webhookSubscription.update({ where: { id: subscriptionId }, data: { isActive: false, disabledAt: now } });
    await this.failPending(subscriptionId, now);
    logger.warn({ subscription_id: subscriptionId }, 'webhook subscription disabled after consecutive failures');
    this.deps.onDisabled(subscription.organizationId);
  }

  private async failPending(subscriptionId: string, now: Date): Promise<void> {
    await this.deps.db.webhookDelivery.updateMany({
      where: { subscriptionId, status: 'pending' },
      data: { status: 'failed', lastError: 'subscription_disabled', completedAt: now, lockedUntil: null },
    });
  }
}
