import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { type ApiResponse, type TestServer } from '../helpers/testServer.js';

const OWNER = 'shared-owner-42';

const { server } = serverForSuite();
/** Calls the API as organization B. */
let asB: TestServer['api'];
let boardA: { board_uuid: string; title: string; external_id: string; access_links: { host: string; guest: string } };
let archivedA: { board_uuid: string; title: string };
let boardB: { board_uuid: string };
/** Strings of org A's board that must never appear in an answer to org B. */
let secrets: string[];

beforeAll(async () => {
  const b = await server.newOrganization();
  asB = (method, path, body, headers) => server.api(method, path, body, { 'x-api-key': b.apiKey, ...headers });

  const created = await server.api('POST', '/boards', {
    title: 'Confidential board of organization A',
    external_id: 'org-a-external-7731',
    owner_external_id: OWNER,
    webhook_url: 'https://hooks.example.com/org-a',
    initial_objects: [{ type: 'note', data: { text: 'org A private note' }, position: { x: 11, y: 22 } }],
  });
  expect(created.status).toBe(201);
  boardA = created.body;
  const archived = await server.api('POST', '/boards', { title: 'Archived board of organization A', owner_external_id: OWNER });
  archivedA = archived.body;
  expect((await server.api('PATCH', `/boards/${archivedA.board_uuid}/archive`)).status).toBe(200);

  const own = await asB('POST', '/boards', { title: 'Board of organization B', owner_external_id: OWNER });
  expect(own.status).toBe(201);
  boardB = own.body;
  const ownArchived = await asB('POST', '/boards', { title: 'Archived board of organization B' });
  expect((await asB('PATCH', `/boards/${ownArchived.body.board_uuid}/archive`)).status).toBe(200);

  const token = (link: string) => new URL(link).searchParams.get('token') as string;
  secrets = [
    boardA.title,
    boardA.external_id,
    token(boardA.access_links.host),
    token(boardA.access_links.guest),
    'org A private note',
    'https://hooks.example.com/org-a',
  ];
});
/** Every board endpoint, with a body it would accept from the owner. */

const boardCalls = [
  { name: 'GET /boards/:id', method: 'GET', suffix: '', body: undefined },
  { name: 'GET /boards/:id/access-links', method: 'GET', suffix: '/access-links', body: undefined },
  { name: 'PATCH /boards/:id', method: 'PATCH', suffix: '', body: { title: 'Taken over by B', webhook_url: 'https://evil.example.com' } },
  { name: 'DELETE /boards/:id', method: 'DELETE', suffix: '', body: undefined },
  { name: 'POST /boards/:id/end-session', method: 'POST', suffix: '/end-session', body: undefined },
  { name: 'POST /boards/:id/duplicate', method: 'POST', suffix: '/duplicate', body: undefined },
  { name: 'PATCH /boards/:id/archive', method: 'PATCH', suffix: '/archive', body: undefined },
  { name: 'POST /boards/:id/objects', method: 'POST', suffix: '/objects', body: { type: 'note', data: { text: 'from B' }, position: { x: 0, y: 0 } } },
] as const;

