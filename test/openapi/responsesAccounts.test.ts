import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { organizationCaller, QUIZ_SCHEMA, serverForSuite } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';
import { asBearer, MISSING_ID, DocumentedApi } from './documentedApi.js';
import { RESPONSE_SUITES } from './openApiTestKit.js';

/**
 * Every operation of the organization-wide tags (admin, users, organizations, quota, webhooks,
 * object types, this document), called on the real server: each answer's status is one the
 * document lists for it, and its body validates against that status's schema with no
 * undocumented field (documentedApi.ts).
 */
const TAGS = RESPONSE_SUITES['responsesAccounts.test.ts']!;
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const suite = serverForSuite({ env: { ADMIN_TOKEN, ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) } });
// The suite's server is a stand-in until beforeAll starts it; the API reads it per call.
const api = new DocumentedApi(suite.server);

const asAdmin = asBearer(ADMIN_TOKEN);

describe('the admin, user, organization and quota endpoints answer as documented', () => {
  it('creates organizations and users, logs in, refreshes, regenerates keys and reports quotas', async () => {
    const organization = await api.call('POST /admin/organizations', { ...asAdmin, body: { name: 'Acme', plan: 'starter' } });
    expect(organization.status).toBe(201);
    const organizationId = organization.body.id as string;
    expect((await api.call('PATCH /admin/organizations/{organizationId}', { ...asAdmin, params: { organizationId }, body: { plan: 'business' } })).body.plan).toBe('business');
    const email = `user-${randomBytes(6).toString('hex')}@example.com`;
    const user = { email, password: 'correct horse battery', organizationId };
    expect((await api.call('POST /admin/users', { ...asAdmin, body: user })).status).toBe(201);
    const login = await api.call('POST /auth/login', { anonymous: true, body: { email, password: user.password } });
    expect(login.status).toBe(200);
    const refreshed = await api.call('POST /auth/refresh', { anonymous: true, body: { refresh_token: login.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    const asUser = asBearer(refreshed.body.accessToken as string);
    expect((await api.call('GET /organizations', asUser)).body.organizations).toEqual([expect.objectContaining({ id: organizationId })]);
    expect((await api.call('GET /organizations')).status).toBe(200);
    expect((await api.call('GET /quota', asUser)).body.plan).toBe('business');
    expect((await api.call('GET /quota')).status).toBe(200);
    expect((await api.call('GET /quota/{type}', { params: { type: 'boards' } })).status).toBe(200);
    const regenerated = await api.call('PATCH /organizations/{organizationId}/regenerate-api-key', { ...asUser, params: { organizationId } });
    expect(regenerated.body.apiKey).toEqual(expect.any(String));

    expect((await api.call('POST /admin/organizations', { ...asAdmin, body: { name: 'Acme', plan: 'gold' } })).status).toBe(400);
    expect((await api.call('PATCH /admin/organizations/{organizationId}', { ...asBearer('wrong'), params: { organizationId }, body: { plan: 'starter' } })).status).toBe(401);
    expect((await api.call('POST /admin/users', { ...asAdmin, body: user })).status).toBe(409);
    expect((await api.call('POST /auth/login', { anonymous: true, body: { email, password: 'wrong password' } })).status).toBe(401);
    expect((await api.call('POST /auth/login', { anonymous: true, body: {} })).status).toBe(400);
    expect((await api.call('POST /auth/refresh', { anonymous: true, body: { refresh_token: login.body.refresh_token } })).status).toBe(401);
    expect((await api.call('PATCH /organizations/{organizationId}/regenerate-api-key', { params: { organizationId } })).status).toBe(403);
    const unknownType = await api.call('GET /quota/{type}', { params: { type: 'parrots' } });
    expect(unknownType.body.validTypes).toContain('boards');
  });
});

describe('the webhook endpoints answer as documented', () => {
  it('subscribes, lists, reads, changes, counts and deletes subscriptions, and logs deliveries', async () => {
    const created = await api.call('POST /webhooks/subscriptions', { body: { url: 'http://127.0.0.1:9/hook', events: ['board.*'], description: 'All board events' } });
    expect(created.status).toBe(201);
    const subscriptionId = created.body.id as string;
    await suite.server.api('POST', '/boards', { title: 'Raises board.created' });
    const deliveries = await eventually(async () => {
      const listed = await api.call('GET /webhooks/deliveries', { query: { subscription_id: subscriptionId } });
      return (listed.body as unknown[]).length > 0 ? listed.body : null;
    });
    expect(deliveries[0]).toMatchObject({ event: 'board.created' });
    expect((await api.call('GET /webhooks/subscriptions')).body).toHaveLength(1);
    expect((await api.call('GET /webhooks/subscriptions/{subscriptionId}', { params: { subscriptionId } })).status).toBe(200);
    expect((await api.call('PATCH /webhooks/subscriptions/{subscriptionId}', { params: { subscriptionId }, body: { is_active: false } })).body.is_active).toBe(false);
    expect((await api.call('GET /webhooks/subscriptions/{subscriptionId}/stats', { params: { subscriptionId } })).status).toBe(200);

    const other = await organizationCaller(suite.server, 'professional');
    const foreign = { params: { subscriptionId }, headers: { 'x-api-key': other.apiKey } };
    expect((await api.call('GET /webhooks/subscriptions/{subscriptionId}', foreign)).status).toBe(403);
    expect((await api.call('GET /webhooks/subscriptions/{subscriptionId}/stats', foreign)).status).toBe(403);
    expect((await api.call('PATCH /webhooks/subscriptions/{subscriptionId}', { ...foreign, body: { is_active: true } })).status).toBe(403);
    expect((await api.call('DELETE /webhooks/subscriptions/{subscriptionId}', foreign)).status).toBe(403);
    expect((await api.call('GET /webhooks/deliveries', { query: { status: 'lost' } })).status).toBe(400);
    expect((await api.call('DELETE /webhooks/subscriptions/{subscriptionId}', { params: { subscriptionId } })).status).toBe(204);
    expect((await api.call('GET /webhooks/subscriptions/{subscriptionId}', { params: { subscriptionId } })).status).toBe(404);
    expect((await api.call('POST /webhooks/subscriptions', { body: {} })).status).toBe(400);
    const starter = await organizationCaller(suite.server, 'starter');
    const refused = await api.call('POST /webhooks/subscriptions', { body: { url: 'http://127.0.0.1:9/hook' }, headers: { 'x-api-key': starter.apiKey } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ quotaType: 'webhooks_daily' });
    expect((await api.call('GET /webhooks/subscriptions', { headers: { 'x-api-key': 'wb_not_a_key' } })).status).toBe(401);
  });
});

describe('the object-type endpoints answer as documented', () => {
  it('registers, lists and reads object types', async () => {
    const quiz = { typeName: 'quiz', displayName: 'Quiz', category: 'assessment', schema: QUIZ_SCHEMA };
    expect((await api.call('POST /object-types', { body: quiz })).status).toBe(201);
    expect((await api.call('POST /object-types', { body: quiz })).status).toBe(409);
    expect((await api.call('POST /object-types', { body: { ...quiz, typeName: 'broken', schema: { type: 'nonsense' } } })).status).toBe(400);
    expect((await api.call('GET /object-types')).body).toHaveLength(1);
    expect((await api.call('GET /object-types/{typeName}', { params: { typeName: 'quiz' } })).status).toBe(200);
    expect((await api.call('GET /object-types/{typeName}', { params: { typeName: MISSING_ID } })).status).toBe(404);
  });
});

describe('the document covers what these tags answer', () => {
  it('serves itself as documented', async () => {
    const document = await api.call('GET /openapi.json', { anonymous: true });
    expect(document.body.openapi).toBe('3.1.0');
  });

  it('refuses every operation that needs a credential without one (401)', async () => {
    const statuses = await api.callEachWithoutCredential(TAGS);
    expect(statuses.size).toBeGreaterThan(0);
    expect([...statuses].filter(([, status]) => status !== 401)).toEqual([]);
  });

  it('drove every operation of its tags to a documented answer and a documented refusal', () => {
    expect(api.neverAnswered(TAGS)).toEqual([]);
    expect(api.neverRefused(TAGS)).toEqual([]);
  });
});
