import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Organization } from '../organizations/organizationService.js';
import type { Plan } from '../organizations/plans.js';
import type { Db } from '../store/database.js';
import type { OrganizationSerializer } from './organizationSerializer.js';
import { periodKeyOf, periodResetAt } from './periods.js';
import { limitOf, periodOf, QUOTA_TYPES, UNLIMITED, type GaugeQuota, type PeriodicQuota, type QuotaType } from './quotaTypes.js';
import type { UsageStore } from './usageStore.js';
import type { UsageGauges } from './usageGauges.js';

/** Usage from which an entry carries a soft warning, before the hard block at 100 %. */
const WARNING_PERCENT = 80;

/** One quota as `GET /quota` lists it (docs/quotas-and-rate-limits.md). */
export interface QuotaEntry {
  type: QuotaType;
  current: number;
  limit: number;
  remaining: number;
  percent: number;
  isUnlimited: boolean;
  resetAt?: string;
  warning?: string;
}

export interface QuotaReport {
  plan: Plan;
  quotas: QuotaEntry[];
  overallUsagePercent: number;
  recommendation: 'ok' | 'monitor' | 'upgrade';
}

export interface QuotaServiceDependencies {
  db: Db;
  /** Serializes an organization's check-then-create steps (gauge quotas). */
  serializer: OrganizationSerializer;
  clock: Clock;
  usage: UsageStore;
  gauges: UsageGauges;
  /** Where a client is sent to raise its limits (402/403 bodies); known once the server listens. */
  upgradeUrl: () => string;
}

/**
 * Plans and quotas: what each organization may use, what it has used, and the one place
 * that refuses an operation over its plan (402 when a limit is used up, 403 when the plan
 * lacks the feature). Periodic counters reset with the UTC day or month of the injected clock.
 */
export class QuotaService {
  constructor(private readonly deps: QuotaServiceDependencies) {}

  /** Counts `amount` uses of a periodic quota, or refuses them all if that would pass the limit. */
  async consume(organization: Pick<Organization, 'id' | 'plan'>, type: PeriodicQuota, amount = 1): Promise<void> {
    const limit = this.refuseIfLacking(organization.plan, type);
    const period = this.currentPeriod(type);
    const total = await this.deps.usage.consume(organization.id, type, period, amount, limit);
    if (total !== null) return;
    const current = (await this.deps.usage.read(organization.id, [{ quotaType: type, period }])).get(type) ?? 0;
    throw errors.quotaExceeded({ quotaType: type, current, limit, upgradeUrl: this.deps.upgradeUrl() });
  }

  /** `consume` for an organization known by id (background work: agents, deliveries). */
  async consumeFor(organizationId: string, type: PeriodicQuota, amount = 1): Promise<void> {
    const organization = await this.organization(organizationId);
    if (!organization) throw errors.notFound('Organization');
    await this.consume(organization, type, amount);
  }

  /**
   * Counts up to `amount` uses of a periodic quota and returns how many fit (all or none
   * when they fit together; otherwise what remains). For fan-outs such as one event's
   * webhook deliveries, where the ones past the limit are recorded as refused.
   */
  async consumeUpTo(organizationId: string, type: PeriodicQuota, amount: number): Promise<number> {
    const organization = await this.organization(organizationId);
    if (!organization || limitOf(organization.plan, type) === 0) return 0;
    try {
      await this.consume(organization, type, amount);
      return amount;
    } catch {
      const { current, limit } = await this.entries(organization, [type]).then(([entry]) => entry!);
      const remaining = Math.max(0, Math.min(amount, limit - current));
      if (remaining === 0) return 0;
      return this.consume(organization, type, remaining).then(
        () => remaining,
        () => 0,
      );
    }
  }