/** Asserts a 403 in the API error body for `path` that leaks none of org A's secrets, in body or headers. */
function expectForbiddenWithoutLeak(response: ApiResponse, path: string) {
  expectErrorBody(response, { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
  const text = JSON.stringify(response.body);
  for (const secret of secrets) expect(text).not.toContain(secret);
  const headers: string[] = [];
  response.headers.forEach((value, key) => headers.push(`${key}: ${value}`));
  for (const secret of secrets) expect(headers.join('\n')).not.toContain(secret);
}

async function snapshotOfA() {
  const read = await server.api('GET', `/boards/${boardA.board_uuid}`);
  expect(read.status).toBe(200);
  const body = read.body;
  return {
    title: body.title,
    external_id: body.external_id,
    status: body.status,
    updated_at: body.updated_at,
    expires_at: body.expires_at,
    webhook_url: body.webhook_url,
    config: body.config,
    access_links: body.access_links,
    objects: body.state.objects,
  };
}

const idsOf = (response: ApiResponse) => (response.body as Array<{ board_uuid: string }>).map((board) => board.board_uuid);

describe('a board of another organization', () => {
  it.each(boardCalls)('$name answers 403 with the API error body and no data of the board', async ({ method, suffix, body }) => {
    const before = await snapshotOfA();
    const path = `/boards/${boardA.board_uuid}${suffix}`;
    expectForbiddenWithoutLeak(await asB(method, path, body), path);
    expect(await snapshotOfA()).toEqual(before);
  });

  it.each(boardCalls)('$name answers 403 for an archived board of another organization', async ({ method, suffix, body }) => {
    const path = `/boards/${archivedA.board_uuid}${suffix}`;
    const response = await asB(method, path, body);
    expectErrorBody(response, { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    expect(JSON.stringify(response.body)).not.toContain(archivedA.title);
    const read = await server.api('GET', `/boards/${archivedA.board_uuid}`);
    expect(read.body).toMatchObject({ status: 'archived', title: archivedA.title });
  });

  it('stays intact for its own organization after every refused attempt of the other one', async () => {
    const before = await snapshotOfA();
    const boardsOfA = idsOf(await server.api('GET', '/boards?status=active'));
    const boardsOfB = idsOf(await asB('GET', '/boards?status=active'));
    for (const { method, suffix, body } of boardCalls) {
      expect((await asB(method, `/boards/${boardA.board_uuid}${suffix}`, body)).status).toBe(403);
    }
    expect(await snapshotOfA()).toEqual(before);
    expect(before.title).toBe('Confidential board of organization A');
    expect(before.status).toBe('active');
    expect(before.objects).toHaveLength(1);
    expect((await server.api('GET', `/boards/${boardA.board_uuid}/access-links`)).body.access_links).toEqual(boardA.access_links);
    expect(idsOf(await server.api('GET', '/boards?status=active'))).toEqual(boardsOfA);
    expect(idsOf(await asB('GET', '/boards?status=active'))).toEqual(boardsOfB);
  });

  it('publishes no event for the refused attempts of the other organization', async () => {
    const eventsBefore = server.events.length;
    for (const { method, suffix, body } of boardCalls) {
      expect((await asB(method, `/boards/${boardA.board_uuid}${suffix}`, body)).status).toBe(403);
      expect((await asB(method, `/boards/${archivedA.board_uuid}${suffix}`, body)).status).toBe(403);
    }
    expect(server.events.slice(eventsBefore)).toEqual([]);
  });
});

describe('board lists of another organization', () => {
  it.each(['/boards', '/boards?status=active', '/boards?status=archived', '/boards?status=expired', `/boards/by-owner?externalId=${OWNER}`])(
    'GET %s as organization B never includes the boards of organization A',
    async (path) => {
      const list = await asB('GET', path);
      expect(list.status).toBe(200);
      const ids = idsOf(list);
      expect(ids).not.toContain(boardA.board_uuid);
      expect(ids).not.toContain(archivedA.board_uuid);
      const text = JSON.stringify(list.body);
      for (const secret of [...secrets, archivedA.title]) expect(text).not.toContain(secret);
    },
  );

  it('shows each organization its own boards of a shared owner reference', async () => {
    expect(idsOf(await asB('GET', `/boards/by-owner?externalId=${OWNER}`))).toEqual([boardB.board_uuid]);
    const ofA = idsOf(await server.api('GET', `/boards/by-owner?externalId=${OWNER}`));
    expect(ofA.sort()).toEqual([boardA.board_uuid, archivedA.board_uuid].sort());
  });

  it('shows organization B its own archived boards but not those of organization A', async () => {
    const archivedOfB = await asB('GET', '/boards?status=archived');
    expect(archivedOfB.body).toHaveLength(1);
    expect(archivedOfB.body[0].title).toBe('Archived board of organization B');
  });
});

describe('a board that does not exist', () => {
  it.each(boardCalls)('$name answers 404, not 403, to either organization', async ({ method, suffix, body }) => {
    const eventsBefore = server.events.length;
    for (const call of [asB, server.api]) {
      const path = `/boards/${randomUUID()}${suffix}`;
      expectErrorBody(await call(method, path, body), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    }
    expect(server.events.length).toBe(eventsBefore);
  });

  it('answers 404 to organization B for a board of organization A once A deleted it', async () => {
    const doomed = await server.api('POST', '/boards', { title: 'Short-lived board of organization A' });
    expect((await asB('GET', `/boards/${doomed.body.board_uuid}`)).status).toBe(403);
    expect((await server.api('DELETE', `/boards/${doomed.body.board_uuid}`)).status).toBe(204);
    expect((await asB('GET', `/boards/${doomed.body.board_uuid}`)).status).toBe(404);
  });
});
