import { PLANS } from '../../../organizations/plans.js';
import { QUOTA_TYPES } from '../../../quotas/quotaTypes.js';
import { DELIVERY_STATUSES } from '../../../webhooks/schemas.js';
import { schemaRef, type JsonSchema } from '../jsonSchema.js';
import { anyObject, count, flag, isoTime, listOf, nullable, oneOfValues, record, text } from './common.js';

/**
 * Response bodies of the organization-wide endpoints: admin, users, organizations, quota
 * (quotas/quotaService.ts), webhooks (webhooks/subscriptionService.ts) and object types
 * (objectTypes/objectTypeService.ts `presentObjectType`).
 */

const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const plan = oneOfValues(PLANS);
const quotaType = oneOfValues(QUOTA_TYPES);
/** -1 means unlimited. */
const quotaNumber: JsonSchema = { type: 'number', minimum: -1 };

const organizationFields = { id: text, name: text, plan };
const subscriptionFields = {
  id: uuid,
  url: text,
  events: listOf(text),
  description: nullable(text),
  secret_hint: { ...text, description: 'A shortened prefix of the secret.' },
  is_active: flag,
  consecutive_failures: count,
  disabled_at: nullable(isoTime),
  created_at: isoTime,
  updated_at: isoTime,
};

export const ACCOUNT_SCHEMAS: Record<string, JsonSchema> = {
  Organization: record(organizationFields),
  OrganizationWithKey: record({ ...organizationFields, apiKey: { ...text, description: 'The new API key, shown once.' } }),
  OrganizationList: record({ organizations: listOf(schemaRef('Organization')) }),
  User: record({ id: text, email: { type: 'string', format: 'email' }, organizationId: text }),
  Tokens: record({
    accessToken: { ...text, description: 'A JWT for `Authorization: Bearer`.' },
    refresh_token: text,
    token_type: { const: 'Bearer' },
    expires_in: { ...count, description: "Seconds until the access token expires." },
  }),
  QuotaEntry: record(
    {
      type: quotaType,
      current: { type: 'number', minimum: 0 },
      limit: quotaNumber,
      remaining: quotaNumber,
      percent: { type: 'number', minimum: 0, maximum: 100 },
      isUnlimited: flag,
      resetAt: { ...isoTime, description: 'Periodic quotas only.' },
      warning: { ...text, description: 'From 80% usage.' },
    },
    ['type', 'current', 'limit', 'remaining', 'percent', 'isUnlimited'],
  ),
  QuotaReport: record({
    plan,
    quotas: listOf(schemaRef('QuotaEntry')),
    overallUsagePercent: { type: 'number', minimum: 0 },
    recommendation: oneOfValues(['ok', 'monitor', 'upgrade']),
  }),
  QuotaCheck: record({ type: quotaType, allowed: flag, current: { type: 'number', minimum: 0 }, limit: quotaNumber, remaining: quotaNumber, warning: nullable(text) }),
  WebhookSubscription: record(subscriptionFields),
  WebhookSubscriptionCreated: record({
    ...subscriptionFields,
    secret: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The signing secret, shown only here.' },
  }),
  WebhookDelivery: record({
    delivery_id: uuid,
    subscription_id: nullable(text),
    board_id: nullable(text),
    event: text,
    url: text,
    status: oneOfValues(DELIVERY_STATUSES),
    attempt_count: count,
    next_attempt_at: { ...nullable(isoTime), description: 'Pending deliveries only.' },
    last_status_code: nullable({ type: 'integer' }),
    last_error: nullable(text),
    last_response_time_ms: nullable({ type: 'number', minimum: 0 }),
    created_at: isoTime,
    completed_at: nullable(isoTime),
  }),
  WebhookStats: record({
    total: count,
    success: count,
    failed: count,
    pending: count,
    success_rate: { type: 'number', minimum: 0, maximum: 100, description: 'Percent of finished deliveries that succeeded.' },
    avg_response_time_ms: { type: 'number', minimum: 0 },
  }),
  ObjectType: record({ id: text, typeName: text, displayName: text, category: text, schema: anyObject, created_at: isoTime, updated_at: isoTime }),
};
