import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { eventually, type ApiResponse } from '../helpers/testServer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^[0-9a-f]{64}$/;
const SUBSCRIPTIONS = '/api/v1/webhooks/subscriptions';
const DELIVERIES = '/api/v1/webhooks/deliveries';

type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

const { server } = serverForSuite({ env: { WEBHOOK_RETRY_DELAYS_MS: '0,0,0' } });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Each path of the one receiver stands for a receiver that behaves in its own way.
  receiver.respondWith((request) => {
    if (request.path.startsWith('/failing')) return { status: 500 };
    if (request.path.startsWith('/mixed')) return { status: request.json?.event === 'board.archived' ? 503 : 200, delayMs: 60 };
    if (request.path.startsWith('/held')) return { delayMs: 1_500 };
    return undefined;
  });
  // Failed deliveries end after their retries within a few seconds (jitter only).
});
afterAll(async () => {
  await receiver?.close();
});
/** An organization of its own, so subscriptions and deliveries of other tests never mix in. */

async function newOrganization(): Promise<{ api: Api; organizationId: string }> {
  const { apiKey, organizationId } = await server.newOrganization();
  return { organizationId, api: (method, path, body) => server.api(method, path, body, { 'x-api-key': apiKey }) };
}

async function subscribe(api: Api, body: Record<string, unknown> = {}) {
  const created = await api('POST', '/webhooks/subscriptions', { url: receiver.url, ...body });
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string; secret_hint: string };
}

async function createBoard(api: Api, title = 'Board'): Promise<string> {
  const created = await api('POST', '/boards', { title });
  expect(created.status).toBe(201);
  return created.body.board_uuid as string;
}

/** Waits until the organization has `count` deliveries and none is pending any more. */
async function deliveriesSettled(api: Api, count: number, query = '') {
  return (await eventually(async () => {
    const listed = await api('GET', `/webhooks/deliveries?limit=200${query}`);
    const records = listed.body as Array<{ status: string }>;
    return records.length === count && records.every((record) => record.status !== 'pending') ? records : undefined;
  }, 15_000))!;
}

