import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

/**
 * `webhooks_daily`: a plan without webhook deliveries may not subscribe (403); past the
 * day's deliveries, further ones are recorded as failed (`quota_exceeded`) and never sent.
 */
const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
const { server } = serverForSuite({ clock });
let receiver: WebhookReceiver;

interface Delivery {
  delivery_id: string;
  subscription_id: string | null;
  board_id: string;
  event: string;
  url: string;
  status: 'pending' | 'success' | 'failed';
  attempt_count: number;
  last_error: string | null;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

describe('the webhooks_daily quota', () => {
  it('refuses a subscription on the starter plan (no webhook deliveries) with 403', async () => {
    const { apiKey } = await server.newOrganization('starter');
    const refused = await server.api('POST', '/webhooks/subscriptions', { url: `${receiver.origin}/starter`, events: ['*'] }, { 'x-api-key': apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      statusCode: 403,
      error: 'Forbidden',
      message: expect.stringMatching(/\S/),
      quotaType: 'webhooks_daily',
      timestamp: expect.stringMatching(ISO_TIMESTAMP),
      path: '/api/v1/webhooks/subscriptions',
    });
    expect(new URL(refused.body.upgradeUrl).protocol).toMatch(/^https?:$/);
    const list = await server.api('GET', '/webhooks/subscriptions', undefined, { 'x-api-key': apiKey });
    expect(list.body).toEqual([]);
  });

  it('sends the last delivery of the day, records the one past the limit as failed (quota_exceeded) without sending it, and sends again the next day', async () => {
    const { apiKey, organizationId } = await server.newOrganization('professional');
    const api = (method: string, path: string, body?: unknown) => server.api(method, path, body, { 'x-api-key': apiKey });
    const prefixes = ['/quota-a', '/quota-b'];
    for (const prefix of prefixes) {
      expect((await api('POST', '/webhooks/subscriptions', { url: `${receiver.origin}${prefix}`, events: ['board.created'] })).status).toBe(201);
    }
    await server.app.quotas.consume({ id: organizationId, plan: 'professional' }, 'webhooks_daily', 999);
    const receivedFor = (boardId: string) => receiver.requests.filter((request) => request.json?.data?.board_id === boardId);
    const deliveriesOf = async (boardId: string): Promise<Delivery[]> => {
      const list = await api('GET', '/webhooks/deliveries');
      expect(list.status).toBe(200);
      return (list.body as Delivery[]).filter((delivery) => delivery.board_id === boardId);
    };

    const created = await api('POST', '/boards', { title: 'Last deliveries of the day' });
    expect(created.status).toBe(201);
    const boardId = created.body.board_uuid as string;
    const settled = (await eventually(async () => {
      const deliveries = await deliveriesOf(boardId);
      return deliveries.length === 2 && deliveries.every((delivery) => delivery.status !== 'pending') ? deliveries : undefined;
    }, 10_000))!;
    const sent = settled.find((delivery) => delivery.status === 'success');
    const refused = settled.find((delivery) => delivery.status === 'failed');
    expect(sent).toMatchObject({ event: 'board.created', attempt_count: 1, last_error: null });
    expect(refused).toMatchObject({ event: 'board.created', attempt_count: 0, last_error: 'quota_exceeded' });
    expect(new Set([sent!.url, refused!.url])).toEqual(new Set(prefixes.map((prefix) => `${receiver.origin}${prefix}`)));

    const received = await eventually(() => (receivedFor(boardId).length === 1 ? receivedFor(boardId) : undefined));
    expect(`${receiver.origin}${received![0]!.path}`).toBe(sent!.url);
    expect(received![0]!.json.delivery_id).toBe(sent!.delivery_id);
    const quota = await api('GET', '/quota/webhooks_daily');
    expect(quota.body).toMatchObject({ allowed: false, current: 1_000, limit: 1_000, remaining: 0 });

    // Later the same day every delivery is refused; refusals are not the receiver's failures.
    clock.advance(60_000);
    const over = await api('POST', '/boards', { title: 'Still over the limit' });
    expect(over.status).toBe(201);
    const overId = over.body.board_uuid as string;
    const overDeliveries = await deliveriesOf(overId);
    expect(overDeliveries).toHaveLength(2);
    for (const delivery of overDeliveries) expect(delivery).toMatchObject({ status: 'failed', attempt_count: 0, last_error: 'quota_exceeded' });
    const subscriptions = await api('GET', '/webhooks/subscriptions');
    for (const subscription of subscriptions.body) expect(subscription).toMatchObject({ is_active: true, consecutive_failures: 0 });

    clock.set(new Date('2026-03-11T00:00:00.000Z'));
    const nextDay = await api('POST', '/boards', { title: 'A new day' });
    expect(nextDay.status).toBe(201);
    const nextDayId = nextDay.body.board_uuid as string;
    const arrived = await eventually(() => (receivedFor(nextDayId).length === 2 ? receivedFor(nextDayId) : undefined), 10_000);
    expect(new Set(arrived!.map((request) => request.path))).toEqual(new Set(prefixes));
    const nextDayDeliveries = await eventually(async () => {
      const deliveries = await deliveriesOf(nextDayId);
      return deliveries.length === 2 && deliveries.every((delivery) => delivery.status === 'success') ? deliveries : undefined;
    });
    expect(nextDayDeliveries).toHaveLength(2);
    expect((await api('GET', '/quota/webhooks_daily')).body).toMatchObject({ allowed: true, current: 2 });
    // The dispatcher has run since: refused deliveries stayed unsent.
    expect(receivedFor(boardId)).toHaveLength(1);
    expect(receivedFor(overId)).toHaveLength(0);
  });
});
