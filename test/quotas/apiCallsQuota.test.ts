import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite, organizationCaller } from '../helpers/fixtures.js';

/**
 * `api_calls_daily`: every call made with an API key counts, whatever it does; past the
 * day's limit calls answer 402 until the next UTC midnight. Each test moves the shared clock
 * forward only, to the instants it needs.
 */
const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
const { server } = serverForSuite({ clock });

async function starter() {
  const { apiKey, organizationId, api } = await organizationCaller(server, 'starter');
  /** `current` of api_calls_daily, as the quota endpoint (free to call) reports it. */
  const callsToday = async (): Promise<number> => {
    const check = await api('GET', '/quota/api_calls_daily');
    expect(check.status).toBe(200);
    return check.body.current as number;
  };
  return { apiKey, organizationId, id: organizationId, plan: 'starter' as const, api, callsToday };
}

describe('the api_calls_daily quota', () => {
  it('counts every API-key call except reading the quota', async () => {
    const org = await starter();
    expect(await org.callsToday()).toBe(0);
    expect((await org.api('GET', '/boards')).status).toBe(200);
    expect((await org.api('POST', '/boards', { title: 'Counted' })).status).toBe(201);
    // Refused calls (validation, unknown board) were still made with the key.
    expect((await org.api('POST', '/boards', {})).status).toBe(400);
    expect((await org.api('GET', '/boards/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await org.api('GET', '/quota')).status).toBe(200);
    expect(await org.callsToday()).toBe(4);

    // Another organization's calls are its own.
    const other = await starter();
    await other.api('GET', '/boards');
    expect(await other.callsToday()).toBe(1);
    expect(await org.callsToday()).toBe(4);
  });

  it('lets the call that reaches the limit through and refuses the next one with 402', async () => {
    const org = await starter();
    await server.app.quotas.consume(org, 'api_calls_daily', 999);
    expect((await org.api('GET', '/boards')).status).toBe(200);

    const refused = await org.api('GET', '/boards');
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({
      statusCode: 402,
      error: 'Payment Required',
      quotaType: 'api_calls_daily',
      current: 1_000,
      limit: 1_000,
      timestamp: expect.stringMatching(ISO_TIMESTAMP),
      path: '/api/v1/boards',
    });
    expect(new URL(refused.body.upgradeUrl).protocol).toMatch(/^https?:$/);
    expect((await org.api('POST', '/boards', { title: 'Too late' })).status).toBe(402);
    // Reading the quota is free: the organization can still see where it stands.
    const check = await org.api('GET', '/quota/api_calls_daily');
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ allowed: false, current: 1_000, limit: 1_000, remaining: 0 });
  });

  it('lets calls through again after midnight UTC, counting from zero', async () => {
    const org = await starter();
    clock.set(new Date('2026-03-11T18:00:00.000Z'));
    await server.app.quotas.consume(org, 'api_calls_daily', 1_000);
    expect((await org.api('GET', '/boards')).status).toBe(402);

    clock.set(new Date('2026-03-11T23:59:59.999Z'));
    expect((await org.api('GET', '/boards')).status).toBe(402);

    clock.set(new Date('2026-03-12T00:00:00.000Z'));
    expect((await org.api('GET', '/boards')).status).toBe(200);
    expect(await org.callsToday()).toBe(1);
    const report = await org.api('GET', '/quota');
    expect(report.body.quotas.find((entry: { type: string }) => entry.type === 'api_calls_daily')).toMatchObject({
      current: 1,
      limit: 1_000,
      resetAt: '2026-03-13T00:00:00.000Z',
    });
  });

  it('counts calls at 23:59:59.9 and at 00:00:00.1 UTC in different days, whatever the process time zone (R9, R10)', async () => {
    const org = await starter();
    const zone = process.env.TZ;
    // Node applies a changed TZ at once; New York is five hours behind UTC in March.
    process.env.TZ = 'America/New_York';
    onTestFinished(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    expect(new Date('2026-03-12T23:59:59.900Z').getDate()).toBe(12);
    expect(new Date('2026-03-13T00:00:00.100Z').getDate()).toBe(12);
    clock.set(new Date('2026-03-12T23:59:59.900Z'));
    expect((await org.api('GET', '/boards')).status).toBe(200);
    expect((await org.api('GET', '/boards')).status).toBe(200);
    const before = await org.api('GET', '/quota');
    expect(before.body.quotas.find((entry: { type: string }) => entry.type === 'api_calls_daily')).toMatchObject({
      current: 2,
      resetAt: '2026-03-13T00:00:00.000Z',
    });

    clock.set(new Date('2026-03-12T23:59:59.950Z'));
    expect((await org.api('GET', '/boards')).status).toBe(200);
    expect(await org.callsToday()).toBe(3);

    clock.set(new Date('2026-03-13T00:00:00.100Z'));
    expect((await org.api('GET', '/boards')).status).toBe(200);
    const after = await org.api('GET', '/quota');
    expect(after.body.quotas.find((entry: { type: string }) => entry.type === 'api_calls_daily')).toMatchObject({
      current: 1,
      resetAt: '2026-03-14T00:00:00.000Z',
    });
  });

  it('never refuses an enterprise organization (unlimited)', async () => {
    const { apiKey, organizationId } = await server.newOrganization('enterprise');
    await server.app.quotas.consume({ id: organizationId, plan: 'enterprise' }, 'api_calls_daily', 10_000_000);
    const read = await server.api('GET', '/quota/api_calls_daily', undefined, { 'x-api-key': apiKey });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ allowed: true, current: 10_000_000, limit: -1, remaining: -1, warning: null });
    expect((await server.api('GET', '/boards', undefined, { 'x-api-key': apiKey })).status).toBe(200);
  });
});
