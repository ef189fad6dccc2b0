import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, publicOnlyLookup, webhookUrlProblem } from '../../src/webhooks/egress.js';
import { attemptDelivery } from '../../src/webhooks/sender.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { createTestDatabase } from '../helpers/testDatabase.js';
import { eventually, startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

/**
 * Webhook egress in production: only public https targets. No test here sends anything to a
 * non-loopback address: public URLs are only registered, never given an event to deliver.
 */
const REFUSED_IN_PRODUCTION = [
  'http://hooks.example.com/whiteboard',
  'https://127.0.0.1/hook',
  'https://10.0.0.1/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://[::1]/hook',
  'https://localhost/hook',
  'https://localhost./hook',
  'https://LOCALHOST:8443/hook',
  'https://api.localhost/hook',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://127.1/hook',
  'https://2130706433/hook',
  'https://0x7f000001/hook',
  'https://0.0.0.0/hook',
  'https://192.168.1.10/hook',
  'https://172.16.0.1/hook',
  'https://100.64.0.1/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:a9fe:a9fe]/hook',
  'https://[fd00::1]/hook',
  'https://[fe80::1]/hook',
];

type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

async function newOrganization(server: TestServer): Promise<Api> {
  const { apiKey } = await server.newOrganization();
  return (method, path, body) => server.api(method, path, body, { 'x-api-key': apiKey });
}

describe('production mode without WEBHOOK_ALLOW_PRIVATE', () => {
  const { server } = serverForSuite({ env: { NODE_ENV: 'production' } });

  it.each(REFUSED_IN_PRODUCTION)('refuses a subscription to %s with 400', async (url) => {
    const api = await newOrganization(server);
    const refused = await api('POST', '/webhooks/subscriptions', { url });
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: '/api/v1/webhooks/subscriptions', field: 'url' });
    expect((await api('GET', '/webhooks/subscriptions')).body).toEqual([]);
  });

  it('accepts a subscription to a public https URL', async () => {
    // Its organization never raises an event, so nothing is ever sent there.
    const api = await newOrganization(server);
    const created = await api('POST', '/webhooks/subscriptions', { url: 'https://hooks.example.com/whiteboard' });
    expect(created.status).toBe(201);
  });

  it('refuses to PATCH a subscription onto a loopback URL', async () => {
    const api = await newOrganization(server);
    const created = await api('POST', '/webhooks/subscriptions', { url: 'https://hooks.example.com/whiteboard', events: ['object.action'] });
    const path = `/webhooks/subscriptions/${created.body.id}`;
    expectErrorBody(await api('PATCH', path, { url: 'https://127.0.0.1/hook' }), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field: 'url' });
    expect((await api('GET', path)).body.url).toBe('https://hooks.example.com/whiteboard');
  });

  it.each(['http://127.0.0.1:9/hook', 'https://10.0.0.1/hook', 'https://localhost/hook'])('refuses a board webhook_url %s with 400', async (url) => {
    const api = await newOrganization(server);
    const refused = await api('POST', '/boards', { title: 'Board', webhook_url: url });
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: '/api/v1/boards', field: 'webhook_url' });
    expect((await api('GET', '/boards')).body).toEqual([]);
  });
});