describe('creating a subscription', () => {
  it('answers 201 with id, url, events, description, a 64-hex secret shown once, its hint, is_active true and created_at', async () => {
    const { api } = await newOrganization();
    const before = Date.now();
    const created = await api('POST', '/webhooks/subscriptions', { url: receiver.url, events: ['board.created', 'object.*'], description: 'LMS sync' });
    expect(created.status).toBe(201);
    const body = created.body;
    expect(body).toMatchObject({ url: receiver.url, events: ['board.created', 'object.*'], description: 'LMS sync', is_active: true });
    expect(body.id).toMatch(UUID);
    expect(body.secret).toMatch(SECRET);
    expect(typeof body.secret_hint).toBe('string');
    const hintPrefix = body.secret_hint.replace(/[^0-9a-f]+$/, '');
    expect(hintPrefix.length).toBeGreaterThanOrEqual(4);
    expect(hintPrefix.length).toBeLessThan(64);
    expect(body.secret.startsWith(hintPrefix)).toBe(true);
    expect(body.created_at).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('subscribes to every event with ["*"] when events are left out', async () => {
    const { api } = await newOrganization();
    const created = await api('POST', '/webhooks/subscriptions', { url: receiver.url });
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual(['*']);
  });

  it('gives every subscription a different secret', async () => {
    const { api } = await newOrganization();
    const secrets = await Promise.all([1, 2, 3].map(() => subscribe(api).then((s) => s.secret)));
    expect(new Set(secrets).size).toBe(3);
  });

  it('accepts every pattern form: exact names, board.*, session.*, participant.*, object.*, *.created and *', async () => {
    const { api } = await newOrganization();
    const events = ['participant.joined', 'object.action', 'board.*', 'session.*', 'participant.*', 'object.*', '*.created', '*'];
    const created = await api('POST', '/webhooks/subscriptions', { url: receiver.url, events });
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual(events);
  });

  it.each([
    ['a missing url', {}, 'url'],
    ['a url that is not a URL', { url: 'not a url' }, 'url'],
    ['a url with another scheme', { url: 'ftp://127.0.0.1/hook' }, 'url'],
    ['a url that is not a string', { url: 42 }, 'url'],
    ['an empty events list', { events: [] }, 'events'],
    ['events that are not a list', { events: 'board.*' }, 'events'],
    ['the unknown family pattern boardx.*', { events: ['boardx.*'] }, 'events.0'],
    ['the incomplete pattern board.', { events: ['board.created', 'board.'] }, 'events.1'],
    ['the pattern **', { events: ['**'] }, 'events.0'],
    ['the unknown event name unknown.event', { events: ['board.*', 'object.*', 'unknown.event'] }, 'events.2'],
    ['the unknown verb *.exploded', { events: ['*.exploded'] }, 'events.0'],
  ])('refuses %s with 400 naming the field', async (_case, body, field) => {
    const { api } = await newOrganization();
    const refused = await api('POST', '/webhooks/subscriptions', field === 'url' ? body : { url: receiver.url, ...body });
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: SUBSCRIPTIONS, field });
    expect((await api('GET', '/webhooks/subscriptions')).body).toEqual([]);
  });

  it('names every bad pattern at once, each by its index', async () => {
    const { api } = await newOrganization();
    const refused = await api('POST', '/webhooks/subscriptions', { url: receiver.url, events: ['boardx.*', 'board.*', '**'] });
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: SUBSCRIPTIONS, field: 'events.0' });
    expect(refused.body.details.map((detail: { field: string }) => detail.field)).toEqual(['events.0', 'events.2']);
  });

  it('answers 401 without an API key or with a wrong one', async () => {
    const missing = await server.api('POST', '/webhooks/subscriptions', { url: receiver.url }, { 'x-api-key': '' });
    expectErrorBody(missing, { statusCode: 401, error: 'Unauthorized', path: SUBSCRIPTIONS });
    const wrong = await server.api('GET', '/webhooks/subscriptions', undefined, { 'x-api-key': 'wb_not-a-key' });
    expectErrorBody(wrong, { statusCode: 401, error: 'Unauthorized', path: SUBSCRIPTIONS });
    const deliveries = await server.api('GET', '/webhooks/deliveries', undefined, { 'x-api-key': '' });
    expectErrorBody(deliveries, { statusCode: 401, error: 'Unauthorized', path: DELIVERIES });
  });
});

