import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { QUOTA_TYPES, type QuotaType } from '../../src/quotas/quotaTypes.js';
import { publishComponent, uniqueComponentName } from '../helpers/components.js';
import { organizationCaller, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/**
 * `GET /quota` reads every quota of an organization in one SQL statement; `GET /quota/<type>`
 * measures one quota with the queries that also guard creations (active boards counted as
 * `status = 'active' AND expires_at > now`, the documents' bytes per board, ...). Whatever
 * the organization holds, both must give the same numbers, and those numbers must be the
 * ones this test knows it caused.
 */
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
// 23:00 the day before: counters of that day must not show on the next.
const clock = new ManualClock(new Date('2026-03-09T23:00:00.000Z'));
// No expiry sweep: a board whose expiry has passed stays `active` in the database, which the
// report's count of active boards must still leave out.
const { server, connect } = serverForSuite({ clock, env: { EXPIRY_SWEEP_INTERVAL_MS: '0' } });

type Caller = Awaited<ReturnType<typeof organizationCaller>>;
type Currents = Record<QuotaType, number>;

async function newBoard(org: Caller, body: Record<string, unknown> = {}) {
  const created = await org.api('POST', '/boards', { title: 'Measured', ...body });
  expect(created.status).toBe(201);
  return created.body as { board_uuid: string; expires_at: string; access_links: { host: string } };
}

/** Writes `count` objects of about 500 bytes each to a board through the API. */
async function write(org: Caller, boardId: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const text = `${boardId}-${index}-`.padEnd(500, 'x');
    expect((await org.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text }, position: { x: index, y: 0 } })).status).toBe(201);
  }
}

async function registerType(org: Caller, typeName: string): Promise<void> {
  const registration = { typeName, displayName: typeName, category: 'quiz', schema: { type: 'object', properties: { title: { type: 'string' } } } };
  expect((await org.api('POST', '/object-types', registration)).status).toBe(201);
}

/** Every quota's `current` as `GET /quota` reports it. */
async function reported(org: Caller): Promise<Currents> {
  const read = await org.api('GET', '/quota');
  expect(read.status).toBe(200);
  return Object.fromEntries((read.body.quotas as Array<{ type: string; current: number }>).map((entry) => [entry.type, entry.current])) as Currents;
}

/** Every quota's `current` as `GET /quota/<type>` answers it, one type at a time. */
async function checked(org: Caller): Promise<Currents> {
  const entries: Array<[string, number]> = [];
  for (const type of QUOTA_TYPES) {
    const read = await org.api('GET', `/quota/${type}`);
    expect(read.status).toBe(200);
    entries.push([type, read.body.current as number]);
  }
  return Object.fromEntries(entries) as Currents;
}

/** The report and the one-at-a-time checks, read until two reports around the checks agree (documents settle after writes). */
async function settled(org: Caller): Promise<{ report: Currents; checks: Currents }> {
  const read = await eventually(async () => {
    const report = await reported(org);
    const checks = await checked(org);
    const again = await reported(org);
    return JSON.stringify(report) === JSON.stringify(again) ? { report, checks } : null;
  });
  return read!;
}

