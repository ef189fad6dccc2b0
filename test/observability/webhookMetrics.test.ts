import { afterAll, beforeAll, expect, it } from 'vitest';
import { serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';
import { refusingUrl, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';
import { scrape, type Scrape } from './scrape.js';

/**
 * The outbox's backlog (read from the delivery log at each scrape) and the attempts' duration
 * by outcome. A failed attempt is retried a minute later, so its delivery stays pending.
 */
const { server } = serverForSuite({ env: { WEBHOOK_RETRY_DELAYS_MS: '60000' } });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const metrics = () => scrape(server.url);
const pending = (s: Scrape) => s.value('whiteboard_webhook_deliveries_pending');
const attempts = (s: Scrape, outcome: string) => s.value('whiteboard_webhook_attempt_seconds_count', { outcome });

async function subscribedOrganization(url: string) {
  const { apiKey } = await server.newOrganization();
  const api = (method: string, path: string, body?: unknown) => server.api(method, path, body, { 'x-api-key': apiKey });
  expect((await api('POST', '/webhooks/subscriptions', { url, events: ['board.created'] })).status).toBe(201);
  return { createBoard: async () => expect((await api('POST', '/boards', { title: 'Hooked' })).status).toBe(201) };
}

it('a delivery waiting for its retry is pending; attempts are timed by outcome', async () => {
  const start = await metrics();
  expect(pending(start)).toBe(0);
  receiver.setDefault({ status: 503 });
  const failing = await subscribedOrganization(receiver.url);
  await failing.createBoard();
  await receiver.waitFor(1);
  const afterFailure = (await eventually(async () => {
    const scraped = await metrics();
    return attempts(scraped, 'http_error') === attempts(start, 'http_error') + 1 ? scraped : undefined;
  }))!;
  expect(pending(afterFailure)).toBe(1);

  const unreachable = await subscribedOrganization(await refusingUrl());
  await unreachable.createBoard();
  const afterRefusal = (await eventually(async () => {
    const scraped = await metrics();
    return attempts(scraped, 'network_error') === attempts(start, 'network_error') + 1 ? scraped : undefined;
  }))!;
  expect(pending(afterRefusal)).toBe(2);

  receiver.setDefault({ status: 200 });
  const answered = await subscribedOrganization(`${receiver.origin}/ok`);
  await answered.createBoard();
  const afterSuccess = (await eventually(async () => {
    const scraped = await metrics();
    return attempts(scraped, 'success') === attempts(start, 'success') + 1 ? scraped : undefined;
  }))!;
  // A delivered one leaves the backlog once its outcome is written; the two waiting for their retry stay.
  let backlog = pending(afterSuccess);
  await eventually(async () => (backlog = pending(await metrics())) === 2).catch(() => undefined);
  expect(backlog).toBe(2);
  expect(afterSuccess.value('whiteboard_webhook_attempt_seconds_sum', { outcome: 'success' })).toBeGreaterThan(0);
});
