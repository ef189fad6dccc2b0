import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Y from 'yjs';
import { ManualClock } from '../../src/clock.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, startTestServer, type ApiResponse } from '../helpers/testServer.js';
import { expectedSignature, startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhookReceiver.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EXTERNAL_DATA = { course: 'physics', term: 3, tags: ['a', 'b'], nested: { ok: true } };

type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

// The test's own event recorder does not count as a listener: only real targets make events.
const { server, clients } = serverForSuite({ eventsWantedByTest: false });
let receiver: WebhookReceiver;
/** The test organization's subscription to every event, at `/all`. */
let everything: { id: string; secret: string };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  everything = await subscribe(server.api, `${receiver.origin}/all`, ['*']);
});
afterAll(async () => {
  await receiver?.close();
});

async function subscribe(api: Api, url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const created = await api('POST', '/webhooks/subscriptions', { url, events });
  expect(created.status).toBe(201);
  return created.body;
}

async function createBoard(api: Api, body: Record<string, unknown> = {}): Promise<CreatedBoard> {
  const created = await api('POST', '/boards', { title: 'Physics 101', external_id: 'course-42', external_data: EXTERNAL_DATA, ...body });
  expect(created.status).toBe(201);
  return created.body;
}

/** The deliveries that reached `prefix` for one board (and one event), in arrival order. */
function deliveriesOf(boardId: string, event?: string, prefix = '/all'): ReceivedRequest[] {
  return receiver.on(prefix).filter((r) => r.json?.data?.board_id === boardId && (event === undefined || r.json.event === event));
}

async function deliveryOf(boardId: string, event: string, prefix = '/all'): Promise<ReceivedRequest> {
  return (await eventually(() => deliveriesOf(boardId, event, prefix)[0], 10_000))!;
}

/**
 * Checks everything a receiver can check about one delivery (headers, envelope, signature;
 * docs/webhooks.md) and returns its `data`.
 */
function expectSignedDelivery(request: ReceivedRequest, event: string, secret: string): Record<string, any> {
  expect(request.method).toBe('POST');
  expect(request.headers['content-type']).toBe('application/json');
  const signature = request.headers['x-webhook-signature'] as string;
  expect(signature).toMatch(/^[0-9a-f]{64}$/);
  expect(signature).toBe(expectedSignature(request.rawBody, secret));
  expect(verifyWebhookSignature(request.rawBody, signature, secret)).toBe(true);
  expect(request.headers['x-webhook-event']).toBe(event);
  expect(request.headers['user-agent']).toMatch(/\S/);
  expect(request.headers['user-agent']).not.toMatch(/^node/i);

  const envelope = JSON.parse(request.body);
  expect(Object.keys(envelope).sort()).toEqual(['data', 'delivery_id', 'event', 'timestamp']);
  expect(envelope.delivery_id).toMatch(UUID);
  expect(envelope.event).toBe(event);
  expect(envelope.timestamp).toMatch(ISO_TIMESTAMP);
  expect(request.headers['x-webhook-delivery']).toBe(envelope.delivery_id);
  const timestamp = request.headers['x-webhook-timestamp'] as string;
  expect(timestamp).toMatch(/^\d+$/);
  expect(Math.abs(Number(timestamp) * 1000 - Date.parse(envelope.timestamp))).toBeLessThan(2_000);
  expect(envelope.data).toMatchObject({ board_id: expect.any(String), organization_id: expect.any(String) });
  return envelope.data;
}

function connect(board: CreatedBoard, role: 'host' | 'guest', params: Record<string, string>): BoardClient {
  const client = connectBoardClient({ url: server.socketUrl(board.access_links[role], params), name: board.board_uuid });
  clients.push(client);
  return client;
}