describe('reading, changing and deleting subscriptions', () => {
  it('lists and reads subscriptions with their hint but never their secret', async () => {
    const { api } = await newOrganization();
    const first = await subscribe(api, { events: ['board.*'] });
    const second = await subscribe(api, { description: 'second' });
    const listed = await api('GET', '/webhooks/subscriptions');
    expect(listed.status).toBe(200);
    expect(listed.body.map((s: { id: string }) => s.id).sort()).toEqual([first.id, second.id].sort());
    for (const item of listed.body) expect(item).not.toHaveProperty('secret');
    expect(JSON.stringify(listed.body)).not.toContain(first.secret);

    const one = await api('GET', `/webhooks/subscriptions/${first.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: first.id, url: receiver.url, events: ['board.*'], secret_hint: first.secret_hint, is_active: true });
    expect(one.body).not.toHaveProperty('secret');
    expect(JSON.stringify(one.body)).not.toContain(first.secret);
  });

  it('changes url, events and is_active with PATCH and never shows the secret', async () => {
    const { api } = await newOrganization();
    const created = await subscribe(api, { events: ['board.*'] });
    const path = `/webhooks/subscriptions/${created.id}`;
    const url = `${receiver.origin}/other`;
    for (const change of [{ url }, { events: ['object.*', '*.created'] }, { is_active: false }, { is_active: true }]) {
      const patched = await api('PATCH', path, change);
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: created.id, ...change });
      expect(patched.body).not.toHaveProperty('secret');
      expect(JSON.stringify(patched.body)).not.toContain(created.secret);
    }
    const read = await api('GET', path);
    expect(read.body).toMatchObject({ url, events: ['object.*', '*.created'], is_active: true, secret_hint: created.secret_hint });
  });

  it.each([
    ['an unknown pattern', { events: ['board.*', 'boardx.*'] }, 'events.1'],
    ['an empty change', {}, '(body)'],
    ['a url that is not a URL', { url: 'nope' }, 'url'],
    ['a non-boolean is_active', { is_active: 'yes' }, 'is_active'],
  ])('refuses a PATCH with %s with 400 and leaves the subscription unchanged', async (_case, change, field) => {
    const { api } = await newOrganization();
    const created = await subscribe(api, { events: ['board.*'] });
    const path = `/webhooks/subscriptions/${created.id}`;
    expectErrorBody(await api('PATCH', path, change), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field });
    expect((await api('GET', path)).body).toMatchObject({ url: receiver.url, events: ['board.*'], is_active: true });
  });

  it('deletes a subscription with 204 and answers 404 for it afterwards', async () => {
    const { api } = await newOrganization();
    const created = await subscribe(api);
    const path = `/webhooks/subscriptions/${created.id}`;
    const deleted = await api('DELETE', path);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    for (const [method, suffix, body] of [['GET', ''], ['PATCH', '', { is_active: false }], ['DELETE', ''], ['GET', '/stats']] as const) {
      expectErrorBody(await api(method, `${path}${suffix}`, body), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}${suffix}` });
    }
    expect((await api('GET', '/webhooks/subscriptions')).body).toEqual([]);
  });

  it('delivers later events by the url, events and is_active a PATCH set, and nothing once deleted', async () => {
    const { api } = await newOrganization();
    await subscribe(api, { url: `${receiver.origin}/control/` });
    const sub = await subscribe(api, { url: `${receiver.origin}/first/`, events: ['board.created'] });
    const path = `/webhooks/subscriptions/${sub.id}`;
    // Delivery rows are written before the API answers, so counting them right after is exact.
    const rows = async () => (await api('GET', `/webhooks/deliveries?subscription_id=${sub.id}`)).body.length;
    const toggleArchive = async (times: number) => {
      for (let i = 0; i < times; i += 1) expect((await api('PATCH', `/boards/${board}/archive`)).status).toBe(200);
    };
    const board = await createBoard(api);
    expect(await rows()).toBe(1);

    expect((await api('PATCH', path, { url: `${receiver.origin}/second/`, events: ['board.archived'] })).status).toBe(200);
    await createBoard(api);
    expect(await rows()).toBe(1);
    await toggleArchive(1);
    expect(await rows()).toBe(2);

    expect((await api('PATCH', path, { is_active: false })).status).toBe(200);
    await toggleArchive(2);
    expect(await rows()).toBe(2);
    expect((await api('PATCH', path, { is_active: true })).status).toBe(200);
    await toggleArchive(2);
    expect(await rows()).toBe(3);

    await receiver.waitFor(2, (request) => request.path.startsWith('/second/'));
    expect((await api('DELETE', path)).status).toBe(204);
    await toggleArchive(2);
    const archivedEvents = (request: { path: string; json: any }) => request.path.startsWith('/control/') && request.json.data.board_id === board && request.json.event === 'board.archived';
    await receiver.waitFor(4, archivedEvents);
    await deliveriesSettled(api, 9);
    expect(receiver.on('/first/').map((request) => request.json.event)).toEqual(['board.created']);
    expect(receiver.on('/second/').map((request) => request.json.event)).toEqual(['board.archived', 'board.archived']);
  });

  it('answers 404 for a subscription that never existed', async () => {
    const { api } = await newOrganization();
    const path = '/webhooks/subscriptions/00000000-0000-4000-8000-000000000000';
    expectErrorBody(await api('GET', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
  });

  it("answers 403 for another organization's subscription and leaves it untouched", async () => {
    const owner = await newOrganization();
    const other = await newOrganization();
    const created = await subscribe(owner.api, { events: ['board.*'] });
    const path = `/webhooks/subscriptions/${created.id}`;
    for (const [method, suffix, body] of [['GET', ''], ['PATCH', '', { is_active: false }], ['DELETE', ''], ['GET', '/stats']] as const) {
      expectErrorBody(await other.api(method, `${path}${suffix}`, body), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}${suffix}` });
    }
    expectErrorBody(await other.api('GET', `/webhooks/deliveries?subscription_id=${created.id}`), { statusCode: 403, error: 'Forbidden', path: DELIVERIES });
    expect((await other.api('GET', '/webhooks/subscriptions')).body).toEqual([]);
    expect((await owner.api('GET', path)).body).toMatchObject({ id: created.id, is_active: true, events: ['board.*'] });
  });
});

describe('the delivery log and statistics', () => {
  let org: Awaited<ReturnType<typeof newOrganization>>;
  let ok: { id: string };
  let failing: { id: string };
  let mixed: { id: string };
  let idle: { id: string };

  beforeAll(async () => {
    org = await newOrganization();
    ok = await subscribe(org.api, { events: ['board.*'] });
    failing = await subscribe(org.api, { url: `${receiver.origin}/failing`, events: ['board.created'] });
    mixed = await subscribe(org.api, { url: `${receiver.origin}/mixed`, events: ['board.*'] });
    idle = await subscribe(org.api, { events: ['object.deleted'] });
    const boards = [await createBoard(org.api, 'one'), await createBoard(org.api, 'two')];
    expect((await org.api('PATCH', `/boards/${boards[0]}/archive`)).status).toBe(200);
    // ok: 2 created + 1 archived; failing: 2 created; mixed: 2 created (200) + 1 archived (503).
    await deliveriesSettled(org.api, 8);
  }, 30_000);

  it('lists deliveries newest first with delivery_id, subscription, event, status and attempts', async () => {
    const listed = await org.api('GET', '/webhooks/deliveries');
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(8);
    for (const record of listed.body) {
      expect(record.delivery_id).toMatch(UUID);
      expect([ok.id, failing.id, mixed.id]).toContain(record.subscription_id);
      expect(['board.created', 'board.archived']).toContain(record.event);
      expect(['success', 'failed']).toContain(record.status);
    }
    const created = listed.body.map((record: { created_at: string }) => Date.parse(record.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const failed = listed.body.filter((record: { subscription_id: string }) => record.subscription_id === failing.id);
    for (const record of failed) expect(record).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: 500 });
  });

  it('filters the log by subscription_id, by status, and both', async () => {
    const bySubscription = (await org.api('GET', `/webhooks/deliveries?subscription_id=${ok.id}`)).body;
    expect(bySubscription).toHaveLength(3);
    expect(bySubscription.every((record: { subscription_id: string }) => record.subscription_id === ok.id)).toBe(true);
    const failed = (await org.api('GET', '/webhooks/deliveries?status=failed')).body;
    expect(failed.map((record: { subscription_id: string }) => record.subscription_id).sort()).toEqual([failing.id, failing.id, mixed.id].sort());
    expect((await org.api('GET', '/webhooks/deliveries?status=success')).body).toHaveLength(5);
    expect((await org.api('GET', '/webhooks/deliveries?status=pending')).body).toEqual([]);
    const both = (await org.api('GET', `/webhooks/deliveries?subscription_id=${mixed.id}&status=failed`)).body;
    expect(both).toHaveLength(1);
    expect(both[0]).toMatchObject({ event: 'board.archived', status: 'failed', last_status_code: 503 });
  });

  it('returns at most limit deliveries, the newest ones', async () => {
    const all = (await org.api('GET', '/webhooks/deliveries')).body;
    const limited = await org.api('GET', '/webhooks/deliveries?limit=3');
    expect(limited.status).toBe(200);
    expect(limited.body).toEqual(all.slice(0, 3));
    expect((await org.api('GET', '/webhooks/deliveries?limit=200')).body).toHaveLength(8);
    expect((await org.api('GET', '/webhooks/deliveries?limit=1')).body).toHaveLength(1);
  });

  it.each(['0', '201', '-1', 'abc', '50.5', ''])('refuses limit=%s with 400', async (limit) => {
    const refused = await org.api('GET', `/webhooks/deliveries?limit=${limit}`);
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: DELIVERIES, field: 'limit' });
  });

  it.each(['done', 'SUCCESS', 'retrying'])('refuses status=%s with 400', async (status) => {
    const refused = await org.api('GET', `/webhooks/deliveries?status=${status}`);
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: DELIVERIES, field: 'status' });
  });

  it('answers 404 for a subscription_id that does not exist', async () => {
    const refused = await org.api('GET', '/webhooks/deliveries?subscription_id=00000000-0000-4000-8000-000000000000');
    expectErrorBody(refused, { statusCode: 404, error: 'Not Found', path: DELIVERIES });
  });

  it('counts totals per status with the success rate in percent and the mean response time', async () => {
    const stats = async (id: string) => (await org.api('GET', `/webhooks/subscriptions/${id}/stats`)).body;
    expect(await stats(ok.id)).toEqual({ total: 3, success: 3, failed: 0, pending: 0, success_rate: 100, avg_response_time_ms: expect.any(Number) });
    expect(await stats(failing.id)).toEqual({ total: 2, success: 0, failed: 2, pending: 0, success_rate: 0, avg_response_time_ms: expect.any(Number) });
    const mixedStats = await stats(mixed.id);
    expect(mixedStats).toEqual({ total: 3, success: 2, failed: 1, pending: 0, success_rate: expect.any(Number), avg_response_time_ms: expect.any(Number) });
    expect(mixedStats.success_rate).toBeCloseTo(200 / 3, 1);
    // Every answer of the mixed receiver took at least 60 ms.
    expect(mixedStats.avg_response_time_ms).toBeGreaterThanOrEqual(55);
    expect(mixedStats.avg_response_time_ms).toBeLessThan(5_000);
  });

  it('reports zeros, never NaN, for a subscription without deliveries', async () => {
    const stats = await org.api('GET', `/webhooks/subscriptions/${idle.id}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({ total: 0, success: 0, failed: 0, pending: 0, success_rate: 0, avg_response_time_ms: 0 });
  });

  it('counts a delivery still waiting for its receiver as pending', async () => {
    const { api } = await newOrganization();
    const held = await subscribe(api, { url: `${receiver.origin}/held`, events: ['board.created'] });
    await createBoard(api);
    const pending = await api('GET', `/webhooks/subscriptions/${held.id}/stats`);
    expect(pending.body).toEqual({ total: 1, success: 0, failed: 0, pending: 1, success_rate: 0, avg_response_time_ms: 0 });
    expect((await api('GET', '/webhooks/deliveries?status=pending')).body).toHaveLength(1);
    await deliveriesSettled(api, 1);
    const done = (await api('GET', `/webhooks/subscriptions/${held.id}/stats`)).body;
    expect(done).toMatchObject({ total: 1, success: 1, pending: 0, success_rate: 100 });
    expect(done.avg_response_time_ms).toBeGreaterThanOrEqual(1_400);
  });

  it('applies the default limit of 50 and the maximum of 200', async () => {
    const { api } = await newOrganization();
    for (let i = 0; i < 55; i += 1) await subscribe(api, { events: ['board.created'] });
    await createBoard(api);
    const all = await deliveriesSettled(api, 55);
    expect(all).toHaveLength(55);
    expect((await api('GET', '/webhooks/deliveries')).body).toHaveLength(50);
    expect((await api('GET', '/webhooks/deliveries?limit=200')).body).toHaveLength(55);
  }, 30_000);
});