describe('GET /quota and GET /quota/<type> measure the same', () => {
  it('for an organization with boards in every state, documents, types, components, counters and someone online', async () => {
    const org = await organizationCaller(server, 'business');
    const other = await organizationCaller(server, 'business');
    const organization = { id: org.organizationId, plan: 'business' as const };

    // The day before: a daily counter that must not carry over, a monthly one that must.
    await server.app.quotas.consume(organization, 'file_uploads_daily', 3);
    await server.app.quotas.consume(organization, 'exports_monthly', 2);
    clock.advance(HOUR_MS); // 2026-03-10T00:00Z

    const first = await newBoard(org);
    const second = await newBoard(org);
    const expired = await newBoard(org, { expires_in_hours: 1 });
    const archived = await newBoard(org);
    await write(org, archived.board_uuid, 1);
    expect((await org.api('PATCH', `/boards/${archived.board_uuid}/archive`)).status).toBe(200);
    clock.advance(30 * MINUTE_MS);
    const atItsExpiry = await newBoard(org, { expires_in_hours: 1 });
    await write(org, first.board_uuid, 4);
    await write(org, second.board_uuid, 1);
    await write(org, expired.board_uuid, 2);
    await registerType(org, 'quiz-a');
    await registerType(org, 'quiz-b');
    const component = uniqueComponentName('measured');
    await publishComponent(server, component, '1.0.0', { apiKey: org.apiKey });
    await publishComponent(server, component, '1.1.0', { apiKey: org.apiKey });

    // Another organization's boards, documents, type and component count for it alone.
    const foreign = await newBoard(other);
    await write(other, foreign.board_uuid, 3);
    await registerType(other, 'quiz-a');
    await publishComponent(server, uniqueComponentName('foreign'), '1.0.0', { apiKey: other.apiKey });

    await server.app.quotas.consume(organization, 'file_uploads_daily', 5);
    await server.app.quotas.consume(organization, 'ai_requests_monthly', 7);
    await server.app.quotas.consume(organization, 'webhooks_daily', 4);
    await server.app.quotas.consume(organization, 'cdn_bandwidth_monthly', 1_000);
    await server.app.quotas.consume(organization, 'websocket_messages_daily', 11);

    // One expired half an hour ago, one expires this very millisecond: neither is active, both still `active` rows.
    clock.advance(HOUR_MS);
    expect(new Date(atItsExpiry.expires_at).getTime()).toBe(clock.now().getTime());
    expect(new Date(expired.expires_at).getTime()).toBeLessThan(clock.now().getTime());

    const host = connect(tokenOf(first.access_links.host), first.board_uuid);
    await host.synced();

    const withBoth = await settled(org);
    expect(withBoth.report).toEqual(withBoth.checks);
    expect(withBoth.report).toMatchObject({
      boards: 2,
      participants: 1,
      object_types: 2,
      file_uploads_daily: 5,
      exports_monthly: 2,
      ai_requests_monthly: 7,
      webhooks_daily: 4,
      cdn_bandwidth_monthly: 1_000,
      websocket_messages_daily: expect.any(Number),
    });
    expect(withBoth.report.websocket_messages_daily).toBeGreaterThanOrEqual(11);
    expect(withBoth.report.api_calls_daily).toBeGreaterThan(0);
    // The organization's four boards hold 8 objects of 500 characters or more, the first 4; the other organization's 3 are not here.
    expect(withBoth.report.storage_board).toBeGreaterThanOrEqual(2_000);
    expect(withBoth.report.storage_board).toBeLessThan(withBoth.report.storage_org - withBoth.report.storage_component);
    expect(withBoth.report.storage_org - withBoth.report.storage_component).toBeGreaterThanOrEqual(4_000);
    expect(withBoth.report.storage_org - withBoth.report.storage_component).toBeLessThan(8_000);
    expect(withBoth.report.storage_component).toBeGreaterThan(0);

    // A deleted version's bytes leave both the component and the organization's storage.
    expect((await org.api('DELETE', `/components/${component}/1.1.0`)).status).toBe(204);
    const withOne = await settled(org);
    expect(withOne.report).toEqual(withOne.checks);
    expect(withOne.report.storage_component).toBeGreaterThan(0);
    expect(withOne.report.storage_component).toBeLessThan(withBoth.report.storage_component);
    expect(withOne.report.storage_org - withOne.report.storage_component).toBe(withBoth.report.storage_org - withBoth.report.storage_component);

    // Nobody online, and a new day: the daily counters start again at 0, the monthly ones go on.
    host.destroy();
    await eventually(async () => (await reported(org)).participants === 0);
    clock.advance(24 * HOUR_MS);
    const nextDay = await settled(org);
    expect(nextDay.report).toEqual(nextDay.checks);
    expect(nextDay.report).toMatchObject({ participants: 0, file_uploads_daily: 0, webhooks_daily: 0, exports_monthly: 2, ai_requests_monthly: 7 });
  });

  it('for an organization that has nothing yet', async () => {
    const org = await organizationCaller(server, 'starter');
    const { report, checks } = await settled(org);
    expect(report).toEqual(checks);
    expect(report).toEqual(Object.fromEntries(QUOTA_TYPES.map((type) => [type, 0])));
  });
});
