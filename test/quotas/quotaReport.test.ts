import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PLANS, type Plan } from '../../src/organizations/plans.js';
import { PLAN_LIMITS } from '../../src/quotas/quotaTypes.js';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { request, type ApiResponse } from '../helpers/testServer.js';

/** The 13 quota types, in the order `GET /quota` lists them (docs/quotas-and-rate-limits.md). */
const QUOTA_TYPE_ORDER = [
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
];
const DAILY = ['api_calls_daily', 'webhooks_daily', 'websocket_messages_daily', 'file_uploads_daily'];
const MONTHLY = ['exports_monthly', 'ai_requests_monthly', 'cdn_bandwidth_monthly'];
const GB = 1_073_741_824;

/** The published plan values, written out here independently of PLAN_LIMITS (-1 = unlimited, 0 = "none"). */
const PUBLISHED_PLAN_VALUES: Record<Plan, Record<string, number>> = {
  starter: { boards: 10, participants: 25, storage_org: 1 * GB, api_calls_daily: 1_000, webhooks_daily: 0, ai_requests_monthly: 0 },
  professional: { boards: 100, participants: 100, storage_org: 10 * GB, api_calls_daily: 10_000, webhooks_daily: 1_000, ai_requests_monthly: 50 },
  business: { boards: 500, participants: 250, storage_org: 100 * GB, api_calls_daily: 100_000, webhooks_daily: 10_000, ai_requests_monthly: 200 },
  enterprise: { boards: -1, participants: -1, api_calls_daily: -1, webhooks_daily: -1, ai_requests_monthly: 1_000 },
};

const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const NOW = new Date('2026-03-10T12:00:00.000Z');

interface Entry {
  type: string;
  current: number;
  limit: number;
  remaining: number;
  percent: number;
  isUnlimited: boolean;
  resetAt?: string;
  warning?: string;
}
interface Report {
  plan: Plan;
  quotas: Entry[];
  overallUsagePercent: number;
  recommendation: 'ok' | 'monitor' | 'upgrade';
}

const clock = new ManualClock(NOW);
const { server } = serverForSuite({ clock, env: { ADMIN_TOKEN } });

/** A new organization on `plan`, shaped for both the API (apiKey) and the quota service (id, plan). */
async function newOrganization(plan: Plan): Promise<{ id: string; apiKey: string; organizationId: string; plan: Plan }> {
  const created = await server.newOrganization(plan);
  return { ...created, id: created.organizationId, plan };
}

async function report(apiKey: string): Promise<Report> {
  const read = await server.api<Report>('GET', '/quota', undefined, { 'x-api-key': apiKey });
  expect(read.status).toBe(200);
  return read.body;
}

function entryOf(body: Report, type: string): Entry {
  const entry = body.quotas.find((candidate) => candidate.type === type);
  expect(entry, `entry ${type}`).toBeDefined();
  return entry!;
}

/** What overallUsagePercent is: the mean over limited quotas (limit above 0), one decimal. */
function expectedOverall(body: Report): number {
  const limited = body.quotas.filter((entry) => !entry.isUnlimited && entry.limit > 0);
  return Math.round((limited.reduce((sum, entry) => sum + entry.percent, 0) / limited.length) * 10) / 10;
}

