import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/testDatabase.js';
import { request, startTestServer, type ApiResponse, type TestServer } from './helpers/testServer.js';

const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Asserts the spec's error body (SPEC Errors) with the given status. */
function expectSpecError(response: ApiResponse, statusCode: number, error: string): void {
  expect(response.status).toBe(statusCode);
  expect(response.body).toMatchObject({ statusCode, error });
  expect(typeof response.body.message === 'string' || Array.isArray(response.body.message)).toBe(true);
  expect(Number.isNaN(Date.parse(response.body.timestamp))).toBe(false);
}

describe('health and readiness', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

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
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 404 with the spec error body on every admin route, whatever the bearer', async () => {
    const calls: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/admin/organizations', { name: 'Acme', plan: 'starter' }],
      ['PATCH', `/api/v1/admin/organizations/${server.organizationId}`, { plan: 'business' }],
      ['POST', '/api/v1/admin/users', { email: 'a@example.com', password: 'long-enough', organizationId: server.organizationId }],
    ];
    for (const [method, path, body] of calls) {
      expectSpecError(await request(server.url, method, path, body), 404, 'Not Found');
      expectSpecError(await request(server.url, method, path, body, { authorization: 'Bearer anything' }), 404, 'Not Found');
    }
  });
});

describe('admin API with ADMIN_TOKEN', () => {
  let server: TestServer;
  const adminCall = (method: string, path: string, body?: unknown, headers: Record<string, string> = admin) =>
    request(server.url, method, `/api/v1/admin${path}`, body, headers);

  beforeAll(async () => {
    server = await startTestServer({ env: { ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 401 to a missing, wrong or non-bearer credential', async () => {
    const body = { name: 'Nope' };
    expectSpecError(await adminCall('POST', '/organizations', body, {}), 401, 'Unauthorized');
    expectSpecError(await adminCall('POST', '/organizations', body, { authorization: 'Bearer wrong-token' }), 401, 'Unauthorized');
    expectSpecError(await adminCall('POST', '/organizations', body, { authorization: `Basic ${ADMIN_TOKEN}` }), 401, 'Unauthorized');
    expectSpecError(await adminCall('POST', '/organizations', body, { authorization: `Bearer ${ADMIN_TOKEN}x` }), 401, 'Unauthorized');
    expectSpecError(await adminCall('POST', '/organizations', body, { 'x-api-key': server.apiKey }), 401, 'Unauthorized');
    expectSpecError(await adminCall('PATCH', `/organizations/${server.organizationId}`, { plan: 'starter' }, {}), 401, 'Unauthorized');
    expectSpecError(await adminCall('POST', '/users', { email: 'x@example.com', password: 'long-enough', organizationId: server.organizationId }, {}), 401, 'Unauthorized');
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
    expectSpecError(madeUp, 401, 'Unauthorized');
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
    expectSpecError(await adminCall('POST', '/organizations', { name: 'Acme', plan: 'platinum' }), 400, 'Bad Request');
    expectSpecError(await adminCall('POST', '/organizations', { plan: 'starter' }), 400, 'Bad Request');
    expectSpecError(await adminCall('POST', '/organizations', { name: '' }), 400, 'Bad Request');
    expectSpecError(await adminCall('POST', '/organizations', { name: 42 }), 400, 'Bad Request');
    expectSpecError(await adminCall('POST', '/organizations', '{"name": '), 400, 'Bad Request');
    const missing = await adminCall('POST', '/organizations', {});
    expect(missing.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name' })]));
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
    expectSpecError(await adminCall('PATCH', '/organizations/00000000-0000-4000-8000-000000000000', { plan: 'starter' }), 404, 'Not Found');
    expectSpecError(await adminCall('PATCH', '/organizations/not-an-id', { plan: 'starter' }), 404, 'Not Found');
    expectSpecError(await adminCall('PATCH', `/organizations/${server.organizationId}`, { plan: 'gold' }), 400, 'Bad Request');
    expectSpecError(await adminCall('PATCH', `/organizations/${server.organizationId}`, {}), 400, 'Bad Request');
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
      expectSpecError(await adminCall('POST', '/users', body), 409, 'Conflict');
      expectSpecError(await adminCall('POST', '/users', { ...body, email: 'Grace@Example.COM' }), 409, 'Conflict');
    });

    it('answers 404 when the organization does not exist', async () => {
      const response = await adminCall('POST', '/users', {
        email: 'orphan@example.com',
        password: 'long-enough',
        organizationId: '00000000-0000-4000-8000-000000000000',
      });
      expectSpecError(response, 404, 'Not Found');
    });

    it('answers 400 to a short password, a bad email or a missing field', async () => {
      const valid = { email: 'valid@example.com', password: 'long-enough', organizationId };
      const shortPassword = await adminCall('POST', '/users', { ...valid, password: 'short' });
      expectSpecError(shortPassword, 400, 'Bad Request');
      expect(shortPassword.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'password' })]));
      const badEmail = await adminCall('POST', '/users', { ...valid, email: 'not-an-email' });
      expectSpecError(badEmail, 400, 'Bad Request');
      expect(badEmail.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'email' })]));
      expectSpecError(await adminCall('POST', '/users', { email: valid.email, password: valid.password }), 400, 'Bad Request');
      // None of the refused requests created the user.
      expect((await adminCall('POST', '/users', valid)).status).toBe(201);
    });
  });
});

describe('BOOTSTRAP_API_KEY and BOOTSTRAP_PLAN', () => {
  const key = `bootstrap-${randomBytes(24).toString('hex')}`;
  let database: TestDatabase;
  let server: TestServer | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('accepts the bootstrap key and puts its organization on BOOTSTRAP_PLAN', async () => {
    server = await startTestServer({ database, env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_PLAN: 'business' } });
    const list = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': key });
    expect(list.status).toBe(200);
    const created = await request(server.url, 'POST', '/api/v1/boards', { title: 'Bootstrapped' }, { 'x-api-key': key });
    expect(created.status).toBe(201);
    expect((await server.app.organizations.authenticate(key))?.plan).toBe('business');
    expect(server.app.developmentApiKey).toBeNull();
  });

  it('reuses the same organization on restart and applies a changed BOOTSTRAP_PLAN', async () => {
    await server?.stop();
    server = await startTestServer({ database, env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_PLAN: 'starter' } });
    const list = await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': key });
    expect(list.status).toBe(200);
    expect(list.body.map((board: { title: string }) => board.title)).toEqual(['Bootstrapped']);
    expect((await server.app.organizations.authenticate(key))?.plan).toBe('starter');
  });

  it('defaults the bootstrap organization to the professional plan', async () => {
    await server?.stop();
    const other = `bootstrap-${randomBytes(24).toString('hex')}`;
    server = await startTestServer({ database, env: { BOOTSTRAP_API_KEY: other } });
    expect((await request(server.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': other })).status).toBe(200);
    expect((await server.app.organizations.authenticate(other))?.plan).toBe('professional');
  });

  it('refuses to start with a BOOTSTRAP_PLAN that is not a plan', async () => {
    await server?.stop();
    server = undefined;
    await expect(startTestServer({ database, env: { BOOTSTRAP_API_KEY: key, BOOTSTRAP_PLAN: 'gold' } })).rejects.toThrow(/BOOTSTRAP_PLAN/);
  });
});
