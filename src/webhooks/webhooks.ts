import type { BoardWebhookKeys } from '../boards/boardService.js';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { Plan } from '../organizations/plans.js';
import type { Db } from '../store/database.js';
import type { DeliveryLog } from '../store/deliveryLog.js';
import { WebhookDispatcher, type DeliveryAttemptObserver } from './dispatcher.js';
import { webhookUrlProblem } from './egress.js';
import { WebhookOutbox } from './outbox.js';
import { generateSigningSecret, SecretBox } from './secretBox.js';
import { SubscriptionHealth } from './subscriptionHealth.js';
import { SubscriptionService } from './subscriptionService.js';

export interface WebhooksOptions {
  db: Db;
  deliveryLog: DeliveryLog;
  clock: Clock;
  bus: EventBus;
  logger: Logger;
  /** Server secret the signing secrets are encrypted with. */
  serverSecret: string;
  allowPrivateTargets: boolean;
  retryDelaysMs: number[];
  /** The `webhooks_daily` quota. */
  quotas: WebhookQuota;
  /** Told when an organization's subscriptions change here (other instances drop theirs). */
  onSubscriptionsChanged?: (organizationId: string) => void;
  /** Told of every delivery attempt (metrics). */
  attempts?: DeliveryAttemptObserver;
}

/** What webhooks need from quotas: plans without deliveries may not subscribe; deliveries are counted per day. */
export interface WebhookQuota {
  assertIncluded(plan: Plan, type: 'webhooks_daily'): void;
  consumeUpTo(organizationId: string, type: 'webhooks_daily', count: number): Promise<number>;
}

/** The webhook side assembled: subscriptions, the outbox on the bus, and the dispatcher. */
export interface Webhooks {
  subscriptions: SubscriptionService;
  dispatcher: WebhookDispatcher;
  boardKeys: BoardWebhookKeys;
  /** A board's settings or existence changed: its cached webhook target is dropped. */
  boardChanged(boardId: string): void;
  /** An organization's subscriptions changed (on another instance): the cached ones are dropped. */
  subscriptionsChanged(organizationId: string): void;
  /** Drops every cached subscription and board target. */
  forgetCached(): void;
  start(): void;
  stop(): Promise<void>;
}

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const logger = options.logger.child({ component: 'webhooks' });
  const subscriptionsChanged = (organizationId: string) => {
    outbox.subscriptionsChanged(organizationId);
    options.onSubscriptionsChanged?.(organizationId);
  };
  const secrets = new SecretBox(options.serverSecret);
  // Its calls come once deliveries run (after start()), when the outbox below exists.
  const health = new SubscriptionHealth({
    db: options.db,
    clock: options.clock,
    logger,
    onDisabled: subscriptionsChanged,
  });
  const dispatcher = new WebhookDispatcher({
    deliveryLog: options.deliveryLog,
    health,
    clock: options.clock,
    logger,
    retryDelaysMs: options.retryDelaysMs,
    allowPrivateTargets: options.allowPrivateTargets,
    observer: options.attempts,
  });
  const outbox = new WebhookOutbox({
    db: options.db,
    deliveryLog: options.deliveryLog,
    clock: options.clock,
    secrets,
    logger,
    wake: (urls) => dispatcher.deliveriesAdded(urls),
    quotas: options.quotas,
  });
  const subscriptions = new SubscriptionService({
    db: options.db,
    clock: options.clock,
    secrets,
    health,
    allowPrivateTargets: options.allowPrivateTargets,
    onChange: subscriptionsChanged,
    quotas: options.quotas,
  });
  let unsubscribe: (() => void) | null = null;
  return {
    subscriptions,
    dispatcher,
    boardKeys: boardWebhookKeys(secrets, outbox, options.allowPrivateTargets),
    boardChanged: (boardId) => outbox.boardChanged(boardId),
    subscriptionsChanged: (organizationId) => outbox.subscriptionsChanged(organizationId),
    forgetCached: () => outbox.forgetAll(),
    start() {
      unsubscribe = options.bus.subscribe(outbox.onEvent, outbox.wants);
      dispatcher.start();
    },
    async stop() {
      unsubscribe?.();
      await dispatcher.stop();
    },
  };
}

/** A board's own webhook: its signing secret, its target URL's check, and the outbox's cache of it. */
function boardWebhookKeys(secrets: SecretBox, outbox: WebhookOutbox, allowPrivateTargets: boolean): BoardWebhookKeys {
  return {
    newSecret() {
      const secret = generateSigningSecret();
      return { secret, sealed: secrets.seal(secret) };
    },
    urlProblem: (url) => webhookUrlProblem(url, allowPrivateTargets),
    boardCreated: (boardId, target) => outbox.boardCreated(boardId, target),
  };
}