  /** Counts uses that already happened (no refusal); `exhausted` once the period's limit is reached. */
  async recordUsage(organizationId: string, type: PeriodicQuota, amount: number): Promise<{ exhausted: boolean; period: string }> {
    const period = this.currentPeriod(type);
    const total = await this.deps.usage.add(organizationId, type, period, amount);
    const organization = await this.organization(organizationId);
    const limit = organization ? limitOf(organization.plan, type) : UNLIMITED;
    return { exhausted: limit !== UNLIMITED && total >= limit, period };
  }

  /** The key of the period a periodic quota counts in now. */
  currentPeriod(type: PeriodicQuota): string {
    return periodKeyOf(type, this.deps.clock.now());
  }

  /** Runs `create` only if the organization has room for one more active board. */
  withRoomForBoard<T>(organizationId: string, create: (tx: Db) => Promise<T>): Promise<T> {
    return this.withRoomFor(organizationId, 'boards', (tx) => this.deps.gauges.activeBoards(tx, organizationId, this.deps.clock.now()), create);
  }

  /** Runs `create` only if the organization has room for one more object type. */
  withRoomForObjectType<T>(organizationId: string, create: (tx: Db) => Promise<T>): Promise<T> {
    return this.withRoomFor(organizationId, 'object_types', (tx) => this.deps.gauges.objectTypes(tx, organizationId), create);
  }

  /**
   * Runs `create` only if `bytes` more fit both the component storage and the organization's
   * storage (boards and components together), serialized with the organization's other steps.
   */
  withRoomForComponent<T>(organizationId: string, bytes: number, create: (tx: Db) => Promise<T>): Promise<T> {
    return this.deps.serializer.run(organizationId, async (db, plan) => {
      if (!plan) throw errors.notFound('Organization');
      const components = await this.deps.gauges.componentBytes(db, organizationId);
      this.assertRoom(plan as Plan, 'storage_component', components, bytes);
      const boards = await this.deps.gauges.boardBytes(organizationId);
      this.assertRoom(plan as Plan, 'storage_org', boards + components, bytes);
      return create(db);
    });
  }

  private async organization(id: string): Promise<Organization | null> {
    const row = await this.deps.db.organization.findUnique({ where: { id } });
    return row ? { id: row.id, name: row.name, plan: row.plan as Plan } : null;
  }

  /** Participants per board on `plan` (null: no limit); throws if the plan has none. */
  participantLimit(plan: Plan): number | null {
    const limit = this.refuseIfLacking(plan, 'participants');
    return limit === UNLIMITED ? null : limit;
  }

  /** Throws unless `adding` more fit in a gauge quota now at `current`. */
  assertRoom(plan: Plan, type: GaugeQuota, current: number, adding = 1): void {
    const limit = this.refuseIfLacking(plan, type);
    if (limit !== UNLIMITED && current + adding > limit) {
      throw errors.quotaExceeded({ quotaType: type, current, limit, upgradeUrl: this.deps.upgradeUrl() });
    }
  }

  /**
   * Runs `create` only if the organization has room for one more of `type`, measured by
   * `count` right before it, with the organization's other such steps serialized (on any
   * instance): 50 creations at once against a limit of 10 leave exactly 10.
   */
  private withRoomFor<T>(organizationId: string, type: GaugeQuota, count: (db: Db) => Promise<number>, create: (db: Db) => Promise<T>): Promise<T> {
    return this.deps.serializer.run(organizationId, async (db, plan) => {
      if (!plan) throw errors.notFound('Organization');
      // Only a limited quota is counted: without a limit the count decided nothing, and it grew
      // with every board an organization kept.
      if (this.refuseIfLacking(plan as Plan, type) !== UNLIMITED) this.assertRoom(plan as Plan, type, await count(db));
      return create(db);
    });
  }

