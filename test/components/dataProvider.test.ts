import { lookup } from 'node:dns/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { isPublicAddress } from '../../src/webhooks/egress.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { createBoard, restartsForSuite, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { request, type ApiResponse, type TestServer } from '../helpers/testServer.js';
import { startWebhookReceiver, type ReceiverReply, type WebhookReceiver } from '../helpers/webhookReceiver.js';

/**
 * Component data: `POST /boards/<id>/component-data` answers a sandbox board's mock data
 * or the board's data provider's JSON, called under the webhook egress rules, bounded in time and
 * size, kept for `cache_ttl` seconds of the server's clock, one call for concurrent identical asks.
 */

const json = (value: unknown, status = 200): ReceiverReply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
const dataPath = (boardId: string) => `/api/v1/boards/${boardId}/component-data`;

/** A board of `server`'s organization with a data provider (and any other tutorial fields). */
async function providerBoard(server: TestServer, provider: Record<string, unknown> | null, extra: Record<string, unknown> = {}) {
  const created = await createBoard(server, 'Data', { ...(provider ? { data_provider: { type: 'webhook', ...provider } } : {}), ...extra });
  return { id: created.board_uuid, host: tokenOf(created.access_links.host), guest: tokenOf(created.access_links.guest) };
}

/** Asks for component data with a board token (or as the organization when `token` is null). */
function ask(server: TestServer, boardId: string, body: unknown = {}, token: string | null = null): Promise<ApiResponse> {
  if (token === null) return server.api('POST', `/boards/${boardId}/component-data`, body);
  return request(server.url, 'POST', dataPath(boardId), body, { authorization: `Bearer ${token}` });
}

const expectBadGateway = (answer: ApiResponse, boardId: string, message: RegExp) => {
  expectErrorBody(answer, { statusCode: 502, error: 'Bad Gateway', path: dataPath(boardId) });
  expect(answer.body.message).toMatch(message);
};

describe('component data from a board', () => {
  const clock = new ManualClock();
  const { server } = serverForSuite({ clock });
  let receiver: WebhookReceiver;
  /** Each test answers under its own path prefix; unmatched requests get their path back as JSON. */
  const routes = new Map<string, (index: number) => ReceiverReply>();

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.respondWith((received) => {
      const prefix = [...routes.keys()].find((candidate) => received.path.startsWith(candidate));
      const seen = receiver.on(prefix ?? received.path).length - 1;
      return prefix ? routes.get(prefix)!(seen) : json({ path: received.path });
    });
  });
  afterAll(() => receiver?.close());

  const url = (path: string) => `${receiver.origin}${path}`;

  it('fills the placeholders with the params, each encoded, and answers the provider JSON', async () => {
    routes.set('/fill/', () => json({ students: [{ name: 'Ada' }] }));
    const board = await providerBoard(server, { webhook_url: url('/fill/courses/:courseId/students/:id/:flag?term=:term&v=1') });
    const params = { courseId: 'Maths 101', id: 42, flag: true, term: 'a&b=c?d#e', unused: 'never sent' };
    const answer = await ask(server, board.id, { object_id: 'quiz-1', params });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ data: { students: [{ name: 'Ada' }] }, source: 'provider', cached: false, fetched_at: clock.now().toISOString() });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(receiver.on('/fill/').map((received) => received.path)).toEqual(['/fill/courses/Maths%20101/students/42/true?term=a%26b%3Dc%3Fd%23e&v=1']);
  });

  it.each([
    ['x?admin=1#top', 'x%3Fadmin%3D1%23top'],
    ['50%', '50%25'],
    ['%2e%2e', '%252e%252e'],
    ['..x', '..x'],
    ['été', '%C3%A9t%C3%A9'],
  ])('keeps the param %j inside its path segment (%s), the query unchanged', async (value, encoded) => {
    const prefix = `/segment-${encodeURIComponent(encoded)}/`;
    const board = await providerBoard(server, { webhook_url: url(`${prefix}users/:id/profile?fields=name`) });
    expect((await ask(server, board.id, { params: { id: value } })).status).toBe(200);
    expect(receiver.on(prefix).map((received) => received.path)).toEqual([`${prefix}users/${encoded}/profile?fields=name`]);
  });

  it.each(['../admin', '..', '.', 'a/b', 'a\\b', ''])('refuses the param %j that could climb the path (400 naming it); the provider is not called', async (value) => {
    const prefix = `/climb-${Math.random().toString(36).slice(2)}/`;
    const board = await providerBoard(server, { webhook_url: url(`${prefix}users/:id`) });
    expectErrorBody(await ask(server, board.id, { params: { id: value } }), { statusCode: 400, error: 'Bad Request', path: dataPath(board.id), field: 'params.id' });
    expect(receiver.on(prefix)).toEqual([]);
  });

  it('names every placeholder left without a value (400)', async () => {
    const board = await providerBoard(server, { webhook_url: url('/missing/courses/:courseId/students/:id?term=:term') });
    const answer = await ask(server, board.id, { params: { courseId: 'c1' } });
    expectErrorBody(answer, { statusCode: 400, error: 'Bad Request', path: dataPath(board.id), field: 'params.id' });
    expect(answer.body.details).toEqual([
      { field: 'params.id', message: 'is required by the data provider URL' },
      { field: 'params.term', message: 'is required by the data provider URL' },
    ]);
    expect(receiver.on('/missing/')).toEqual([]);
  });

  it("calls with the board's method and headers, and GET by default", async () => {
    const headers = { Authorization: 'Bearer provider-secret', 'X-Course': 'c-7', accept: 'application/vnd.course+json' };
    const posting = await providerBoard(server, { webhook_url: url('/method/post'), method: 'POST', headers });
    const getting = await providerBoard(server, { webhook_url: url('/method/get') });
    expect((await ask(server, posting.id)).status).toBe(200);
    expect((await ask(server, getting.id)).status).toBe(200);
    const [posted] = receiver.on('/method/post');
    expect(posted).toMatchObject({ method: 'POST', body: '' });
    expect(posted!.headers).toMatchObject({ authorization: 'Bearer provider-secret', 'x-course': 'c-7', accept: 'application/vnd.course+json', 'content-length': '0' });
    expect(posted!.headers['user-agent']).toMatch(/^Whiteboard-DataProvider\//);
    const [got] = receiver.on('/method/get');
    expect(got).toMatchObject({ method: 'GET', body: '' });
    expect(got!.headers).toMatchObject({ accept: 'application/json' });
    expect(got!.headers.authorization).toBeUndefined();
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['Host', { Host: 'internal.example' }, /header Host may not be set/],
    ['Transfer-Encoding', { 'transfer-encoding': 'chunked' }, /may not be set/],
    ['a value with a line break', { 'X-Note': 'a\r\nX-Injected: 1' }, /cannot be sent/],
  ])('answers 502 for a provider header the service will not send (%s); nothing is sent', async (_case, headers, message) => {
    const prefix = `/header-${Math.random().toString(36).slice(2)}/`;
    const board = await providerBoard(server, { webhook_url: url(`${prefix}data`), headers });
    expectBadGateway(await ask(server, board.id), board.id, message);
    expect(receiver.on(prefix)).toEqual([]);
  });

  it('keeps an answer for cache_ttl seconds of the server clock, per board, URL and params, then calls again', async () => {
    routes.set('/cache/', (index) => json({ call: index + 1 }));
    const board = await providerBoard(server, { webhook_url: url('/cache/items/:id'), cache_ttl: 60 });
    const first = await ask(server, board.id, { params: { id: 1 } });
    expect(first.body).toMatchObject({ data: { call: 1 }, cached: false });
    const fetchedAt = first.body.fetched_at as string;
    clock.advance(59_000);
    expect((await ask(server, board.id, { params: { id: 1 } }, board.guest)).body).toEqual({ data: { call: 1 }, source: 'provider', cached: true, fetched_at: fetchedAt });
    expect((await ask(server, board.id, { params: { id: 2 } })).body).toMatchObject({ data: { call: 2 }, cached: false });
    const other = await providerBoard(server, { webhook_url: url('/cache/items/:id'), cache_ttl: 60 });
    expect((await ask(server, other.id, { params: { id: 1 } })).body).toMatchObject({ data: { call: 3 }, cached: false });
    expect(receiver.on('/cache/')).toHaveLength(3);

    clock.advance(1_000);
    const renewed = await ask(server, board.id, { params: { id: 1 } });
    expect(renewed.body).toMatchObject({ data: { call: 4 }, cached: false, fetched_at: clock.now().toISOString() });
    expect(receiver.on('/cache/')).toHaveLength(4);
  });

  it('calls the provider on every request without a cache_ttl, and never keeps a failure', async () => {
    routes.set('/nocache-a/', (index) => (index === 0 ? json({ error: 'busy' }, 503) : json({ call: index + 1 })));
    routes.set('/nocache-b/', (index) => (index === 0 ? json({}, 500) : json({ ok: true })));
    const plain = await providerBoard(server, { webhook_url: url('/nocache-a/data') });
    const kept = await providerBoard(server, { webhook_url: url('/nocache-b/data'), cache_ttl: 600 });
    expectBadGateway(await ask(server, plain.id), plain.id, /answered HTTP 503/);
    expect((await ask(server, plain.id)).body).toMatchObject({ data: { call: 2 }, cached: false });
    expect((await ask(server, plain.id)).body).toMatchObject({ data: { call: 3 }, cached: false });
    expectBadGateway(await ask(server, kept.id), kept.id, /answered HTTP 500/);
    expect((await ask(server, kept.id)).body).toMatchObject({ data: { ok: true }, cached: false });
    expect((await ask(server, kept.id)).body).toMatchObject({ data: { ok: true }, cached: true });
    expect(receiver.on('/nocache-b/')).toHaveLength(2);
  });

  it('answers 10 concurrent identical requests with one provider call', async () => {
    // Held long enough for every request to pass authentication and join the call in flight.
    routes.set('/flight/', () => ({ ...json({ shared: true }), delayMs: 750 }));
    const board = await providerBoard(server, { webhook_url: url('/flight/:id') });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => ask(server, board.id, { params: { id: 'same' } }, index % 2 ? board.guest : null)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    expect(receiver.on('/flight/')).toHaveLength(1);
  });

  it('answers the mock on a sandbox board, or on a board with no provider, and never calls out', async () => {
    const mock = { students: [{ name: 'Mock student' }] };
    const sandbox = await providerBoard(server, { webhook_url: url('/sandbox/data') }, { is_sandbox: true, mock_external_data: mock });
    const mockOnly = await providerBoard(server, null, { mock_external_data: mock });
    for (const board of [sandbox, mockOnly]) {
      expect((await ask(server, board.id, { params: { id: 1 } }, board.guest)).body).toEqual({ data: mock, source: 'mock', cached: false, fetched_at: clock.now().toISOString() });
    }
    expect(receiver.on('/sandbox/')).toEqual([]);
    const live = await providerBoard(server, { webhook_url: url('/sandbox/live') }, { mock_external_data: mock });
    expect((await ask(server, live.id)).body).toMatchObject({ data: { path: '/sandbox/live' }, source: 'provider' });
  });

  it('answers 404 for a board with neither a data provider nor mock data', async () => {
    const board = await providerBoard(server, null, { is_sandbox: true });
    const answer = await ask(server, board.id);
    expectErrorBody(answer, { statusCode: 404, error: 'Not Found', path: dataPath(board.id) });
    expect(answer.body.message).toMatch(/no data provider and no mock data/);
  });

  it.each<[string, ReceiverReply, RegExp]>([
    ['an HTML answer', { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>hello</p>' }, /answered text\/html, not JSON/],
    ['a JSON content type on a body that is not JSON', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"a":' }, /not valid JSON/],
    ['an empty body', { status: 200, headers: { 'content-type': 'application/json' }, body: '' }, /not valid JSON/],
    ['a server error', json({ error: 'down' }, 500), /answered HTTP 500/],
    ['a redirect (never followed)', { status: 302, headers: { location: '/status/target' }, body: '' }, /answered HTTP 302 \(redirects are not followed\)/],
    ['an answer over 1 MiB', json('x'.repeat(1_048_576)), /larger than 1 MiB/],
    ['an answer nested too deep', { status: 200, headers: { 'content-type': 'application/json' }, body: `${'['.repeat(65)}${']'.repeat(65)}` }, /deeper than 64 levels/],
    ['a connection closed without an answer', { close: true }, /could not be reached/],
  ])('answers 502 Bad Gateway for %s', async (_case, reply, message) => {
    const prefix = `/status-${Math.random().toString(36).slice(2)}/`;
    routes.set(prefix, () => reply);
    const board = await providerBoard(server, { webhook_url: url(`${prefix}data`), cache_ttl: 60 });
    expectBadGateway(await ask(server, board.id), board.id, message);
    expect(receiver.on(prefix)).toHaveLength(1);
    expect(receiver.on('/status/target')).toEqual([]);
  });

  it('stops reading an endless answer at 1 MiB (502)', async () => {
    let written = 0;
    const endless = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && written < 64 * 1_048_576 && res.write(chunk)) written += chunk.length;
        if (!res.destroyed && written < 64 * 1_048_576) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const board = await providerBoard(server, { webhook_url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/endless` });
      expectBadGateway(await ask(server, board.id), board.id, /larger than 1 MiB/);
      expect(written).toBeLessThan(16 * 1_048_576);
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it("lets the board's host and guest tokens and the organization's key ask; refuses other organizations and boards", async () => {
    const board = await providerBoard(server, { webhook_url: url('/access/data') });
    const elsewhere = await providerBoard(server, { webhook_url: url('/access/elsewhere') });
    for (const token of [board.host, board.guest, null]) expect((await ask(server, board.id, {}, token)).status).toBe(200);
    const other = await server.newOrganization();
    const foreign = await request(server.url, 'POST', dataPath(board.id), {}, { 'x-api-key': other.apiKey });
    expectErrorBody(foreign, { statusCode: 403, error: 'Forbidden', path: dataPath(board.id) });
    expectErrorBody(await ask(server, board.id, {}, elsewhere.guest), { statusCode: 403, error: 'Forbidden', path: dataPath(board.id) });
    expectErrorBody(await request(server.url, 'POST', dataPath(board.id), {}), { statusCode: 401, error: 'Unauthorized', path: dataPath(board.id) });
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectErrorBody(await ask(server, unknown), { statusCode: 404, error: 'Not Found', path: dataPath(unknown) });
    expect(receiver.on('/access/data')).toHaveLength(3);
  });

  it.each<[string, unknown, string]>([
    ['more than 50 params', { params: Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`p${index}`, index])) }, 'params'],
    ['a value over 1,000 characters', { params: { id: 'x'.repeat(1_001) } }, 'params.id'],
    ['an object value', { params: { id: { nested: true } } }, 'params.id'],
    ['a null value', { params: { id: null } }, 'params.id'],
    ['an unknown field', { object_id: 'o', extra: 1 }, 'extra'],
    ['a non-string object_id', { object_id: 7 }, 'object_id'],
  ])('refuses a body with %s (400)', async (_case, body, field) => {
    const board = await providerBoard(server, { webhook_url: url('/invalid/:id') });
    expectErrorBody(await ask(server, board.id, body), { statusCode: 400, error: 'Bad Request', path: dataPath(board.id), field });
  });

  it('refuses a number that is not finite (1e400)', async () => {
    const board = await providerBoard(server, { webhook_url: url('/infinite/:id') });
    const answer = await request(server.url, 'POST', dataPath(board.id), '{"params":{"id":1e400}}', { 'x-api-key': server.apiKey, 'content-type': 'application/json' });
    expect(answer.status).toBe(400);
    expect(receiver.on('/infinite/')).toEqual([]);
  });
});

/** A server started with shortened data provider limits (AppOptions.dataProvider), and its organization's key. */
async function startLimitedServer(limits: { timeoutMs: number; maxInFlightPerBoard: number }) {
  const database: TestDatabase = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0' });
  const app: App = await startApp({ config, dataProvider: limits });
  const { apiKey } = await app.organizations.create({ name: 'Data provider limits', plan: 'professional' });
  const api = (method: string, path: string, body?: unknown) => request(app.url, method, `/api/v1${path}`, body, { 'x-api-key': apiKey });
  return { app, api, close: async () => (await app.close(), await database.drop()) };
}

describe('data provider limits', () => {
  let limited: Awaited<ReturnType<typeof startLimitedServer>>;
  let silent: WebhookReceiver;
  beforeAll(async () => {
    limited = await startLimitedServer({ timeoutMs: 1_000, maxInFlightPerBoard: 3 });
    silent = await startWebhookReceiver();
    silent.setDefault({ delayMs: 60_000 });
  });
  afterAll(async () => {
    await silent?.close();
    await limited?.close();
  });

  const silentBoard = async () => {
    const created = await limited.api('POST', '/boards', { title: 'Silent', data_provider: { type: 'webhook', webhook_url: `${silent.origin}/silent/:id` } });
    expect(created.status).toBe(201);
    return created.body.board_uuid as string;
  };

  it('answers 502 once a provider that never answers has had its time', async () => {
    const boardId = await silentBoard();
    const started = performance.now();
    const answer = await limited.api('POST', `/boards/${boardId}/component-data`, { params: { id: 'slow' } });
    const elapsed = performance.now() - started;
    expectBadGateway(answer, boardId, /did not answer within 1 s/);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(4_000);
  });

  it("refuses (429) a call past the board's calls in flight; an identical request joins instead", async () => {
    const boardId = await silentBoard();
    const asking = (id: string) => limited.api('POST', `/boards/${boardId}/component-data`, { params: { id } });
    const first = [asking('a'), asking('b'), asking('c')];
    // These three only: the receiver also holds the earlier test's call, which must not count.
    await silent.waitFor(3, (received) => ['/silent/a', '/silent/b', '/silent/c'].includes(received.path));
    const [refused, joined] = await Promise.all([asking('d'), asking('a')]);
    expect(refused.status).toBe(429);
    expect(refused.body.retryAfter).toBe(1);
    expectBadGateway(joined, boardId, /did not answer/);
    expect((await Promise.all(first)).map((answer) => answer.status)).toEqual([502, 502, 502]);
    expect(silent.on('/silent/d')).toEqual([]);
  });
});

/** The machine's own name, when it resolves only to addresses a production provider may not reach. */
async function privateHostname(): Promise<string | null> {
  try {
    const addresses = await lookup(hostname(), { all: true });
    return addresses.length > 0 && addresses.every((entry) => !isPublicAddress(entry.address)) ? hostname() : null;
  } catch {
    return null;
  }
}
const localName = await privateHostname();

describe('in production (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  const servers = restartsForSuite();
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.setDefault(json({ ok: true }));
  });
  afterAll(() => receiver?.close());

  it('refuses a loopback provider saved while private targets were allowed (502); nothing reaches it', async () => {
    const development = await servers.restart();
    const board = await providerBoard(development, { webhook_url: `${receiver.origin}/private/:id` });
    expect((await ask(development, board.id, { params: { id: 1 } }, board.guest)).status).toBe(200);
    const production = await servers.restart({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    expectBadGateway(await ask(production, board.id, { params: { id: 2 } }, board.guest), board.id, /address is not allowed/);
    expect(receiver.on('/private/').map((received) => received.path)).toEqual(['/private/1']);
  });

  it.runIf(localName)('refuses a public-looking name that resolves to a private address when connecting; no connection is made', async () => {
    let connections = 0;
    const listener = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '::', resolve));
    try {
      const production = await servers.restart({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
      const port = (listener.address() as AddressInfo).port;
      const board = await providerBoard(production, { webhook_url: `https://${localName}:${port}/data/:id` });
      expectBadGateway(await ask(production, board.id, { params: { id: 1 } }), board.id, /address is not allowed/);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