describe('deliveries of board events', () => {
  it('delivers board.created, signed, with title, external_id, both links, created_at and the external_data', async () => {
    const board = await createBoard(server.api);
    const data = expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.created'), 'board.created', everything.secret);
    expect(data).toEqual({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      title: 'Physics 101',
      external_id: 'course-42',
      host_link: board.access_links.host,
      guest_link: board.access_links.guest,
      created_at: board.created_at,
      external_data: EXTERNAL_DATA,
    });
  });

  it('delivers board.archived and board.unarchived when a board is archived and restored', async () => {
    const board = await createBoard(server.api);
    const archived = await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    const restored = await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    const subject = { board_id: board.board_uuid, organization_id: server.organizationId, title: 'Physics 101', external_id: 'course-42', external_data: EXTERNAL_DATA };
    const archivedData = expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.archived'), 'board.archived', everything.secret);
    expect(archivedData).toEqual({ ...subject, archived_at: archived.body.archived_at });
    const restoredData = expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.unarchived'), 'board.unarchived', everything.secret);
    expect(restoredData).toEqual({ ...subject, restored_at: restored.body.restored_at });
  });

  it('delivers board.ended when the session is ended', async () => {
    const board = await createBoard(server.api, { external_id: undefined, external_data: undefined });
    const ended = await server.api('POST', `/boards/${board.board_uuid}/end-session`);
    expect(ended.status).toBe(200);
    const data = expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.ended'), 'board.ended', everything.secret);
    expect(data).toEqual({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      title: 'Physics 101',
      external_id: null,
      external_data: null,
      session_ended_at: ended.body.session_ended_at,
    });
  });

  it('delivers board.deleted after the board is gone', async () => {
    const board = await createBoard(server.api);
    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    const data = expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.deleted'), 'board.deleted', everything.secret);
    expect(data).toEqual({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      title: 'Physics 101',
      external_id: 'course-42',
      external_data: EXTERNAL_DATA,
      deleted_at: expect.stringMatching(ISO_TIMESTAMP),
    });
  });
});

describe('deliveries of session and participant events', () => {
  it('delivers session.started and participant.joined when a provider client joins, then participant.left and session.ended', async () => {
    const board = await createBoard(server.api);
    const ada = await server.personalLink(board.board_uuid, 'stu-7', { user_name: 'Ada', external_user_id: 'lms-77', external_source: 'moodle' });
    const client = connectBoardClient({ url: server.socketUrl(ada.link), name: board.board_uuid });
    clients.push(client);
    await client.synced();
    const scope = { board_id: board.board_uuid, organization_id: server.organizationId, external_data: EXTERNAL_DATA };
    const user = { user_id: 'stu-7', user_name: 'Ada', user_role: 'guest', user_type: 'verified-student', external_user_id: 'lms-77', external_source: 'moodle' };

    const started = expectSignedDelivery(await deliveryOf(board.board_uuid, 'session.started'), 'session.started', everything.secret);
    expect(started).toEqual({ ...scope, session_id: expect.any(String), started_at: expect.stringMatching(ISO_TIMESTAMP) });
    const joined = expectSignedDelivery(await deliveryOf(board.board_uuid, 'participant.joined'), 'participant.joined', everything.secret);
    expect(joined).toEqual({
      ...scope,
      board: { title: 'Physics 101', external_id: 'course-42', external_data: EXTERNAL_DATA, created_at: board.created_at },
      user,
      participant_count: 1,
      joined_at: expect.stringMatching(ISO_TIMESTAMP),
    });

    client.destroy();
    const left = expectSignedDelivery(await deliveryOf(board.board_uuid, 'participant.left'), 'participant.left', everything.secret);
    expect(left).toEqual({ ...scope, user, participant_count: 0, joined_at: joined.joined_at, left_at: expect.stringMatching(ISO_TIMESTAMP) });
    const ended = expectSignedDelivery(await deliveryOf(board.board_uuid, 'session.ended'), 'session.ended', everything.secret);
    expect(ended).toEqual({
      ...scope,
      session_id: started.session_id,
      started_at: started.started_at,
      ended_at: expect.stringMatching(ISO_TIMESTAMP),
      session_duration_seconds: expect.any(Number),
    });
    expect(ended.session_duration_seconds).toBeGreaterThanOrEqual(0);
  });
});

