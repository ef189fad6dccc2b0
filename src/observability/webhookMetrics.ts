import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { DeliveryAttemptObserver } from '../webhooks/dispatcher.js';
import type { AttemptOutcome } from '../webhooks/sender.js';

/** Attempts time out at 10 s (webhooks/sender.ts); most answer within a few hundred milliseconds. */
const ATTEMPT_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Webhook delivery metrics: attempts (duration by outcome) as they end, and the outbox's
 * backlog read from the delivery log at each scrape. The backlog is the deployment's, not
 * this instance's: every instance reports the same figure.
 */
export function webhookMetrics(registry: Registry, pendingDeliveries: () => Promise<number>, logger: Logger): DeliveryAttemptObserver {
  let lastPending = 0;
  new Gauge({
    name: 'whiteboard_webhook_deliveries_pending',
    help: 'Webhook deliveries waiting in the outbox (due, in flight or waiting for a retry), across all instances.',
    registers: [registry],
    async collect() {
      try {
        lastPending = await pendingDeliveries();
      } catch (error) {
        // A scrape must not fail with the database: the last figure stands, and /ready reports the database.
        logger.warn({ err: error }, 'webhook backlog could not be read for metrics');
      }
      this.set(lastPending);
    },
  });
  const attempts = new Histogram({
    name: 'whiteboard_webhook_attempt_seconds',
    help: 'Duration of webhook delivery attempts, by outcome (success, http_error, network_error).',
    labelNames: ['outcome'],
    buckets: ATTEMPT_BUCKETS_S,
    registers: [registry],
  });
  for (const outcome of ['success', 'http_error', 'network_error']) attempts.zero({ outcome });
  const byOutcome: Record<AttemptOutcome['kind'], { observe(seconds: number): void }> = {
    success: attempts.labels('success'),
    'http-error': attempts.labels('http_error'),
    'network-error': attempts.labels('network_error'),
  };
  return {
    attemptFinished: (outcome, durationMs) => byOutcome[outcome].observe(durationMs / 1000),
  };
}
