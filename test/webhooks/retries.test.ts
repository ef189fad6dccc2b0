import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { eventually, type ApiResponse, type TestServer } from '../helpers/testServer.js';
import { refusingUrl, startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhookReceiver.js';

/** Shortened schedule; every retry adds 0-1000 ms of jitter. */
const DELAYS = [200, 400, 800];
const JITTER_MS = 1_000;
/** Poll interval of the dispatcher, the database round trips and connecting. */
const SLACK_MS = 500;

type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
interface DeliveryRecord {
  delivery_id: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
}

const { server } = serverForSuite({ env: { WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(',') } });
const receivers: WebhookReceiver[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function newReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  return receiver;
}

async function newOrganization(on: TestServer = server): Promise<Api> {
  const { apiKey } = await on.newOrganization();
  return (method, path, body) => on.api(method, path, body, { 'x-api-key': apiKey });
}

async function subscribe(api: Api, url: string, events = ['board.created']): Promise<{ id: string; secret: string }> {
  const created = await api('POST', '/webhooks/subscriptions', { url, events });
  expect(created.status).toBe(201);
  return created.body;
}

async function createBoard(api: Api): Promise<string> {
  const created = await api('POST', '/boards', { title: 'Retry board' });
  expect(created.status).toBe(201);
  return created.body.board_uuid;
}

const records = async (api: Api, subscriptionId: string): Promise<DeliveryRecord[]> =>
  (await api('GET', `/webhooks/deliveries?limit=200&subscription_id=${subscriptionId}`)).body;

/** Waits until the subscription has `count` deliveries, none of them pending, and returns them. */
async function settled(api: Api, subscriptionId: string, count: number, timeoutMs = 15_000): Promise<DeliveryRecord[]> {
  return (await eventually(async () => {
    const list = await records(api, subscriptionId);
    return list.length === count && list.every((record) => record.status !== 'pending') ? list : undefined;
  }, timeoutMs))!;
}

const subscription = async (api: Api, id: string) => (await api('GET', `/webhooks/subscriptions/${id}`)).body;

/**
 * Asserts the subscription comes to show `expected`: a delivery given up is recorded first and
 * counted against its subscription a moment later (webhooks/subscriptionHealth.ts).
 */
async function expectSubscription(api: Api, id: string, expected: Record<string, unknown>): Promise<void> {
  let current: Record<string, unknown> = {};
  await eventually(async () => {
    current = await subscription(api, id);
    return Object.entries(expected).every(([key, value]) => current[key] === value);
  }).catch(() => undefined);
  expect(current).toMatchObject(expected);
}

/** Same delivery_id, byte-identical body and signature on every attempt. */
function expectSameDelivery(attempts: ReceivedRequest[], deliveryId: string, secret: string): void {
  for (const attempt of attempts) {
    expect(attempt.json.delivery_id).toBe(deliveryId);
    expect(attempt.rawBody.equals(attempts[0]!.rawBody)).toBe(true);
    expect(attempt.headers['x-webhook-signature']).toBe(attempts[0]!.headers['x-webhook-signature']);
    expect(verifyWebhookSignature(attempt.rawBody, attempt.headers['x-webhook-signature'] as string, secret)).toBe(true);
  }
}

/** Each gap between attempts is at least its delay and at most delay + jitter + slack. */
function expectGaps(attempts: ReceivedRequest[], delays: number[]): void {
  for (let i = 0; i + 1 < attempts.length; i += 1) {
    const gap = attempts[i + 1]!.arrivedAt - attempts[i]!.arrivedAt;
    expect(gap, `gap after attempt ${i + 1}`).toBeGreaterThanOrEqual(delays[i]!);
    expect(gap, `gap after attempt ${i + 1}`).toBeLessThan(delays[i]! + JITTER_MS + SLACK_MS);
  }
}

describe('retries', () => {
  it('makes exactly four attempts with the same delivery_id and bytes, spaced by the schedule, then marks the delivery failed', async () => {
    const receiver = await newReceiver();
    receiver.setDefault({ status: 500 });
    const api = await newOrganization();
    const sub = await subscribe(api, receiver.url);
    await createBoard(api);
    const [record] = await settled(api, sub.id, 1);
    expect(record).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: 500 });
    expect(receiver.requests).toHaveLength(4);
    expectSameDelivery(receiver.requests, record!.delivery_id, sub.secret);
    expectGaps(receiver.requests, DELAYS);
  });

  it('stops after a success: 500, 500, then 200 makes three attempts and ends success', async () => {
    const receiver = await newReceiver();
    receiver.reply({ status: 500 }, { status: 500 });
    const api = await newOrganization();
    const sub = await subscribe(api, receiver.url);
    await createBoard(api);
    const [record] = await settled(api, sub.id, 1);
    expect(record).toMatchObject({ status: 'success', attempt_count: 3, last_status_code: 200 });
    expect(receiver.requests).toHaveLength(3);
    expectSameDelivery(receiver.requests, record!.delivery_id, sub.secret);
    expectGaps(receiver.requests, DELAYS);
    await expectSubscription(api, sub.id, { is_active: true, consecutive_failures: 0 });
  });

  it('counts redirects as failures and never follows them', async () => {
    const target = await newReceiver();
    const receiver = await newReceiver();
    receiver.respondWith((request) => ({ status: Number(request.path.slice(2, 5)), headers: { location: target.url } }));
    const api = await newOrganization();
    const subs = await Promise.all([301, 302, 307, 308].map((code) => subscribe(api, `${receiver.origin}/r${code}`)));
    await createBoard(api);
    for (const [index, code] of [301, 302, 307, 308].entries()) {
      const [record] = await settled(api, subs[index]!.id, 1);
      expect(record).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: code });
      expect(receiver.on(`/r${code}`)).toHaveLength(4);
    }
    expect(target.requests).toEqual([]);
  });

  it('counts an answer later than 10 s as a failed attempt and retries it', async () => {
    const receiver = await newReceiver();
    receiver.reply({ status: 200, delayMs: 12_000 });
    const api = await newOrganization();
    const sub = await subscribe(api, receiver.url);
    await createBoard(api);
    const [record] = await settled(api, sub.id, 1, 20_000);
    expect(record).toMatchObject({ status: 'success', attempt_count: 2 });
    expect(receiver.requests).toHaveLength(2);
    expectSameDelivery(receiver.requests, record!.delivery_id, sub.secret);
    // The first attempt is given up 10 s after it started (a moment before it arrived); the retry follows after its delay.
    const gap = receiver.requests[1]!.arrivedAt - receiver.requests[0]!.arrivedAt;
    expect(gap).toBeGreaterThanOrEqual(10_000 - 100 + DELAYS[0]!);
    expect(gap).toBeLessThan(10_000 + 500 + DELAYS[0]! + JITTER_MS + SLACK_MS);
  }, 30_000);

  it('counts a refused connection as a failed attempt', async () => {
    const api = await newOrganization();
    const sub = await subscribe(api, await refusingUrl());
    await createBoard(api);
    const [record] = await settled(api, sub.id, 1);
    expect(record).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: null });
    expect(record!.last_error).toEqual(expect.any(String));
  });

  it('counts a connection closed without an answer as a failed attempt and retries it', async () => {
    const receiver = await newReceiver();
    receiver.reply({ close: true });
    const api = await newOrganization();
    const sub = await subscribe(api, receiver.url);
    await createBoard(api);
    const [record] = await settled(api, sub.id, 1);
    expect(record).toMatchObject({ status: 'success', attempt_count: 2 });
    expect(receiver.requests).toHaveLength(2);
    expectSameDelivery(receiver.requests, record!.delivery_id, sub.secret);
    expectGaps(receiver.requests, DELAYS);
  });
});

