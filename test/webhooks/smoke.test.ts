import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { eventually, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('webhook smoke', () => {
  let server: TestServer;
  const received: Array<{ headers: Record<string, unknown>; body: string }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { received.push({ headers: req.headers, body }); res.writeHead(received.length === 1 ? 500 : 200).end(); });
  });
  let receiverUrl = '';
  beforeAll(async () => {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    server = await startTestServer({ env: { WEBHOOK_RETRY_DELAYS_MS: '50,50,50' } });
  });
  afterAll(async () => { await server.close(); receiver.close(); });

  it('delivers a signed board.created and retries a failure with the same body', async () => {
    const sub = await server.api('POST', '/webhooks/subscriptions', { url: receiverUrl, events: ['board.*'] });
    expect(sub.status).toBe(201);
    await server.api('POST', '/boards', { title: 'W', external_data: { course: 'x' } });
    await eventually(() => received.length >= 2);
    expect(received[0]!.body).toBe(received[1]!.body);
    expect(verifyWebhookSignature(received[1]!.body, received[1]!.headers['x-webhook-signature'] as string, sub.body.secret)).toBe(true);
    const body = JSON.parse(received[1]!.body);
    expect(body.event).toBe('board.created');
    expect(body.data.external_data).toEqual({ course: 'x' });
    // The outcome is stored just after the receiver answers (group commit): poll, don't race it.
    await eventually(async () => (await server.api('GET', '/webhooks/deliveries')).body[0].status === 'success');
    const stats = await server.api('GET', `/webhooks/subscriptions/${sub.body.id}/stats`);
    expect(stats.body).toMatchObject({ total: 1, success: 1, failed: 0, pending: 0, success_rate: 100 });
  });
});
