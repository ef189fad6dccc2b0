import type { Plan } from '../organizations/plans.js';

/** Every quota type (docs/quotas-and-rate-limits.md), in the order `GET /quota` lists them. */
export const QUOTA_TYPES = [
  'boards',
  'participants',
  'object_types',
  'storage_org',
  'storage_board',
  'storage_component',
  'api_calls_daily',
  'webhooks_daily',
  'websocket_messages_daily',
  'file_uploads_daily',
  'exports_monthly',
  'ai_requests_monthly',
  'cdn_bandwidth_monthly',
] as const;

export type QuotaType = (typeof QUOTA_TYPES)[number];

/** Metered over a period (a counter that starts again each period). */
export type PeriodicQuota = Extract<QuotaType, `${string}_daily` | `${string}_monthly`>;

/** A quota that measures what exists now (boards, types, storage) rather than a period's count. */
export type GaugeQuota = Exclude<QuotaType, PeriodicQuota>;

/** How a quota's `current` comes about: counted per period, or measured from what exists now. */
export type QuotaPeriod = 'daily' | 'monthly' | 'none';

export function isQuotaType(value: string): value is QuotaType {
  return (QUOTA_TYPES as readonly string[]).includes(value);
}

export function periodOf(type: QuotaType): QuotaPeriod {
  if (type.endsWith('_daily')) return 'daily';
  if (type.endsWith('_monthly')) return 'monthly';
  return 'none';
}

/** Unlimited. */
export const UNLIMITED = -1;

const MB = 1_048_576;
const GB = 1_024 * MB;

/**
 * What each plan allows (docs/quotas-and-rate-limits.md; -1 = unlimited, 0 = the plan lacks the
 * feature). Some rows are our own decision (docs/decisions/quotas-and-limits/plan-values-left-open.md);
 * enterprise's "custom" storage is unlimited unless an operator sets a plan of its own.
 */
export const PLAN_LIMITS: Record<Plan, Record<QuotaType, number>> = {
  starter: {
    boards: 10,
    participants: 25,
    object_types: 5,
    storage_org: 1 * GB,
    storage_board: 50 * MB,
    storage_component: 50 * MB,
    api_calls_daily: 1_000,
    webhooks_daily: 0,
    websocket_messages_daily: 100_000,
    file_uploads_daily: 20,
    exports_monthly: 10,
    ai_requests_monthly: 0,
    cdn_bandwidth_monthly: 1 * GB,
  },
  professional: {
    boards: 100,
    participants: 100,
    object_types: 50,
    storage_org: 10 * GB,
    storage_board: 200 * MB,
    storage_component: 500 * MB,
    api_calls_daily: 10_000,
    webhooks_daily: 1_000,
    websocket_messages_daily: 1_000_000,
    file_uploads_daily: 200,
    exports_monthly: 100,
    ai_requests_monthly: 50,
    cdn_bandwidth_monthly: 10 * GB,
  },
  business: {
    boards: 500,
    participants: 250,
    object_types: 200,
    storage_org: 100 * GB,
    storage_board: 1 * GB,
    storage_component: 5 * GB,
    api_calls_daily: 100_000,
    webhooks_daily: 10_000,
    websocket_messages_daily: 10_000_000,
    file_uploads_daily: 2_000,
    exports_monthly: 1_000,
    ai_requests_monthly: 200,
    cdn_bandwidth_monthly: 100 * GB,
  },
  enterprise: {
    boards: UNLIMITED,
    participants: UNLIMITED,
    object_types: UNLIMITED,
    storage_org: UNLIMITED,
    storage_board: UNLIMITED,
    storage_component: UNLIMITED,
    api_calls_daily: UNLIMITED,
    webhooks_daily: UNLIMITED,
    websocket_messages_daily: UNLIMITED,
    file_uploads_daily: UNLIMITED,
    exports_monthly: UNLIMITED,
    ai_requests_monthly: 1_000,
    cdn_bandwidth_monthly: UNLIMITED,
  },
};

export function limitOf(plan: Plan, type: QuotaType): number {
  return PLAN_LIMITS[plan][type];
}