describe('automatic disabling', () => {
  it('disables a subscription after 10 consecutive failed deliveries and creates no delivery for later events', async () => {
    const failing = await newReceiver();
    failing.setDefault({ status: 500 });
    const control = await newReceiver();
    const api = await newOrganization();
    const sub = await subscribe(api, failing.url);
    for (let i = 0; i < 10; i += 1) await createBoard(api);
    const failed = await settled(api, sub.id, 10, 30_000);
    expect(failed.every((record) => record.status === 'failed' && record.attempt_count === 4)).toBe(true);
    await expectSubscription(api, sub.id, { is_active: false, consecutive_failures: 10 });
    expect(failing.requests).toHaveLength(40);

    await subscribe(api, control.url);
    const later = await createBoard(api);
    // Delivery rows are written before the API answers: none was written for the disabled subscription.
    expect(await records(api, sub.id)).toHaveLength(10);
    await control.waitFor(1, (request) => request.json.data.board_id === later);
    expect(failing.requests).toHaveLength(40);
  }, 60_000);

  it('keeps a subscription active when a success interrupts the failures, and re-enables it with PATCH for new events only', async () => {
    const receiver = await newReceiver();
    receiver.setDefault({ status: 500 });
    const api = await newOrganization();
    const sub = await subscribe(api, receiver.url);

    for (let i = 0; i < 9; i += 1) await createBoard(api);
    await settled(api, sub.id, 9, 30_000);
    await expectSubscription(api, sub.id, { is_active: true, consecutive_failures: 9 });

    // A success after a retry counts as a success too.
    receiver.reply({ status: 500 });
    receiver.setDefault({ status: 200 });
    await createBoard(api);
    const [success] = await settled(api, sub.id, 10);
    expect(success).toMatchObject({ status: 'success', attempt_count: 2 });
    await expectSubscription(api, sub.id, { is_active: true, consecutive_failures: 0 });

    receiver.setDefault({ status: 500 });
    for (let i = 0; i < 9; i += 1) await createBoard(api);
    await settled(api, sub.id, 19, 30_000);
    await expectSubscription(api, sub.id, { is_active: true, consecutive_failures: 9 });

    // The tenth failure in a row disables it.
    await createBoard(api);
    await settled(api, sub.id, 20);
    await expectSubscription(api, sub.id, { is_active: false });

    const missed = await createBoard(api);
    expect(await records(api, sub.id)).toHaveLength(20);
    const reenabled = await api('PATCH', `/webhooks/subscriptions/${sub.id}`, { is_active: true });
    expect(reenabled.status).toBe(200);
    expect(reenabled.body).toMatchObject({ is_active: true, consecutive_failures: 0 });

    receiver.setDefault({ status: 200 });
    const resumed = await createBoard(api);
    const [latest] = await settled(api, sub.id, 21);
    expect(latest).toMatchObject({ status: 'success', attempt_count: 1 });
    expect(receiver.requests.filter((r) => r.json.data.board_id === resumed)).toHaveLength(1);
    expect(receiver.requests.filter((r) => r.json.data.board_id === missed)).toEqual([]);
  }, 90_000);
});

