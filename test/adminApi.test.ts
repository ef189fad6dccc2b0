import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverForSuite, restartsForSuite } from './helpers/fixtures.js';
import { expectErrorBody } from './helpers/assertions.js';
import { request, startTestServer, type TestServer } from './helpers/testServer.js';

const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('health and readiness', () => {
  const { server } = serverForSuite();

  it('GET /health answers 200 {"status":"ok"} without credentials', async () => {
    const response = await request(server.url, 'GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('GET /ready answers 200 and reports the database ok', async () => {
    const response = await request(server.url, 'GET', '/ready');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok', database: 'ok' });
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  const { server } = serverForSuite();

  it('answers 404 with the API error body on every admin route, whatever the bearer', async () => {
    const calls: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/admin/organizations', { name: 'Acme', plan: 'starter' }],
      ['PATCH', `/api/v1/admin/organizations/${server.organizationId}`, { plan: 'business' }],
      ['POST', '/api/v1/admin/users', { email: 'a@example.com', password: 'long-enough', organizationId: server.organizationId }],
    ];
    for (const [method, path, body] of calls) {
      const notFound = { statusCode: 404, error: 'Not Found', path };
      expectErrorBody(await request(server.url, method, path, body), notFound);
      expectErrorBody(await request(server.url, method, path, body, { authorization: 'Bearer anything' }), notFound);
    }
  });
});

describe('admin API with ADMIN_TOKEN', () => {
  let server: TestServer;
  const adminCall = (method: string, path: string, body?: unknown, headers: Record<string, string> = admin) =>
    request(server.url, method, `/api/v1/admin${path}`, body, headers);
  /** The error body an admin call to `path` must answer with (`field`: a validation error naming it). */
  const adminError = (statusCode: number, error: string, path: string, field?: string) => ({
    statusCode,
    error,
    path: `/api/v1/admin${path}`,
    field,
  });

  beforeAll(async () => {
    server = await startTestServer({ env: { ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 401 to a missing, wrong or non-bearer credential', async () => {
    const body = { name: 'Nope' };
    expectErrorBody(await adminCall('POST', '/organizations', body, {}), adminError(401, 'Unauthorized', '/organizations'));
    expectErrorBody(await adminCall('POST', '/organizations', body, { authorization: 'Bearer wrong-token' }), adminError(401, 'Unauthorized', '/organizations'));
    expectErrorBody(await adminCall('POST', '/organizations', body, { authorization: `Basic ${ADMIN_TOKEN}` }), adminError(401, 'Unauthorized', '/organizations'));
    expectErrorBody(await adminCall('POST', '/organizations', body, { authorization: `Bearer ${ADMIN_TOKEN}x` }), adminError(401, 'Unauthorized', '/organizations'));
    expectErrorBody(await adminCall('POST', '/organizations', body, { 'x-api-key': server.apiKey }), adminError(401, 'Unauthorized', '/organizations'));
    expectErrorBody(await adminCall('PATCH', `/organizations/${server.organizationId}`, { plan: 'starter' }, {}), adminError(401, 'Unauthorized', `/organizations/${server.organizationId}`));
    expectErrorBody(await adminCall('POST', '/users', { email: 'x@example.com', password: 'long-enough', organizationId: server.organizationId }, {}), adminError(401, 'Unauthorized', '/users'));
  });

  it('creates an organization whose API key works on the Boards API, while a made-up key is refused', async () => {
    const created = await adminCall('POST', '/organizations', { name: 'Acme School', plan: 'business' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'Acme School', plan: 'business', apiKey: expect.any(String) });
    expect(created.body.apiKey.length).toBeGreaterThanOrEqual(32);

    const boards = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': created.body.apiKey });
    expect(boards.status).toBe(200);
    expect(boards.body).toEqual([]);

    const madeUp = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': `wb_${randomBytes(32).toString('base64url')}` });
    expectErrorBody(madeUp, { statusCode: 401, error: 'Unauthorized', path: '/api/v1/boards' });
  });

  it('keeps each admin-created organization apart: boards of one are not listed for another', async () => {
    const first = await adminCall('POST', '/organizations', { name: 'First' });
    const second = await adminCall('POST', '/organizations', { name: 'Second' });
    expect(first.body.apiKey).not.toBe(second.body.apiKey);
    const board = await request(server.url, 'POST', '/api/v1/boards', { title: 'Mine' }, { 'x-api-key': first.body.apiKey });
    expect(board.status).toBe(201);
    const list = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': second.body.apiKey });
    expect(list.body).toEqual([]);
  });

  it('puts a new organization on the professional plan when no plan is given', async () => {
    const created = await adminCall('POST', '/organizations', { name: 'Default plan' });
    expect(created.status).toBe(201);
    expect(created.body.plan).toBe('professional');
  });

  it('answers 400 to an unknown plan, a missing or empty name, and malformed JSON', async () => {
    expectErrorBody(await adminCall('POST', '/organizations', { name: 'Acme', plan: 'platinum' }), adminError(400, 'Bad Request', '/organizations', 'plan'));
    expectErrorBody(await adminCall('POST', '/organizations', { plan: 'starter' }), adminError(400, 'Bad Request', '/organizations', 'name'));
    expectErrorBody(await adminCall('POST', '/organizations', { name: '' }), adminError(400, 'Bad Request', '/organizations', 'name'));
    expectErrorBody(await adminCall('POST', '/organizations', { name: 42 }), adminError(400, 'Bad Request', '/organizations', 'name'));
    expectErrorBody(await adminCall('POST', '/organizations', '{"name": '), adminError(400, 'Bad Request', '/organizations'));
    const missing = await adminCall('POST', '/organizations', {});
    expectErrorBody(missing, adminError(400, 'Bad Request', '/organizations', 'name'));
  });

  it("changes an organization's plan and answers {id, name, plan}", async () => {
    const created = await adminCall('POST', '/organizations', { name: 'Upgrader', plan: 'starter' });
    const changed = await adminCall('PATCH', `/organizations/${created.body.id}`, { plan: 'enterprise' });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ id: created.body.id, name: 'Upgrader', plan: 'enterprise' });
    // The key keeps working after the change.
    const boards = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': created.body.apiKey });
    expect(boards.status).toBe(200);
  });

  it('answers 404 to a plan change of an unknown organization and 400 to a bad plan', async () => {
    for (const path of ['/organizations/00000000-0000-4000-8000-000000000000', '/organizations/not-an-id']) {
      expectErrorBody(await adminCall('PATCH', path, { plan: 'starter' }), adminError(404, 'Not Found', path));
    }
    const existing = `/organizations/${server.organizationId}`;
    expectErrorBody(await adminCall('PATCH', existing, { plan: 'gold' }), adminError(400, 'Bad Request', existing, 'plan'));
    expectErrorBody(await adminCall('PATCH', existing, {}), adminError(400, 'Bad Request', existing, 'plan'));
  });

  describe('users', () => {
    let organizationId: string;
    beforeAll(async () => {
      organizationId = (await adminCall('POST', '/organizations', { name: 'With users' })).body.id;
    });

    it('creates a user and answers {id, email, organizationId} without echoing the password', async () => {
      const password = 'correct horse battery staple';
      const created = await adminCall('POST', '/users', { email: 'ada@example.com', password, organizationId, name: 'Ada' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ id: expect.any(String), email: 'ada@example.com', organizationId });
      expect(JSON.stringify(created.body)).not.toContain(password);
    });

    it('creates a user without a name', async () => {
      const created = await adminCall('POST', '/users', { email: 'noname@example.com', password: 'long-enough', organizationId });
      expect(created.status).toBe(201);
      expect(created.body.organizationId).toBe(organizationId);
    });

    it('answers 409 to a duplicate email, also when only its case differs', async () => {
      const body = { email: 'grace@example.com', password: 'long-enough', organizationId };
      expect((await adminCall('POST', '/users', body)).status).toBe(201);
      expectErrorBody(await adminCall('POST', '/users', body), adminError(409, 'Conflict', '/users'));
      expectErrorBody(await adminCall('POST', '/users', { ...body, email: 'Grace@Example.COM' }), adminError(409, 'Conflict', '/users'));
    });

    it('answers 404 when the organization does not exist', async () => {
      const response = await adminCall('POST', '/users', {
        email: 'orphan@example.com',
        password: 'long-enough',
        organizationId: '00000000-0000-4000-8000-000000000000',
      });
      expectErrorBody(response, adminError(404, 'Not Found', '/users'));
    });

    it('answers 400 to a short password, a bad email or a missing field', async () => {
      const valid = { email: 'valid@example.com', password: 'long-enough', organizationId };
      const shortPassword = await adminCall('POST', '/users', { ...valid, password: 'short' });
      expectErrorBody(shortPassword, adminError(400, 'Bad Request', '/users', 'password'));
      const badEmail = await adminCall('POST', '/users', { ...valid, email: 'not-an-email' });
      expectErrorBody(badEmail, adminError(400, 'Bad Request', '/users', 'email'));
      expectErrorBody(await adminCall('POST', '/users', { email: valid.email, password: valid.password }), adminError(400, 'Bad Request', '/users', 'organizationId'));
      // None of the refused requests created the user.
      expect((await adminCall('POST', '/users', valid)).status).toBe(201);
    });
  });
});

describe('BOOTSTRAP_API_KEY and BOOTSTRAP_PLAN', () => {
  const key = `bootstrap-${randomBytes(24).toString('hex')}`;
  const servers = restartsForSuite();

  it('accepts the bootstrap key and puts its organization on BOOTSTRAP_PLAN', async () => {
    const server = await servers.restart({ env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_PLAN: 'business' } });
    const list = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': key });
    expect(list.status).toBe(200);
    const created = await request(server.url, 'POST', '/api/v1/boards', { title: 'Bootstrapped' }, { 'x-api-key': key });
    expect(created.status).toBe(201);
    expect((await server.app.organizations.authenticate(key))?.plan).toBe('business');
    expect(server.app.developmentApiKey).toBeNull();
  });

  it('reuses the same organization on restart and applies a changed BOOTSTRAP_PLAN', async () => {
    const server = await servers.restart({ env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_PLAN: 'starter' } });
    const list = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': key });
    expect(list.status).toBe(200);
    expect(list.body.map((board: { title: string }) => board.title)).toEqual(['Bootstrapped']);
    expect((await server.app.organizations.authenticate(key))?.plan).toBe('starter');
  });

  it('defaults the bootstrap organization to the professional plan', async () => {
    const other = `bootstrap-${randomBytes(24).toString('hex')}`;
    const server = await servers.restart({ env: { BOOTSTRAP_API_KEY: other } });
    expect((await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': other })).status).toBe(200);
    expect((await server.app.organizations.authenticate(other))?.plan).toBe('professional');
  });

  it('refuses to start with a BOOTSTRAP_PLAN that is not a plan', async () => {
    await expect(servers.restart({ env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_PLAN: 'gold' } })).rejects.toThrow(/BOOTSTRAP_PLAN/);
  });
});