describe('deliveries of object events', () => {
  it('delivers object.created for an object added over REST, with its data, the version and created_by', async () => {
    const board = await createBoard(server.api);
    const added = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'hi' }, position: { x: 1, y: 2 } });
    expect(added.status).toBe(201);
    const data = expectSignedDelivery(await deliveryOf(board.board_uuid, 'object.created'), 'object.created', everything.secret);
    expect(data).toEqual({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      external_data: EXTERNAL_DATA,
      object_id: added.body.id,
      object_type: 'sticky',
      object_data: { text: 'hi' },
      version: expect.any(Number),
      created_by: null,
    });
    expect(data.version).toBeGreaterThanOrEqual(1);
  });

  it('delivers object.created, object.updated and object.deleted for changes made over a socket', async () => {
    const board = await createBoard(server.api);
    const alice = connect(board, 'host', { user_id: 'alice' });
    await alice.synced();
    const scope = { board_id: board.board_uuid, organization_id: server.organizationId, external_data: EXTERNAL_DATA };

    addObject(alice.doc, { id: 'note-1', type: 'sticky', data: { text: 'hello' }, x: 10, y: 20 });
    await alice.saved();
    const created = expectSignedDelivery(await deliveryOf(board.board_uuid, 'object.created'), 'object.created', everything.secret);
    expect(created).toEqual({ ...scope, object_id: 'note-1', object_type: 'sticky', object_data: { text: 'hello' }, version: expect.any(Number), created_by: 'alice' });

    (alice.doc.getMap('objects').get('note-1') as Y.Map<unknown>).set('data', { text: 'bye' });
    await alice.saved();
    const updated = expectSignedDelivery(await deliveryOf(board.board_uuid, 'object.updated'), 'object.updated', everything.secret);
    expect(updated).toEqual({
      ...scope,
      object_id: 'note-1',
      object_type: 'sticky',
      changes: { before: { data: { text: 'hello' } }, after: { data: { text: 'bye' } } },
      version: expect.any(Number),
      updated_by: 'alice',
    });
    expect(updated.version).toBeGreaterThan(created.version);

    alice.doc.getMap('objects').delete('note-1');
    await alice.saved();
    const deleted = expectSignedDelivery(await deliveryOf(board.board_uuid, 'object.deleted'), 'object.deleted', everything.secret);
    expect(deleted).toEqual({ ...scope, object_id: 'note-1', object_type: 'sticky', object_data: { text: 'bye' }, version: expect.any(Number), deleted_by: 'alice' });
    expect(deleted.version).toBeGreaterThan(updated.version);
  });
});

describe('board.expired', () => {
  it('delivers board.expired when the sweeper expires a board nobody reads', async () => {
    const clock = new ManualClock(new Date('2031-03-01T09:00:00.000Z'));
    const expiring = await startTestServer({ clock, env: { EXPIRY_SWEEP_INTERVAL_MS: '50' } });
    try {
      const subscription = await subscribe(expiring.api, `${receiver.origin}/expiry`, ['board.expired']);
      const board = await createBoard(expiring.api, { expires_in_hours: 1 });
      clock.advance(3_600_000 + 1_000);
      const request = await deliveryOf(board.board_uuid, 'board.expired', '/expiry');
      const data = expectSignedDelivery(request, 'board.expired', subscription.secret);
      expect(data).toEqual({
        board_id: board.board_uuid,
        organization_id: expiring.organizationId,
        title: 'Physics 101',
        external_id: 'course-42',
        external_data: EXTERNAL_DATA,
        expires_at: '2031-03-01T10:00:00.000Z',
        expired_at: '2031-03-01T10:00:01.000Z',
      });
      expect(JSON.parse(request.body).timestamp).toBe('2031-03-01T10:00:01.000Z');
      expect(deliveriesOf(board.board_uuid, undefined, '/expiry')).toHaveLength(1);
    } finally {
      await expiring.close();
    }
  });
});