describe('slow receivers', () => {
  it('neither slows the API nor delays the deliveries to another receiver', async () => {
    const slow = await newReceiver();
    slow.setDefault({ status: 200, delayMs: 3_000 });
    const fast = await newReceiver();
    const api = await newOrganization();
    const slowSub = await subscribe(api, slow.url);
    await subscribe(api, fast.url);

    const created: Array<{ id: string; at: number }> = [];
    for (let i = 0; i < 5; i += 1) {
      const started = Date.now();
      const id = await createBoard(api);
      expect(Date.now() - started).toBeLessThan(1_000);
      created.push({ id, at: Date.now() });
    }
    const delivered = await fast.waitFor(5);
    for (const board of created) {
      const arrival = delivered.find((request) => request.json.data.board_id === board.id)!;
      expect(arrival.arrivedAt - board.at).toBeLessThan(1_000);
    }
    // The slow receiver has not answered any of its deliveries yet.
    expect((await records(api, slowSub.id)).every((record) => record.status === 'pending')).toBe(true);
    const done = await settled(api, slowSub.id, 5);
    expect(done.every((record) => record.status === 'success' && record.attempt_count === 1)).toBe(true);
  }, 30_000);

});

describe('the real retry schedule', () => {
  const { server: realServer } = serverForSuite();

  it('waits at least 1 s and then at least 5 s (plus at most 1 s of jitter) between attempts', async () => {
    const receiver = await newReceiver();
    receiver.reply({ status: 500 }, { status: 500 });
    const api = await newOrganization(realServer);
    const sub = await subscribe(api, receiver.url);
    await createBoard(api);
    const [record] = await settled(api, sub.id, 1, 20_000);
    expect(record).toMatchObject({ status: 'success', attempt_count: 3 });
    expect(receiver.requests).toHaveLength(3);
    expectSameDelivery(receiver.requests, record!.delivery_id, sub.secret);
    expectGaps(receiver.requests, [1_000, 5_000]);
  }, 40_000);
});

describe('a backlog for a slow receiver', () => {
  // Last in the file: the backlog left behind fails fast once its receiver is closed.
  it('does not hold back the delivery to another receiver behind a backlog of 300 deliveries to a slow one', async () => {
    const slow = await newReceiver();
    slow.setDefault({ status: 200, delayMs: 3_000 });
    const fast = await newReceiver();
    const api = await newOrganization();
    for (let i = 0; i < 300; i += 1) await subscribe(api, slow.url);
    await subscribe(api, fast.url, ['board.archived']);
    const board = await createBoard(api);
    const archivedAt = Date.now();
    expect((await api('PATCH', `/boards/${board}/archive`)).status).toBe(200);
    const [arrival] = await fast.waitFor(1);
    expect(arrival!.arrivedAt - archivedAt).toBeLessThan(1_000);
    expect(slow.requests.length).toBeLessThan(300);
  }, 60_000);
});