  /** `GET /quota`: every quota of the organization, with the overall picture. */
  async report(organization: Organization): Promise<QuotaReport> {
    const now = this.deps.clock.now();
    // Every quota in one statement; `entries` reads the same numbers a quota at a time.
    const usage = await this.deps.gauges.measureAll(organization.id, now);
    const quotas = QUOTA_TYPES.map((type) => entryAt(organization.plan, type, usage.get(type) ?? 0, now));
    const limited = quotas.filter((entry) => !entry.isUnlimited && entry.limit > 0);
    const overall = limited.length === 0 ? 0 : limited.reduce((sum, entry) => sum + entry.percent, 0) / limited.length;
    const highest = Math.max(0, ...limited.map((entry) => entry.percent));
    return {
      plan: organization.plan,
      quotas,
      overallUsagePercent: Math.round(overall * 10) / 10,
      recommendation: highest >= 90 ? 'upgrade' : highest >= 70 ? 'monitor' : 'ok',
    };
  }

  /** `GET /quota/<type>`: whether one more use is allowed now. */
  async check(organization: Organization, type: QuotaType) {
    const [entry] = await this.entries(organization, [type]);
    const { current, limit, remaining, warning } = entry!;
    return { type, allowed: limit === UNLIMITED || current < limit, current, limit, remaining, warning: warning ?? null };
  }

  private async entries(organization: Organization, types: QuotaType[]): Promise<QuotaEntry[]> {
    const now = this.deps.clock.now();
    const periodic = types.filter((type): type is PeriodicQuota => periodOf(type) !== 'none');
    const counters = await this.deps.usage.read(
      organization.id,
      periodic.map((type) => ({ quotaType: type, period: periodKeyOf(type, now) })),
    );
    const measured = await this.deps.gauges.measure(organization.id, types.filter((type) => periodOf(type) === 'none') as GaugeQuota[], now);
    return types.map((type) => entryAt(organization.plan, type, (periodOf(type) === 'none' ? measured.get(type as GaugeQuota) : counters.get(type)) ?? 0, now));
  }

  /** Throws 403 if the plan does not include `type` at all (limit "none"). */
  assertIncluded(plan: Plan, type: QuotaType): void {
    this.refuseIfLacking(plan, type);
  }

  private refuseIfLacking(plan: Plan, type: QuotaType): number {
    const limit = limitOf(plan, type);
    if (limit === 0) throw errors.planLacksFeature({ quotaType: type, plan, upgradeUrl: this.deps.upgradeUrl() });
    return limit;
  }
}

/** The entry of `type` at usage `current` on `plan`, `now` deciding when a periodic quota resets. */
function entryAt(plan: Plan, type: QuotaType, current: number, now: Date): QuotaEntry {
  const period = periodOf(type);
  return entryOf(type, current, limitOf(plan, type), plan, period === 'none' ? null : periodResetAt(period, now));
}

function entryOf(type: QuotaType, current: number, limit: number, plan: Plan, resetAt: Date | null): QuotaEntry {
  const isUnlimited = limit === UNLIMITED;
  // One decimal, never rounded up: 89.95 % is still below the 90 % "upgrade" line.
  const percent = isUnlimited ? 0 : limit === 0 ? 100 : Math.min(100, Math.floor((current / limit) * 1000) / 10);
  const entry: QuotaEntry = {
    type,
    current,
    limit,
    remaining: isUnlimited ? UNLIMITED : Math.max(0, limit - current),
    percent,
    isUnlimited,
    ...(resetAt ? { resetAt: resetAt.toISOString() } : {}),
  };
  const warning = warningOf(type, current, limit, percent, plan);
  return warning ? { ...entry, warning } : entry;
}

function warningOf(type: QuotaType, current: number, limit: number, percent: number, plan: Plan): string | undefined {
  if (limit === UNLIMITED || percent < WARNING_PERCENT) return undefined;
  if (limit === 0) return `${type} is not included in the ${plan} plan`;
  if (current >= limit) return `${type} limit reached (${current} of ${limit}); further use is blocked`;
  return `${type} is at ${percent}% of its limit (${current} of ${limit})`;
}