describe('subscription patterns', () => {
  const PATTERNS: Record<string, string[]> = {
    exact: ['participant.joined'],
    'exact-pair': ['board.archived', 'object.deleted'],
    board: ['board.*'],
    session: ['session.*'],
    participant: ['participant.*'],
    object: ['object.*'],
    created: ['*.created'],
    star: ['*'],
  };
  const ALL = [
    'board.created', 'session.started', 'participant.joined', 'object.created', 'object.updated', 'object.deleted',
    'participant.left', 'session.ended', 'board.archived', 'board.unarchived', 'board.ended', 'board.deleted',
  ];
  const EXPECTED: Record<string, string[]> = {
    exact: ['participant.joined'],
    'exact-pair': ['board.archived', 'object.deleted'],
    board: ['board.created', 'board.archived', 'board.unarchived', 'board.ended', 'board.deleted'],
    session: ['session.started', 'session.ended'],
    participant: ['participant.joined', 'participant.left'],
    object: ['object.created', 'object.updated', 'object.deleted'],
    created: ['board.created', 'object.created'],
    star: ALL,
  };

  it('delivers to each pattern exactly the events it matches and nothing else', async () => {
    const { apiKey } = await server.newOrganization();
    const api: Api = (method, path, body) => server.api(method, path, body, { 'x-api-key': apiKey });
    const secrets: Record<string, string> = {};
    for (const [name, events] of Object.entries(PATTERNS)) secrets[name] = (await subscribe(api, `${receiver.origin}/p/${name}/`, events)).secret;
    const board = await createBoard(api);
    const arrived = (count: number) => eventually(() => receiver.on('/p/star/').filter((r) => r.json.data.board_id === board.board_uuid).length === count, 10_000);
    await arrived(1);

    const client = connect(board, 'host', { user_id: 'teacher' });
    await client.synced();
    await arrived(3);
    addObject(client.doc, { id: 'n1', data: { text: 'a' } });
    await client.saved();
    await arrived(4);
    (client.doc.getMap('objects').get('n1') as Y.Map<unknown>).set('position', { x: 5, y: 5 });
    await client.saved();
    await arrived(5);
    client.doc.getMap('objects').delete('n1');
    await client.saved();
    await arrived(6);
    client.destroy();
    await arrived(8);
    for (const [method, suffix] of [['PATCH', '/archive'], ['PATCH', '/archive'], ['POST', '/end-session'], ['DELETE', '']] as const) {
      expect((await api(method, `/boards/${board.board_uuid}${suffix}`)).status).toBeLessThan(300);
    }
    await arrived(12);

    // Every delivery row exists by now; once none is pending, every receiver has all it will get.
    const total = Object.values(EXPECTED).reduce((sum, events) => sum + events.length, 0);
    await eventually(async () => {
      const log = (await api('GET', '/webhooks/deliveries?limit=200')).body as Array<{ status: string }>;
      return log.length === total && log.every((record) => record.status === 'success');
    }, 10_000);
    for (const [name, expected] of Object.entries(EXPECTED)) {
      const got = receiver.on(`/p/${name}/`);
      expect(got.map((r) => r.json.event).sort(), name).toEqual([...expected].sort());
      for (const request of got) expectSignedDelivery(request, request.json.event, secrets[name]!);
    }
  });
});

