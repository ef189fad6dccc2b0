import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { request } from '../helpers/testServer.js';
import { ADMIN_TOKEN, bearer, call, createUser, loginAs, usersEnv } from './userSessions.js';

const { server } = serverForSuite({ env: usersEnv() });
const withKey = (apiKey: string) => ({ 'x-api-key': apiKey });
const regeneratePath = (id: string) => `/organizations/${id}/regenerate-api-key`;

describe('GET /organizations', () => {
  it('lists the organization of the API key', async () => {
    const response = await call(server, 'GET', '/organizations', undefined, withKey(server.apiKey));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ organizations: [{ id: server.organizationId, name: 'Test organization', plan: 'professional' }] });
  });

  it('lists the organization of the user of a JWT', async () => {
    const other = await server.newOrganization('starter');
    const user = await createUser(server, other.organizationId);
    const { accessToken } = await loginAs(server, user);
    const response = await call(server, 'GET', '/organizations', undefined, bearer(accessToken));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ organizations: [{ id: other.organizationId, name: 'Other organization', plan: 'starter' }] });
  });

  it('shows a plan change at once to a JWT issued before it', async () => {
    const other = await server.newOrganization('starter');
    const { accessToken } = await loginAs(server, await createUser(server, other.organizationId));
    const changed = await request(server.url, 'PATCH', `/api/v1/admin/organizations/${other.organizationId}`, { plan: 'business' }, bearer(ADMIN_TOKEN));
    expect(changed.status).toBe(200);
    const response = await call(server, 'GET', '/organizations', undefined, bearer(accessToken));
    expect(response.body.organizations[0].plan).toBe('business');
  });

  it('answers 401 without a credential or with an unknown key', async () => {
    const path = '/api/v1/organizations';
    expectErrorBody(await call(server, 'GET', '/organizations'), { statusCode: 401, error: 'Unauthorized', path });
    expectErrorBody(await call(server, 'GET', '/organizations', undefined, withKey('wb_unknown')), { statusCode: 401, error: 'Unauthorized', path });
  });
});

describe('PATCH /organizations/<id>/regenerate-api-key', () => {
  it('answers a new key that works, while the old key is refused from that moment on', async () => {
    const { apiKey: oldKey, organizationId } = await server.newOrganization();
    const board = await call(server, 'POST', '/boards', { title: 'Kept' }, withKey(oldKey));
    expect(board.status).toBe(201);

    const response = await call(server, 'PATCH', regeneratePath(organizationId), undefined, withKey(oldKey));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: organizationId, name: 'Other organization', plan: 'professional', apiKey: expect.stringMatching(/^wb_/) });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const newKey = response.body.apiKey as string;
    expect(newKey).not.toBe(oldKey);

    expectErrorBody(await call(server, 'GET', '/boards', undefined, withKey(oldKey)), { statusCode: 401, error: 'Unauthorized', path: '/api/v1/boards' });
    expectErrorBody(await call(server, 'GET', '/organizations', undefined, withKey(oldKey)), { statusCode: 401, error: 'Unauthorized', path: '/api/v1/organizations' });
    const boards = await call(server, 'GET', '/boards', undefined, withKey(newKey));
    expect(boards.status).toBe(200);
    expect(boards.body.map((item: { title: string }) => item.title)).toEqual(['Kept']);
  });

  it('lets a user of the organization regenerate the key with a JWT, which keeps working', async () => {
    const { apiKey: oldKey, organizationId } = await server.newOrganization();
    const { accessToken } = await loginAs(server, await createUser(server, organizationId));
    const response = await call(server, 'PATCH', regeneratePath(organizationId), undefined, bearer(accessToken));
    expect(response.status).toBe(200);
    expect((await call(server, 'GET', '/boards', undefined, withKey(response.body.apiKey))).status).toBe(200);
    expect((await call(server, 'GET', '/boards', undefined, withKey(oldKey))).status).toBe(401);
    expect((await call(server, 'GET', '/organizations', undefined, bearer(accessToken))).status).toBe(200);
  });

  it('answers 403 for another organization’s id (existing or not) and leaves its key alone', async () => {
    const mine = await server.newOrganization();
    const theirs = await server.newOrganization();
    const { accessToken } = await loginAs(server, await createUser(server, mine.organizationId));
    for (const headers of [withKey(mine.apiKey), bearer(accessToken)]) {
      for (const id of [theirs.organizationId, randomUUID()]) {
        const path = regeneratePath(id);
        expectErrorBody(await call(server, 'PATCH', path, undefined, headers), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
      }
    }
    expect((await call(server, 'GET', '/boards', undefined, withKey(theirs.apiKey))).status).toBe(200);
    expect((await call(server, 'GET', '/boards', undefined, withKey(mine.apiKey))).status).toBe(200);
  });

  it('answers 401 without a credential', async () => {
    const path = regeneratePath(server.organizationId);
    expectErrorBody(await call(server, 'PATCH', path), { statusCode: 401, error: 'Unauthorized', path: `/api/v1${path}` });
  });
});