describe('production mode with WEBHOOK_ALLOW_PRIVATE=true', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    server = await startTestServer({ env: { NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it.each(REFUSED_IN_PRODUCTION)('accepts a subscription to %s', async (url) => {
    // Its organization never raises an event, so nothing is ever sent there.
    const api = await newOrganization(server);
    const created = await api('POST', '/webhooks/subscriptions', { url });
    expect(created.status).toBe(201);
    expect(created.body.url).toBe(url);
  });

  it('delivers to a loopback receiver over plain http', async () => {
    const api = await newOrganization(server);
    expect((await api('POST', '/webhooks/subscriptions', { url: receiver.url, events: ['board.created'] })).status).toBe(201);
    const board = await api('POST', '/boards', { title: 'Private target' });
    await receiver.waitFor(1, (request) => request.json?.data?.board_id === board.body.board_uuid);
  });
});

describe('targets registered while private ones were allowed', () => {
  it('are never connected to once private targets are not allowed, and their deliveries fail', async () => {
    const receiver = await startWebhookReceiver();
    const database = await createTestDatabase();
    try {
      const permissive = await startTestServer({ database, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      const port = new URL(receiver.origin).port;
      const urls = [`http://127.0.0.1:${port}/ip`, `http://localhost:${port}/name`, `http://[::ffff:127.0.0.1]:${port}/mapped`];
      for (const url of urls) {
        expect((await permissive.api('POST', '/webhooks/subscriptions', { url, events: ['board.archived'] })).status).toBe(201);
      }
      const apiKey = permissive.apiKey;
      await permissive.stop();

      const strict = await startTestServer({ database, env: { NODE_ENV: 'production', WEBHOOK_RETRY_DELAYS_MS: '0,0,0' } });
      try {
        const api = (method: string, path: string, body?: unknown) => strict.api(method, path, body, { 'x-api-key': apiKey });
        const board = await api('POST', '/boards', { title: 'Archived later' });
        expect((await api('PATCH', `/boards/${board.body.board_uuid}/archive`)).status).toBe(200);
        const records = (await eventually(async () => {
          const list = (await api('GET', '/webhooks/deliveries')).body as Array<{ status: string; attempt_count: number; last_error: string }>;
          return list.length === 3 && list.every((record) => record.status === 'failed') ? list : undefined;
        }, 15_000))!;
        for (const record of records) expect(record).toMatchObject({ attempt_count: 4, last_error: expect.any(String) });
        expect(receiver.requests).toEqual([]);
      } finally {
        await strict.stop();
      }
    } finally {
      await receiver.close();
      await database.drop();
    }
  }, 30_000);
});

describe('egress rules', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '255.255.255.255',
    '224.0.0.1', '192.0.2.1', '::1', '::', 'fe80::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip', 'localhost',
  ])('isPublicAddress refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('isPublicAddress accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('webhookUrlProblem names a problem for every private, loopback or plain-http URL in production', () => {
    for (const url of REFUSED_IN_PRODUCTION) expect(webhookUrlProblem(url, false), url).toEqual(expect.any(String));
    expect(webhookUrlProblem('https://hooks.example.com/whiteboard', false)).toBeNull();
    expect(webhookUrlProblem('https://8.8.8.8/hook', false)).toBeNull();
  });

  it('webhookUrlProblem allows private targets when told to, but never other schemes, credentials or non-URLs', () => {
    for (const url of REFUSED_IN_PRODUCTION) expect(webhookUrlProblem(url, true), url).toBeNull();
    for (const url of ['ftp://127.0.0.1/hook', 'file:///etc/passwd', 'https://user:secret@hooks.example.com/', 'not a url', '/relative']) {
      expect(webhookUrlProblem(url, true), url).toEqual(expect.any(String));
      expect(webhookUrlProblem(url, false), url).toEqual(expect.any(String));
    }
  });

  const lookup = (hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) => {
      publicOnlyLookup(hostname, options, (error, address, family) => resolve({ error, address, family }));
    });

  it.each([{}, { all: true }])('publicOnlyLookup refuses localhost with EBLOCKEDADDRESS (options %j)', async (options) => {
    const { error } = await lookup('localhost', options);
    expect(error).toBeInstanceOf(Error);
    expect(error!.code).toBe('EBLOCKEDADDRESS');
  });

  it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1'])('publicOnlyLookup refuses the address %s', async (address) => {
    const { error } = await lookup(address, {});
    expect(error?.code).toBe('EBLOCKEDADDRESS');
  });

  it('publicOnlyLookup passes a public address through, alone or as a list', async () => {
    // An IP literal resolves locally, without any DNS query.
    expect(await lookup('8.8.8.8', {})).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    const all = await lookup('8.8.8.8', { all: true });
    expect(all.error).toBeNull();
    expect(all.address).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('attemptDelivery does not connect to loopback receivers, by name or by address, unless private targets are allowed', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const port = new URL(receiver.origin).port;
      for (const host of ['localhost', '127.0.0.1', '[::ffff:127.0.0.1]']) {
        for (const scheme of ['http', 'https']) {
          const outcome = await attemptDelivery({ url: `${scheme}://${host}:${port}/hook`, body: '{}', headers: {}, allowPrivate: false });
          expect(outcome.kind, `${scheme}://${host}`).toBe('network-error');
        }
      }
      expect(receiver.requests).toEqual([]);
      const allowed = await attemptDelivery({ url: receiver.url, body: '{}', headers: { 'content-type': 'application/json' }, allowPrivate: true });
      expect(allowed).toMatchObject({ kind: 'success', statusCode: 200 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