describe("a board's own webhook_url", () => {
  it("receives that board's events signed with the webhook_secret of the create response, and no other board's", async () => {
    const own = await createBoard(server.api, { webhook_url: `${receiver.origin}/own/` });
    expect(own.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(own.webhook_secret).not.toBe(everything.secret);
    const other = await createBoard(server.api);
    expect(other).not.toHaveProperty('webhook_secret');
    const read = await server.api('GET', `/boards/${own.board_uuid}`);
    expect(JSON.stringify(read.body)).not.toContain(own.webhook_secret);

    await server.api('PATCH', `/boards/${own.board_uuid}/archive`);
    await server.api('PATCH', `/boards/${other.board_uuid}/archive`);
    await server.api('DELETE', `/boards/${own.board_uuid}`);
    for (const event of ['board.created', 'board.archived', 'board.deleted']) {
      const request = await deliveryOf(own.board_uuid, event, '/own/');
      expect(expectSignedDelivery(request, event, own.webhook_secret!).external_data).toEqual(EXTERNAL_DATA);
      expect(verifyWebhookSignature(request.rawBody, request.headers['x-webhook-signature'] as string, everything.secret)).toBe(false);
      // The organization's subscription gets its own copy, with its own delivery_id and signature.
      const copy = await deliveryOf(own.board_uuid, event, '/all');
      expect(copy.json.delivery_id).not.toBe(request.json.delivery_id);
      expectSignedDelivery(copy, event, everything.secret);
    }
    // Rows are written before the API answers: the board's own URL got exactly its three events.
    const log = (await server.api('GET', '/webhooks/deliveries?limit=200')).body as Array<{ url: string; board_id: string; event: string; subscription_id: string | null }>;
    const toOwnUrl = log.filter((record) => record.url === `${receiver.origin}/own/`);
    expect(toOwnUrl.map((record) => record.event).sort()).toEqual(['board.archived', 'board.created', 'board.deleted']);
    expect(toOwnUrl.every((record) => record.board_id === own.board_uuid && record.subscription_id === null)).toBe(true);
  });

  it('issues a secret once when PATCH sets a webhook_url and keeps signing with it when the url changes', async () => {
    const board = await createBoard(server.api);
    const first = await server.api('PATCH', `/boards/${board.board_uuid}`, { webhook_url: `${receiver.origin}/patched-1/` });
    expect(first.status).toBe(200);
    const secret = first.body.webhook_secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.archived', '/patched-1/'), 'board.archived', secret);

    const second = await server.api('PATCH', `/boards/${board.board_uuid}`, { webhook_url: `${receiver.origin}/patched-2/` });
    expect(second.status).toBe(200);
    expect(second.body).not.toHaveProperty('webhook_secret');
    await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    expectSignedDelivery(await deliveryOf(board.board_uuid, 'board.unarchived', '/patched-2/'), 'board.unarchived', secret);
    expect(deliveriesOf(board.board_uuid, 'board.unarchived', '/patched-1/')).toEqual([]);
  });
});

describe('a target that appears while a board is being edited', () => {
  it('receives the next socket edit, with the change measured from the edits nobody received', async () => {
    const { apiKey } = await server.newOrganization();
    const api: Api = (method, path, body) => server.api(method, path, body, { 'x-api-key': apiKey });
    const board = await createBoard(api);
    const client = connect(board, 'host', { user_id: 'teacher' });
    await client.synced();
    const note = () => client.doc.getMap('objects').get('n1') as Y.Map<unknown>;
    addObject(client.doc, { id: 'n1', data: { text: 'first' } });
    note().set('data', { text: 'second' });
    await client.saved();

    const { secret } = await subscribe(api, `${receiver.origin}/late/`, ['object.updated']);
    note().set('data', { text: 'third' });
    await client.saved();
    const data = expectSignedDelivery(await deliveryOf(board.board_uuid, 'object.updated', '/late/'), 'object.updated', secret);
    expect(data.changes).toEqual({ before: { data: { text: 'second' } }, after: { data: { text: 'third' } } });
    // And every edit after it, now that the subscription is known.
    note().set('data', { text: 'fourth' });
    await client.saved();
    await eventually(() => deliveriesOf(board.board_uuid, undefined, '/late/').length === 2, 10_000);
    expect(deliveriesOf(board.board_uuid, undefined, '/late/').map((request) => request.json.data.changes.after)).toEqual([
      { data: { text: 'third' } },
      { data: { text: 'fourth' } },
    ]);

    const patched = await api('PATCH', `/boards/${board.board_uuid}`, { webhook_url: `${receiver.origin}/late-board/` });
    expect(patched.status).toBe(200);
    client.doc.getMap('objects').delete('n1');
    await client.saved();
    expectSignedDelivery(await deliveryOf(board.board_uuid, 'object.deleted', '/late-board/'), 'object.deleted', patched.body.webhook_secret);
  });
});
