import { randomUUID } from 'node:crypto';
import type { WebhookSubscription as SubscriptionRow } from '../../generated/sqlite/index.js';
import type { Clock } from '../clock.js';
import { errors, type FieldError } from '../errors.js';
import type { Organization } from '../organizations/organizationService.js';
import type { Plan } from '../organizations/plans.js';
import type { Db } from '../store/database.js';
import { webhookUrlProblem } from './egress.js';
import { isValidPattern } from './eventPatterns.js';
import type { CreateSubscriptionInput, DeliveryStatus, UpdateSubscriptionInput } from './schemas.js';
import { generateSigningSecret, secretHint, type SecretBox } from './secretBox.js';
import type { SubscriptionHealth } from './subscriptionHealth.js';

export interface SubscriptionServiceDependencies {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  /** Decides what a change of `is_active` does to the failure count and to waiting deliveries. */
  health: SubscriptionHealth;
  allowPrivateTargets: boolean;
  /** Called after any change, so caches of active subscriptions can drop the organization. */
  onChange(organizationId: string): void;
  /** The `webhooks_daily` quota: plans without webhook deliveries may not subscribe (403). */
  quotas: { assertIncluded(plan: Plan, type: 'webhooks_daily'): void };
}

/** A subscription as the API shows it (never its secret, except once at creation). */
export function presentSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    secret_hint: row.secretHint,
    is_active: row.isActive,
    consecutive_failures: row.consecutiveFailures,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Webhook subscriptions, their delivery log and statistics. */
export class SubscriptionService {
  constructor(private readonly deps: SubscriptionServiceDependencies) {}

  async create(organization: Pick<Organization, 'id' | 'plan'>, input: CreateSubscriptionInput) {
    const organizationId = organization.id;
    this.deps.quotas.assertIncluded(organization.plan, 'webhooks_daily');
    const events = input.events ?? ['*'];
    this.check(input.url, events);
    const secret = generateSigningSecret();
    const now = this.deps.clock.now();
    const row = await this.deps.db.webhookSubscription.create({
      data: {
        id: randomUUID(),
        organizationId,
        url: input.url,
        events: JSON.stringify(events),
        description: input.description ?? null,
        secret: this.deps.secrets.seal(secret),
        secretHint: secretHint(secret),
        isActive: true,
        createdAt: now,
        updatedAt: now,
      },
    });
    this.deps.onChange(organizationId);
    return { ...presentSubscription(row), secret };
  }

  async list(organizationId: string) {
    const rows = await this.deps.db.webhookSubscription.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(presentSubscription);
  }

  async get(organizationId: string, id: string) {
    return presentSubscription(await this.owned(organizationId, id));
  }

  /** Changes url, events or is_active (see SubscriptionHealth for what activation does). */
  async update(organizationId: string, id: string, input: UpdateSubscriptionInput) {
    const current = await this.owned(organizationId, id);
    this.check(input.url ?? current.url, input.events ?? (JSON.parse(current.events) as string[]));
    const activation = this.deps.health.activationChange(current, input.is_active);
    const row = await this.deps.db.webhookSubscription.update({
      where: { id: current.id },
      data: {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: JSON.stringify(input.events) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...activation,
        updatedAt: this.deps.clock.now(),
      },
    });
    await this.deps.health.activationChanged(current.id, activation);
    this.deps.onChange(organizationId);
    return presentSubscription(row);
  }

  async delete(organizationId: string, id: string): Promise<void> {
    const current = await this.owned(organizationId, id);
    await this.deps.db.webhookSubscription.delete({ where: { id: current.id } });
    this.deps.onChange(organizationId);
  }

  /** The delivery log, newest first. */
  async deliveries(organizationId: string, filter: { subscription_id?: string; status?: DeliveryStatus; limit: number }) {
    if (filter.subscription_id) await this.owned(organizationId, filter.subscription_id);
    const rows = await this.deps.db.webhookDelivery.findMany({
      where: {
        organizationId,
        ...(filter.subscription_id ? { subscriptionId: filter.subscription_id } : {}),
        ...(filter.status ? { status: filter.status } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map((row) => ({
      delivery_id: row.id,
      subscription_id: row.subscriptionId,
      board_id: row.boardId,
      event: row.event,
      url: row.url,
      status: row.status,
      attempt_count: row.attemptCount,
      next_attempt_at: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
      last_status_code: row.lastStatusCode,
      last_error: row.lastError,
      last_response_time_ms: row.lastResponseMs,
      created_at: row.createdAt.toISOString(),
      completed_at: row.completedAt?.toISOString() ?? null,
    }));
  }

  /** Totals per status, success rate (percent of finished deliveries) and mean response time. */
  async stats(organizationId: string, id: string) {
    const subscription = await this.owned(organizationId, id);
    const groups = await this.deps.db.webhookDelivery.groupBy({ by: ['status'], where: { subscriptionId: subscription.id }, _count: { _all: true } });
    const count = (status: DeliveryStatus) => groups.find((group) => group.status === status)?._count._all ?? 0;
    const timing = await this.deps.db.webhookDelivery.aggregate({
      where: { subscriptionId: subscription.id },
      _sum: { respondedAttempts: true, responseMsTotal: true },
    });
    const [success, failed, pending] = [count('success'), count('failed'), count('pending')];
    const responded = timing._sum.respondedAttempts ?? 0;
    return {
      total: success + failed + pending,
      success,
      failed,
      pending,
      success_rate: success + failed === 0 ? 0 : Math.round((10_000 * success) / (success + failed)) / 100,
      avg_response_time_ms: responded === 0 ? 0 : Math.round((timing._sum.responseMsTotal ?? 0) / responded),
    };
  }

  private async owned(organizationId: string, id: string): Promise<SubscriptionRow> {
    const row = await this.deps.db.webhookSubscription.findUnique({ where: { id } });
    if (!row) throw errors.notFound('Webhook subscription');
    if (row.organizationId !== organizationId) throw errors.forbidden('This subscription belongs to another organization');
    return row;
  }

  private check(url: string, events: string[]): void {
    const problems: FieldError[] = [];
    const urlProblem = webhookUrlProblem(url, this.deps.allowPrivateTargets);
    if (urlProblem) problems.push({ field: 'url', message: urlProblem });
    events.forEach((pattern, index) => {
      if (!isValidPattern(pattern)) problems.push({ field: `events.${index}`, message: `"${pattern}" is not a known event or pattern` });
    });
    if (problems.length > 0) throw errors.badRequest(problems.map((p) => `${p.field} ${p.message}`), problems);
  }
}
