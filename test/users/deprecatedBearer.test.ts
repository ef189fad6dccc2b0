import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { type ApiResponse } from '../helpers/testServer.js';
import { bearer, call, usersEnv } from './userSessions.js';

/** The removal date announced for the bearer scheme (and for `POST /boards/create`). */
const SUNSET = 'Sun, 01 Mar 2026 00:00:00 GMT';

const { server } = serverForSuite({ env: usersEnv() });
let boardId: string;
let links: { host: string; guest: string };

beforeAll(async () => {
  const board = await server.api('POST', '/boards', { title: 'Bearer board' });
  expect(board.status).toBe(201);
  boardId = board.body.board_uuid;
  links = board.body.access_links;
});

function expectDeprecationAnnounced(response: ApiResponse): void {
  expect(response.status).toBe(200);
  expect(response.headers.get('deprecation')).toBe('true');
  expect(response.headers.get('sunset')).toBe(SUNSET);
}

function expectNoDeprecation(response: ApiResponse): void {
  expect(response.status).toBe(200);
  expect(response.headers.get('deprecation')).toBeNull();
  expect(response.headers.get('sunset')).toBeNull();
}

describe('the deprecated scheme: an API key as Authorization: Bearer', () => {
  it('authenticates on GET /organizations and announces its deprecation and sunset', async () => {
    const response = await call(server, 'GET', '/organizations', undefined, bearer(server.apiKey));
    expectDeprecationAnnounced(response);
    expect(response.body.organizations[0].id).toBe(server.organizationId);
  });

  it('authenticates on organization routes of the API key (GET /boards) and announces it', async () => {
    const response = await call(server, 'GET', '/boards', undefined, bearer(server.apiKey));
    expectDeprecationAnnounced(response);
    expect(response.body.map((board: { board_uuid: string }) => board.board_uuid)).toContain(boardId);
  });

  it('authenticates on a board route as the organization (host) and announces it', async () => {
    const response = await call(server, 'GET', `/boards/${boardId}/access-links`, undefined, bearer(server.apiKey));
    expectDeprecationAnnounced(response);
    expect(response.body.access_links.host).toBe(links.host);
  });

  it('keeps board access tokens as Bearer working on board routes, without any deprecation', async () => {
    expectNoDeprecation(await call(server, 'GET', `/boards/${boardId}/access-links`, undefined, bearer(tokenOf(links.host))));
    const asGuest = await call(server, 'GET', `/boards/${boardId}`, undefined, bearer(tokenOf(links.guest)));
    expectNoDeprecation(asGuest);
    expect(asGuest.body.board_uuid).toBe(boardId);
  });

  it('announces nothing to X-API-Key calls', async () => {
    expectNoDeprecation(await call(server, 'GET', '/organizations', undefined, { 'x-api-key': server.apiKey }));
    expectNoDeprecation(await call(server, 'GET', `/boards/${boardId}`, undefined, { 'x-api-key': server.apiKey }));
  });

  it('answers 401 to a bearer that is neither a board token nor an API key, and 403 to another organization’s key', async () => {
    const path = `/api/v1/boards/${boardId}`;
    const unknown = await call(server, 'GET', `/boards/${boardId}`, undefined, bearer('wb_unknown'));
    expectErrorBody(unknown, { statusCode: 401, error: 'Unauthorized', path });
    expect(unknown.headers.get('deprecation')).toBeNull();
    expectErrorBody(await call(server, 'GET', '/boards', undefined, bearer('wb_unknown')), { statusCode: 401, error: 'Unauthorized', path: '/api/v1/boards' });
    const other = await server.newOrganization();
    expectErrorBody(await call(server, 'GET', `/boards/${boardId}`, undefined, bearer(other.apiKey)), { statusCode: 403, error: 'Forbidden', path });
  });
});