describe('GET /quota', () => {
  it('lists the plan and exactly the 13 quota entries in their documented order, each with the entry fields', async () => {
    const organization = await newOrganization('professional');
    const body = await report(organization.apiKey);
    expect(Object.keys(body).sort()).toEqual(['overallUsagePercent', 'plan', 'quotas', 'recommendation']);
    expect(body.plan).toBe('professional');
    expect(body.quotas.map((entry) => entry.type)).toEqual(QUOTA_TYPE_ORDER);
    for (const entry of body.quotas) {
      const keys = ['current', 'isUnlimited', 'limit', 'percent', 'remaining', 'type'];
      if (DAILY.includes(entry.type) || MONTHLY.includes(entry.type)) keys.push('resetAt');
      if (entry.warning !== undefined) keys.push('warning');
      expect(Object.keys(entry).sort(), entry.type).toEqual(keys.sort());
      expect(entry.isUnlimited).toBe(false);
      expect(entry.remaining).toBe(entry.limit - entry.current);
      expect(entry.percent).toBeGreaterThanOrEqual(0);
      expect(entry.percent).toBeLessThanOrEqual(100);
    }
    // Reading the quota is not itself counted as an API call.
    expect(entryOf(body, 'api_calls_daily')).toMatchObject({ current: 0, limit: 10_000, remaining: 10_000, percent: 0 });
    expect(entryOf(body, 'boards')).toMatchObject({ current: 0, limit: 100, remaining: 100, percent: 0 });
    expect(body.recommendation).toBe('ok');
    expect(body.overallUsagePercent).toBe(0);
  });

  it("answers a user's access token (JWT bearer) as it answers the organization's API key", async () => {
    const organization = await newOrganization('business');
    const email = `user-${randomBytes(6).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await request(server.url, 'POST', '/api/v1/admin/users', { email, password, organizationId: organization.organizationId }, admin)).status).toBe(201);
    const login = await request(server.url, 'POST', '/api/v1/auth/login', { email, password });
    expect(login.status).toBe(200);
    const asUser = await request<Report>(server.url, 'GET', '/api/v1/quota', undefined, { authorization: `Bearer ${login.body.accessToken}` });
    expect(asUser.status).toBe(200);
    expect(asUser.body.plan).toBe('business');
    expect(asUser.body.quotas.map((entry) => entry.type)).toEqual(QUOTA_TYPE_ORDER);
    const check = await request(server.url, 'GET', '/api/v1/quota/boards', undefined, { authorization: `Bearer ${login.body.accessToken}` });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ allowed: true, limit: 500 });
  });

  it('gives resetAt only to periodic quotas: the next UTC midnight for daily ones, the first of next month for monthly ones', async () => {
    const organization = await newOrganization('business');
    const body = await report(organization.apiKey);
    for (const entry of body.quotas) {
      if (DAILY.includes(entry.type)) expect(entry.resetAt, entry.type).toBe('2026-03-11T00:00:00.000Z');
      else if (MONTHLY.includes(entry.type)) expect(entry.resetAt, entry.type).toBe('2026-04-01T00:00:00.000Z');
      else expect(entry, entry.type).not.toHaveProperty('resetAt');
      if (entry.resetAt) expect(entry.resetAt).toMatch(ISO_TIMESTAMP);
    }
  });

  it('shows enterprise quotas as unlimited (limit -1), except the 1,000 AI requests a month, and leaves them out of overallUsagePercent', async () => {
    const organization = await newOrganization('enterprise');
    await server.app.quotas.consume(organization, 'ai_requests_monthly', 500);
    await server.app.quotas.consume(organization, 'api_calls_daily', 5_000_000);
    const body = await report(organization.apiKey);
    expect(body.plan).toBe('enterprise');
    for (const entry of body.quotas) {
      if (entry.type === 'ai_requests_monthly') continue;
      expect(entry, entry.type).toMatchObject({ limit: -1, isUnlimited: true, remaining: -1, percent: 0 });
      expect(entry, entry.type).not.toHaveProperty('warning');
    }
    expect(entryOf(body, 'api_calls_daily').current).toBe(5_000_000);
    expect(entryOf(body, 'ai_requests_monthly')).toMatchObject({ current: 500, limit: 1_000, remaining: 500, percent: 50, isUnlimited: false });
    // The only limited quota is at 50 %: unlimited ones (at 0 %) do not dilute the average.
    expect(body.overallUsagePercent).toBe(50);
    expect(body.recommendation).toBe('ok');
  });

  it('shows the quotas a plan lacks (limit 0) as used up, without counting them in the overall picture', async () => {
    const organization = await newOrganization('starter');
    expect((await server.api('GET', '/boards', undefined, { 'x-api-key': organization.apiKey })).status).toBe(200);
    const body = await report(organization.apiKey);
    for (const type of ['webhooks_daily', 'ai_requests_monthly']) {
      const entry = entryOf(body, type);
      expect(entry, type).toMatchObject({ current: 0, limit: 0, remaining: 0, percent: 100, isUnlimited: false });
      expect(entry.warning, type).toEqual(expect.stringMatching(/\S/));
    }
    // Only one API call is used (1 of 1,000 = 0.1 %), averaged over the 11 quotas with a limit.
    expect(entryOf(body, 'api_calls_daily')).toMatchObject({ current: 1, percent: 0.1 });
    expect(body.overallUsagePercent).toBe(expectedOverall(body));
    expect(body.overallUsagePercent).toBe(0);
    expect(body.recommendation).toBe('ok');
  });

  // Business exports_monthly has a limit of 1,000, so usages give exact percents; API calls
  // (100,000 a day) stay at 0 %. The recommendation follows the highest single percent.
  it.each([
    { used: 690, percent: 69, recommendation: 'ok', warned: false },
    { used: 700, percent: 70, recommendation: 'monitor', warned: false },
    { used: 800, percent: 80, recommendation: 'monitor', warned: true },
    { used: 899, percent: 89.9, recommendation: 'monitor', warned: true },
    { used: 900, percent: 90, recommendation: 'upgrade', warned: true },
    { used: 1_000, percent: 100, recommendation: 'upgrade', warned: true },
  ])('recommends $recommendation at a highest usage of $percent % (warning: $warned)', async ({ used, percent, recommendation, warned }) => {
    const organization = await newOrganization('business');
    await server.app.quotas.consume(organization, 'exports_monthly', used);
    const body = await report(organization.apiKey);
    const exports = entryOf(body, 'exports_monthly');
    expect(exports).toMatchObject({ current: used, limit: 1_000, remaining: 1_000 - used, percent });
    expect(body.recommendation).toBe(recommendation);
    if (warned) expect(exports.warning).toEqual(expect.stringMatching(/\S/));
    else expect(exports).not.toHaveProperty('warning');
    for (const entry of body.quotas) expect(entry.warning !== undefined, entry.type).toBe(entry.percent >= 80);
    expect(body.overallUsagePercent).toBe(expectedOverall(body));
    expect(body.overallUsagePercent).toBe(Math.round((percent / 13) * 10) / 10);
  });
});

describe('GET /quota/<type>', () => {
  it('answers allowed, current, limit, remaining and a null warning below 80 %', async () => {
    const organization = await newOrganization('professional');
    await server.app.quotas.consume(organization, 'ai_requests_monthly', 10);
    const check = await server.api('GET', '/quota/ai_requests_monthly', undefined, { 'x-api-key': organization.apiKey });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ allowed: true, current: 10, limit: 50, remaining: 40, warning: null });
  });

  it('warns from 80 % and answers 200 with allowed false at 100 %', async () => {
    const organization = await newOrganization('professional');
    const headers = { 'x-api-key': organization.apiKey };
    await server.app.quotas.consume(organization, 'ai_requests_monthly', 40);
    const warned = await server.api('GET', '/quota/ai_requests_monthly', undefined, headers);
    expect(warned.status).toBe(200);
    expect(warned.body).toMatchObject({ allowed: true, current: 40, limit: 50, remaining: 10, warning: expect.stringMatching(/\S/) });

    await server.app.quotas.consume(organization, 'ai_requests_monthly', 10);
    const full = await server.api('GET', '/quota/ai_requests_monthly', undefined, headers);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ allowed: false, current: 50, limit: 50, remaining: 0, warning: expect.stringMatching(/\S/) });
  });

  it('answers allowed false for a quota the plan lacks (limit 0) and allowed true for an unlimited one', async () => {
    const starter = await newOrganization('starter');
    const lacking = await server.api('GET', '/quota/webhooks_daily', undefined, { 'x-api-key': starter.apiKey });
    expect(lacking.status).toBe(200);
    expect(lacking.body).toMatchObject({ allowed: false, current: 0, limit: 0, remaining: 0 });

    const enterprise = await newOrganization('enterprise');
    const unlimited = await server.api('GET', '/quota/boards', undefined, { 'x-api-key': enterprise.apiKey });
    expect(unlimited.status).toBe(200);
    expect(unlimited.body).toMatchObject({ allowed: true, current: 0, limit: -1, remaining: -1, warning: null });
  });

  it('answers 400 with validTypes (exactly the 13 types) to an unknown type', async () => {
    const unknown = await server.api('GET', '/quota/nope');
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body).sort()).toEqual(['error', 'message', 'path', 'statusCode', 'timestamp', 'validTypes']);
    expect(unknown.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringMatching(/\S/), path: '/api/v1/quota/nope' });
    expect(unknown.body.validTypes).toEqual(QUOTA_TYPE_ORDER);
  });

  it('answers 401 with the error body to a missing or unknown API key', async () => {
    const missing = await request(server.url, 'GET', '/api/v1/quota/boards');
    expectErrorBody(missing, { statusCode: 401, error: 'Unauthorized', path: '/api/v1/quota/boards' });
    const unknown = await request(server.url, 'GET', '/api/v1/quota', undefined, { 'x-api-key': `wb_${randomBytes(32).toString('base64url')}` });
    expectErrorBody(unknown, { statusCode: 401, error: 'Unauthorized', path: '/api/v1/quota' });
  });
});

describe('plan limits', () => {
  it.each(PLANS)('shows the %s plan limits of PLAN_LIMITS and the published plan values', async (plan) => {
    const organization = await newOrganization(plan);
    const body = await report(organization.apiKey);
    expect(body.plan).toBe(plan);
    expect(Object.fromEntries(body.quotas.map((entry) => [entry.type, entry.limit]))).toEqual(PLAN_LIMITS[plan]);
    for (const [type, limit] of Object.entries(PUBLISHED_PLAN_VALUES[plan])) expect(entryOf(body, type).limit, type).toBe(limit);
  });

  it('applies a plan changed through the admin API at once', async () => {
    const organization = await newOrganization('starter');
    const headers = { 'x-api-key': organization.apiKey };
    for (let index = 0; index < 10; index += 1) {
      expect((await server.api('POST', '/boards', { title: `Board ${index}` }, headers)).status).toBe(201);
    }
    expect((await server.api('POST', '/boards', { title: 'Eleventh' }, headers)).status).toBe(402);

    const changed = await request(server.url, 'PATCH', `/api/v1/admin/organizations/${organization.organizationId}`, { plan: 'professional' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(changed.status).toBe(200);
    const body = await report(organization.apiKey);
    expect(body.plan).toBe('professional');
    expect(Object.fromEntries(body.quotas.map((entry) => [entry.type, entry.limit]))).toEqual(PLAN_LIMITS.professional);
    expect((await server.api('POST', '/boards', { title: 'Eleventh' }, headers)).status).toBe(201);

    const downgraded = await request(server.url, 'PATCH', `/api/v1/admin/organizations/${organization.organizationId}`, { plan: 'starter' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(downgraded.status).toBe(200);
    const over: ApiResponse = await server.api('POST', '/boards', { title: 'Twelfth' }, headers);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ quotaType: 'boards', current: 11, limit: 10 });
    expect(entryOf(await report(organization.apiKey), 'boards')).toMatchObject({ current: 11, limit: 10, remaining: 0, percent: 100 });
  });
});
