import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { AppError, ERROR_KINDS } from '../../src/errors.js';
import type { Plan } from '../../src/organizations/plans.js';
import { PLAN_LIMITS, type PeriodicQuota } from '../../src/quotas/quotaTypes.js';
import { serverForSuite } from '../helpers/fixtures.js';

/**
 * The counted quotas no feature consumes yet (AI requests, file uploads, exports, CDN
 * bandwidth), exercised through the quota service as a feature would, and read back through
 * `GET /quota`. The shared clock only moves forward: each test sets the instants it needs.
 */
const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
const { server } = serverForSuite({ clock });

async function organization(plan: Plan) {
  const { apiKey, organizationId } = await server.newOrganization(plan);
  const entry = async (type: string) => {
    const read = await server.api('GET', '/quota', undefined, { 'x-api-key': apiKey });
    expect(read.status).toBe(200);
    return read.body.quotas.find((candidate: { type: string }) => candidate.type === type) as {
      current: number;
      limit: number;
      remaining: number;
      resetAt?: string;
    };
  };
  return { id: organizationId, plan, apiKey, entry };
}

/** The refusal `consume` throws, as the HTTP edge would render it: status and extra body fields. */
async function refusal(consuming: Promise<unknown>): Promise<{ statusCode: number; error: string; extra: Record<string, unknown> }> {
  const error = await consuming.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  return { ...ERROR_KINDS[appError.kind], extra: appError.extra ?? {} };
}

const COUNTED: Array<{ type: PeriodicQuota; period: 'daily' | 'monthly' }> = [
  { type: 'ai_requests_monthly', period: 'monthly' },
  { type: 'file_uploads_daily', period: 'daily' },
  { type: 'exports_monthly', period: 'monthly' },
  { type: 'cdn_bandwidth_monthly', period: 'monthly' },
];

describe('counted quotas without a feature yet', () => {
  it('refuses AI requests with 403 on the starter plan, which has none', async () => {
    const org = await organization('starter');
    const refused = await refusal(server.app.quotas.consume(org, 'ai_requests_monthly'));
    expect(refused.statusCode).toBe(403);
    expect(refused.error).toBe('Forbidden');
    expect(refused.extra).toMatchObject({ quotaType: 'ai_requests_monthly', current: 0, limit: 0 });
    expect(new URL(refused.extra.upgradeUrl as string).protocol).toMatch(/^https?:$/);
    expect(await org.entry('ai_requests_monthly')).toMatchObject({ current: 0, limit: 0 });
  });

  it.each(COUNTED)('counts $type up to the professional limit and refuses past it with 402, counting nothing', async ({ type }) => {
    const org = await organization('professional');
    const limit = PLAN_LIMITS.professional[type];
    await server.app.quotas.consume(org, type, limit - 1);
    expect(await org.entry(type)).toMatchObject({ current: limit - 1, limit, remaining: 1 });

    // More than remains is refused as a whole.
    const tooMany = await refusal(server.app.quotas.consume(org, type, 2));
    expect(tooMany.statusCode).toBe(402);
    expect(tooMany.error).toBe('Payment Required');
    expect(tooMany.extra).toMatchObject({ quotaType: type, current: limit - 1, limit });
    expect(new URL(tooMany.extra.upgradeUrl as string).protocol).toMatch(/^https?:$/);

    await server.app.quotas.consume(org, type);
    const full = await refusal(server.app.quotas.consume(org, type));
    expect(full.statusCode).toBe(402);
    expect(full.extra).toMatchObject({ quotaType: type, current: limit, limit });
    expect(await org.entry(type)).toMatchObject({ current: limit, limit, remaining: 0 });
  });

  it('lets exactly the remaining uses through when many consume at once', async () => {
    const org = await organization('professional');
    await server.app.quotas.consume(org, 'ai_requests_monthly', 40);
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => server.app.quotas.consume(org, 'ai_requests_monthly')));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
    expect(await org.entry('ai_requests_monthly')).toMatchObject({ current: 50, remaining: 0 });
  });

  it('starts file uploads again at midnight UTC, but monthly quotas only on the first of the month', async () => {
    clock.set(new Date('2026-03-20T23:59:59.999Z'));
    const org = await organization('professional');
    for (const { type } of COUNTED) await server.app.quotas.consume(org, type, PLAN_LIMITS.professional[type]);
    expect(await org.entry('file_uploads_daily')).toMatchObject({ resetAt: '2026-03-21T00:00:00.000Z' });

    clock.set(new Date('2026-03-21T00:00:00.000Z'));
    await server.app.quotas.consume(org, 'file_uploads_daily');
    expect(await org.entry('file_uploads_daily')).toMatchObject({ current: 1, resetAt: '2026-03-22T00:00:00.000Z' });
    for (const type of ['ai_requests_monthly', 'exports_monthly', 'cdn_bandwidth_monthly'] as const) {
      expect((await refusal(server.app.quotas.consume(org, type))).statusCode).toBe(402);
      expect(await org.entry(type)).toMatchObject({ current: PLAN_LIMITS.professional[type], resetAt: '2026-04-01T00:00:00.000Z' });
    }

    clock.set(new Date('2026-03-31T23:59:59.999Z'));
    expect((await refusal(server.app.quotas.consume(org, 'exports_monthly'))).statusCode).toBe(402);
    clock.set(new Date('2026-04-01T00:00:00.000Z'));
    for (const { type, period } of COUNTED) {
      expect(await org.entry(type)).toMatchObject({ current: 0, resetAt: period === 'daily' ? '2026-04-02T00:00:00.000Z' : '2026-05-01T00:00:00.000Z' });
      await server.app.quotas.consume(org, type);
      expect((await org.entry(type)).current).toBe(1);
    }
  });

  it('rolls monthly quotas over from December 31 to January 1 (R11)', async () => {
    clock.set(new Date('2026-12-31T23:59:59.999Z'));
    const org = await organization('business');
    await server.app.quotas.consume(org, 'ai_requests_monthly', 200);
    expect((await refusal(server.app.quotas.consume(org, 'ai_requests_monthly'))).statusCode).toBe(402);
    expect(await org.entry('ai_requests_monthly')).toMatchObject({ current: 200, resetAt: '2027-01-01T00:00:00.000Z' });

    clock.set(new Date('2027-01-01T00:00:00.000Z'));
    expect(await org.entry('ai_requests_monthly')).toMatchObject({ current: 0, limit: 200, resetAt: '2027-02-01T00:00:00.000Z' });
    await server.app.quotas.consume(org, 'ai_requests_monthly', 200);
    expect(await org.entry('ai_requests_monthly')).toMatchObject({ current: 200, remaining: 0 });
  });

  it('shows storage_component (nothing stores components yet) at 0 with the plan limit and no resetAt', async () => {
    for (const plan of ['starter', 'professional', 'business', 'enterprise'] as const) {
      const org = await organization(plan);
      const entry = await org.entry('storage_component');
      expect(entry).toMatchObject({ current: 0, limit: PLAN_LIMITS[plan].storage_component });
      expect(entry).not.toHaveProperty('resetAt');
    }
  });
});
