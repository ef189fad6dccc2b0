import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { request, startTestServer, type TestServer } from '../helpers/testServer.js';

const LIST_ITEM_FIELDS = [
  'board_uuid',
  'title',
  'external_id',
  'owner_external_id',
  'status',
  'created_at',
  'updated_at',
  'expires_at',
  'participants_count',
  'objects_count',
].sort();

describe('reading boards', () => {
  let server: TestServer;
  /** A second organization whose board list only this file's listing tests fill. */
  let lister: { apiKey: string; organizationId: string };
  const asLister = (method: string, path: string, body?: unknown) => server.api(method, path, body, { 'x-api-key': lister.apiKey });
  const noKey = (path: string) => request(server.url, 'GET', `/api/v1${path}`);

  beforeAll(async () => {
    server = await startTestServer();
    lister = await server.newOrganization();
  });
  afterAll(async () => {
    await server.close();
  });

  describe('GET /boards', () => {
    let active: any;
    let archived: any;
    let withObjects: any;

    beforeAll(async () => {
      active = (await asLister('POST', '/boards', { title: 'Active', external_id: 'a-1', owner_external_id: 'owner-a' })).body;
      archived = (await asLister('POST', '/boards', { title: 'Archived' })).body;
      withObjects = (
        await asLister('POST', '/boards', {
          title: 'With objects',
          initial_objects: [
            { type: 'sticky', data: {}, position: { x: 0, y: 0 } },
            { type: 'sticky', data: {}, position: { x: 1, y: 1 } },
          ],
        })
      ).body;
      const archive = await asLister('PATCH', `/boards/${archived.board_uuid}/archive`);
      expect(archive.body.status).toBe('archived');
    });

    it('lists boards with exactly the list item fields', async () => {
      const res = await asLister('GET', '/boards');
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      for (const item of res.body) expect(Object.keys(item).sort()).toEqual(LIST_ITEM_FIELDS);
      const item = res.body.find((b: any) => b.board_uuid === active.board_uuid);
      expect(item).toEqual({
        board_uuid: active.board_uuid,
        title: 'Active',
        external_id: 'a-1',
        owner_external_id: 'owner-a',
        status: 'active',
        created_at: active.created_at,
        updated_at: expect.stringMatching(ISO_TIMESTAMP),
        expires_at: active.expires_at,
        participants_count: 0,
        objects_count: 0,
      });
      expect(res.body.find((b: any) => b.board_uuid === withObjects.board_uuid).objects_count).toBe(2);
    });

    it('hides archived boards by default', async () => {
      const res = await asLister('GET', '/boards');
      const ids = res.body.map((b: any) => b.board_uuid).sort();
      expect(ids).toEqual([active.board_uuid, withObjects.board_uuid].sort());
    });

    it('shows only archived boards with ?status=archived', async () => {
      const res = await asLister('GET', '/boards?status=archived');
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(res.body[0]).toMatchObject({ board_uuid: archived.board_uuid, status: 'archived' });
    });

    it('shows only active boards with ?status=active', async () => {
      const res = await asLister('GET', '/boards?status=active');
      expect(res.status).toBe(200);
      expect(res.body.map((b: any) => b.board_uuid).sort()).toEqual([active.board_uuid, withObjects.board_uuid].sort());
      for (const item of res.body) expect(item.status).toBe('active');
    });

    it('does not list boards of another organization', async () => {
      const own = await server.api('POST', '/boards', { title: 'Not the lister’s' });
      const res = await asLister('GET', '/boards');
      expect(res.body.map((b: any) => b.board_uuid)).not.toContain(own.body.board_uuid);
    });

    it('rejects an unknown status with 400', async () => {
      const res = await asLister('GET', '/boards?status=bogus');
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', path: '/api/v1/boards', field: 'status' });
    });

    it('answers 401 without an API key', async () => {
      expectErrorBody(await noKey('/boards'), { statusCode: 401, error: 'Unauthorized', path: '/api/v1/boards' });
    });
  });

  describe('GET /boards/by-owner', () => {
    it('returns only the boards created for that owner, with owner_external_id', async () => {
      const owner = `owner-${randomUUID()}`;
      const mine = [
        (await server.api('POST', '/boards', { title: 'Owned 1', owner_external_id: owner })).body,
        (await server.api('POST', '/boards', { title: 'Owned 2', owner_external_id: owner, external_id: 'o2' })).body,
      ];
      await server.api('POST', '/boards', { title: 'Someone else', owner_external_id: `${owner}-other` });
      await server.api('POST', '/boards', { title: 'Nobody' });
      const res = await server.api('GET', `/boards/by-owner?externalId=${encodeURIComponent(owner)}`);
      expect(res.status).toBe(200);
      expect(res.body.map((b: any) => b.board_uuid).sort()).toEqual(mine.map((b) => b.board_uuid).sort());
      for (const item of res.body) {
        expect(item.owner_external_id).toBe(owner);
        expect(Object.keys(item).sort()).toEqual(LIST_ITEM_FIELDS);
      }
    });

    it('returns an empty array for an owner without boards', async () => {
      const res = await server.api('GET', `/boards/by-owner?externalId=nobody-${randomUUID()}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    it('rejects a request without externalId with 400', async () => {
      const res = await server.api('GET', '/boards/by-owner');
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', path: '/api/v1/boards/by-owner', field: 'externalId' });
    });

    it('answers 401 without an API key', async () => {
      expectErrorBody(await noKey('/boards/by-owner?externalId=x'), {
        statusCode: 401,
        error: 'Unauthorized',
        path: '/api/v1/boards/by-owner',
      });
    });
  });

  describe('GET /boards/:id', () => {
    let board: any;
    const initial = [
      { type: 'sticky', data: { text: 'a' }, position: { x: 1, y: 2 } },
      { type: 'shape', data: { kind: 'rect' }, position: { x: 3, y: 4 }, width: 10, height: 20 },
      { type: 'sticky', data: { text: 'b' }, position: { x: 5, y: 6 } },
    ];

    beforeAll(async () => {
      board = (await server.api('POST', '/boards', { title: 'Detailed', external_id: 'd-1', initial_objects: initial })).body;
    });

    it('includes state.version and state.objects by default', async () => {
      const res = await server.api('GET', `/boards/${board.board_uuid}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ board_uuid: board.board_uuid, title: 'Detailed', external_id: 'd-1', status: 'active' });
      expect(res.body.state.version).toEqual(expect.any(Number));
      expect(res.body.state.version).toBeGreaterThanOrEqual(1);
      expect(res.body.state.objects).toHaveLength(3);
      for (const input of initial) expect(res.body.state.objects).toContainEqual(expect.objectContaining(input));
      expect(res.body.objects_count).toBe(3);
      expect(res.body).not.toHaveProperty('participants');
    });

    it('omits state.objects but keeps state.version with includeObjects=false', async () => {
      const full = await server.api('GET', `/boards/${board.board_uuid}`);
      const res = await server.api('GET', `/boards/${board.board_uuid}?includeObjects=false`);
      expect(res.status).toBe(200);
      expect(res.body.state).toEqual({ version: full.body.state.version });
      expect(res.body.objects_count).toBe(3);
    });

    it('adds an empty participants list and a zero count with includeParticipants=true', async () => {
      const res = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true`);
      expect(res.status).toBe(200);
      expect(res.body.participants).toEqual([]);
      expect(res.body.participants_count).toBe(0);
      expect(res.body.state.objects).toHaveLength(3);
    });

    it('counts no objects on an empty board', async () => {
      const empty = await server.api('POST', '/boards', { title: 'Empty' });
      const res = await server.api('GET', `/boards/${empty.body.board_uuid}`);
      expect(res.body.state).toEqual({ version: 0, objects: [] });
      expect(res.body.objects_count).toBe(0);
    });

    it('answers 404 for an unknown board uuid', async () => {
      const path = `/boards/${randomUUID()}`;
      expectErrorBody(await server.api('GET', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    });

    it('answers 404 for an id that is not a uuid', async () => {
      expectErrorBody(await server.api('GET', '/boards/not-a-uuid'), {
        statusCode: 404,
        error: 'Not Found',
        path: '/api/v1/boards/not-a-uuid',
      });
    });

    it('answers 401 without an API key', async () => {
      const path = `/boards/${board.board_uuid}`;
      expectErrorBody(await noKey(path), { statusCode: 401, error: 'Unauthorized', path: `/api/v1${path}` });
    });
  });

  describe('GET /boards/:id/access-links', () => {
    it('returns the board uuid and the links issued at creation', async () => {
      const created = await server.api('POST', '/boards', { title: 'Links' });
      const res = await server.api('GET', `/boards/${created.body.board_uuid}/access-links`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ board_uuid: created.body.board_uuid, access_links: created.body.access_links });
    });

    it('answers 404 for an unknown board', async () => {
      const path = `/boards/${randomUUID()}/access-links`;
      expectErrorBody(await server.api('GET', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    });

    it('answers 401 without an API key', async () => {
      const created = await server.api('POST', '/boards', { title: 'Links 401' });
      const path = `/boards/${created.body.board_uuid}/access-links`;
      expectErrorBody(await noKey(path), { statusCode: 401, error: 'Unauthorized', path: `/api/v1${path}` });
    });
  });
});
