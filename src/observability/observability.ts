import type { RequestListener } from 'node:http';
import type { AgentRunObserver } from '../agents/runtime/agentRunner.js';
import type { Logger } from '../logger.js';
import type { RealtimeObservers } from '../realtime/realtime.js';
import type { DeliveryAttemptObserver } from '../webhooks/dispatcher.js';
import { agentMetrics } from './agentMetrics.js';
import { observeHttp } from './httpMetrics.js';
import { answerMetricsFirst } from './metricsEndpoint.js';
import { realtimeMetrics } from './realtimeMetrics.js';
import { AppRegistry } from './registry.js';
import type { RoutedApp } from './routePatterns.js';
import { webhookMetrics } from './webhookMetrics.js';

export interface ObservabilityOptions {
  /** `METRICS_TOKEN`: when set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** Webhook deliveries pending in the outbox (read at each scrape). */
  pendingDeliveries: () => Promise<number>;
  now: () => Date;
  logger: Logger;
}

/** One app's metrics: the observers its parts are given, and `GET /metrics`. */
export interface Observability {
  realtime: RealtimeObservers;
  webhookAttempts: DeliveryAttemptObserver;
  agentRuns: AgentRunObserver;
  /** Times every request the Express app answers (by method, route pattern, status). */
  observeHttp(app: RequestListener & RoutedApp): RequestListener;
  /** Answers `GET /metrics` before anything else; passes every other request on. */
  answerMetricsFirst(next: RequestListener): RequestListener;
}

/**
 * The metrics of one app, in a registry of its own (prom-client's global one is never used:
 * tests run several apps in one process). The domains and the realtime engine see only the
 * observer ports they declare; prom-client stays in this folder.
 */
export function createObservability(options: ObservabilityOptions): Observability {
  const registry = new AppRegistry();
  const { own } = registry;
  return {
    realtime: realtimeMetrics(own),
    webhookAttempts: webhookMetrics(own, options.pendingDeliveries, options.logger),
    agentRuns: agentMetrics(own),
    observeHttp: (app) => observeHttp(own, app),
    answerMetricsFirst: (next) =>
      answerMetricsFirst(
        {
          scrape: async () => ({ contentType: registry.contentType, text: await registry.exposition() }),
          token: options.metricsToken,
          now: options.now,
          logger: options.logger,
        },
        next,
      ),
  };
}
