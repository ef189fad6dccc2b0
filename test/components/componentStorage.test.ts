import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { openDatabase } from '../../src/store/database.js';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { placeComponent, publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import type { BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * Component storage (docs/components.md): `GET …/objects/:objectId/storage` and
 * `PUT …/storage/:key`. Shared and anonymous values live in the document holding the object
 * (map `componentStorage`), private ones in the database per user; keys, values and rights
 * follow the manifest's `storage` and `permissions.storage`.
 */
const { server, connect } = serverForSuite();

const STORAGE = {
  schema: {
    votes: { type: 'array', items: { type: 'string' }, default: [], maxItems: 3 },
    count: { type: 'number', default: 0 },
    tally: { type: 'object', default: {} },
    notes: { type: 'string', default: '' },
  },
  visibility: { tally: 'anonymous', notes: 'private' },
};
const DEFAULTS = { votes: [], count: 0, tally: {}, notes: '' };
const VISIBILITY = { votes: 'shared', count: 'shared', tally: 'anonymous', notes: 'private' };
/** Guests may write too (a poll): the default lets them only read. */
const GUEST_WRITES = { storage: STORAGE, permissions: { storage: { guest: ['read', 'write'] } } };

interface Placed {
  board: CreatedBoard;
  boardId: string;
  objectId: string;
  name: string;
  hostToken: string;
  guestToken: string;
}

/** Publishes a component with `manifest` and places one object of it on a new board (at `position`). */
async function placed(manifest: Record<string, unknown> = { storage: STORAGE }, options: { board?: CreatedBoard; position?: { x: number; y: number } } = {}): Promise<Placed> {
  const name = uniqueComponentName('store');
  const { url } = await publishComponent(server, name, '1.0.0', { manifest });
  const board = options.board ?? (await createBoard(server, 'Storage'));
  const objectId = await placeComponent(server, board.board_uuid, url, { position: options.position });
  return { board, boardId: board.board_uuid, objectId, name, hostToken: tokenOf(board.access_links.host), guestToken: tokenOf(board.access_links.guest) };
}

/** Calls the API with a board token (and extra headers), not the API key. */
const withToken = (token: string, headers: Record<string, string> = {}) => (method: string, path: string, body?: unknown) =>
  request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${token}`, ...headers });

const storagePath = (p: Placed, key?: string) => `/boards/${p.boardId}/objects/${p.objectId}/storage${key === undefined ? '' : `/${key}`}`;

/** The object's entries in a client's copy of a document (undefined while there are none). */
const entriesIn = (client: BoardClient, objectId: string) => (client.doc.getMap('componentStorage').get(objectId) as Y.Map<unknown> | undefined)?.toJSON();

describe('reading', () => {
  it('answers every declared key, its default while unset, and its visibility', async () => {
    const p = await placed();
    const read = await server.api('GET', storagePath(p));
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toEqual({ values: DEFAULTS, visibility: VISIBILITY });
  });
});

describe('visibility', () => {
  it('writes a shared value into the document holding the object, with who wrote it, seen live by another socket', async () => {
    const p = await placed();
    const watcher = connect(p.guestToken, p.boardId, { user_id: 'watcher' });
    await watcher.synced();
    const teacher = withToken(p.hostToken, { 'x-user-id': 'teacher' });

    const written = await teacher('PUT', storagePath(p, 'count'), { value: 5 });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body).toEqual({ key: 'count', value: 5, visibility: 'shared' });

    await eventually(() => entriesIn(watcher, p.objectId)?.count);
    expect(entriesIn(watcher, p.objectId)).toEqual({ count: { value: 5, updated_by: 'teacher', updated_at: expect.stringMatching(ISO_TIMESTAMP) } });
    expect((await withToken(p.guestToken)('GET', storagePath(p))).body.values).toEqual({ ...DEFAULTS, count: 5 });
  });

  it('writes an anonymous value without any user', async () => {
    const p = await placed();
    const watcher = connect(p.guestToken, p.boardId);
    await watcher.synced();

    const written = await withToken(p.hostToken, { 'x-user-id': 'teacher' })('PUT', storagePath(p, 'tally'), { value: { yes: 3, no: 1 } });
    expect(written.body).toEqual({ key: 'tally', value: { yes: 3, no: 1 }, visibility: 'anonymous' });

    await eventually(() => entriesIn(watcher, p.objectId)?.tally);
    expect(entriesIn(watcher, p.objectId)).toEqual({ tally: { value: { yes: 3, no: 1 }, updated_at: expect.stringMatching(ISO_TIMESTAMP) } });
    expect(JSON.stringify(watcher.doc.getMap('componentStorage').toJSON())).not.toContain('teacher');
  });

  it('keeps a private value per user in the database: in no document, invisible to another user', async () => {
    const p = await placed(GUEST_WRITES);
    const [ana, ben] = await Promise.all([server.personalLink(p.boardId, 'ana'), server.personalLink(p.boardId, 'ben')]);
    const watcher = connect(p.hostToken, p.boardId);
    await watcher.synced();
    const secret = `secret-${randomUUID()}`;

    const written = await withToken(ana.token)('PUT', storagePath(p, 'notes'), { value: secret });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body).toEqual({ key: 'notes', value: secret, visibility: 'private' });
    // A shared write after it: once the watcher has it, it would have had the private one too.
    expect((await withToken(ana.token)('PUT', storagePath(p, 'count'), { value: 1 })).status).toBe(200);
    await eventually(() => entriesIn(watcher, p.objectId)?.count);

    expect(Object.keys(entriesIn(watcher, p.objectId)!)).toEqual(['count']);
    expect(JSON.stringify(watcher.doc.toJSON())).not.toContain(secret);
    expect((await withToken(ana.token)('GET', storagePath(p))).body.values.notes).toBe(secret);
    expect((await withToken(ben.token)('GET', storagePath(p))).body.values.notes).toBe('');
    // The API key and the shared links name no user: they read the default.
    expect((await server.api('GET', storagePath(p))).body.values.notes).toBe('');
    expect((await withToken(p.guestToken, { 'x-user-id': 'ana' })('GET', storagePath(p))).body.values.notes).toBe('');
  });

  it('refuses a private write from a credential naming no user (the API key, the shared guest link)', async () => {
    const p = await placed(GUEST_WRITES);
    for (const answer of [await server.api('PUT', storagePath(p, 'notes'), { value: 'x' }), await withToken(p.guestToken, { 'x-user-id': 'ana' })('PUT', storagePath(p, 'notes'), { value: 'x' })]) {
      expectErrorBody(answer, { statusCode: 403, error: 'Forbidden' });
      expect(answer.body.message).toMatch(/private.*names no user/);
    }
  });

  it('writes the shared values of an object in a zone into the zone document', async () => {
    const board = await createBoard(server, 'Zoned');
    const zone = await postFrame(server, board.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 600, bounds_height: 600, assigned_user_id: 'ana' });
    const p = await placed({ storage: STORAGE }, { board, position: { x: 50, y: 50 } });
    const zoneDocument = `${p.boardId}/zones/${zone.id}`;
    const [inZone, onBoard] = [connect(p.hostToken, zoneDocument), connect(p.hostToken, p.boardId)];
    await Promise.all([inZone.synced(), onBoard.synced()]);

    expect((await server.api('PUT', storagePath(p, 'votes'), { value: ['a', 'b'] })).status).toBe(200);
    await eventually(() => entriesIn(inZone, p.objectId)?.votes);
    expect(entriesIn(inZone, p.objectId)).toEqual({ votes: { value: ['a', 'b'], updated_by: null, updated_at: expect.stringMatching(ISO_TIMESTAMP) } });
    expect(entriesIn(onBoard, p.objectId)).toBeUndefined();
  });
});

describe('permissions', () => {
  it('lets a guest read but not write by default', async () => {
    const p = await placed();
    const guest = withToken(p.guestToken);
    expect((await guest('GET', storagePath(p))).status).toBe(200);
    const refused = await guest('PUT', storagePath(p, 'count'), { value: 1 });
    expectErrorBody(refused, { statusCode: 403, error: 'Forbidden' });
    expect(refused.body.message).toMatch(/guest.*write/);
    expect((await guest('GET', storagePath(p))).body.values.count).toBe(0);
  });

  it('lets a guest write when the manifest grants it, and refuses what a role is not granted', async () => {
    const p = await placed(GUEST_WRITES);
    const guest = withToken(p.guestToken);
    expect((await guest('PUT', storagePath(p, 'count'), { value: 2 })).status).toBe(200);
    expect((await guest('GET', storagePath(p))).body.values.count).toBe(2);

    const locked = await placed({ storage: STORAGE, permissions: { storage: { host: ['read'], guest: [] } } });
    expectErrorBody(await withToken(locked.guestToken)('GET', storagePath(locked)), { statusCode: 403, error: 'Forbidden' });
    expectErrorBody(await server.api('PUT', storagePath(locked, 'count'), { value: 1 }), { statusCode: 403, error: 'Forbidden' });
    expect((await server.api('GET', storagePath(locked))).status).toBe(200);

    const open = await placed({ storage: STORAGE, permissions: { storage: { guest: ['*'] } } });
    expect((await withToken(open.guestToken)('PUT', storagePath(open, 'votes'), { value: ['x'] })).status).toBe(200);
  });
});

describe('zones', () => {
  it('lets only who may write a zone write the shared values of a component in it; private values stay anyone\'s own', async () => {
    const board = await createBoard(server, 'Visible zone');
    await postFrame(server, board.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 600, bounds_height: 600, assigned_user_id: 'ana' });
    const p = await placed(GUEST_WRITES, { board, position: { x: 50, y: 50 } });
    const [ana, ben] = await Promise.all([server.personalLink(p.boardId, 'ana'), server.personalLink(p.boardId, 'ben')]);

    const refused = await withToken(ben.token)('PUT', storagePath(p, 'count'), { value: 9 });
    expectErrorBody(refused, { statusCode: 403, error: 'Forbidden' });
    expect(refused.body.message).toMatch(/zone this caller may not write/);
    expect((await withToken(ana.token)('PUT', storagePath(p, 'count'), { value: 1 })).status).toBe(200);
    expect((await withToken(ben.token)('PUT', storagePath(p, 'notes'), { value: 'ben was here' })).status).toBe(200);
    expect((await withToken(ben.token)('GET', storagePath(p))).body.values).toEqual({ ...DEFAULTS, count: 1, notes: 'ben was here' });
  });
});

describe('schema rules', () => {
  it('refuses a key the schema does not declare, naming it', async () => {
    const p = await placed();
    const answer = await server.api('PUT', storagePath(p, 'score'), { value: 1 });
    expectErrorBody(answer, { statusCode: 400, error: 'Bad Request', field: 'key' });
    expect(answer.body.details[0].message).toMatch(/"score" is not declared/);
  });

  it.each([
    ['a value of the wrong type', 'count', 'five', 'value', /must be number/],
    ['more items than maxItems', 'votes', ['a', 'b', 'c', 'd'], 'value', /more than 3 items/],
    ['an item of the wrong type', 'votes', ['a', 7], 'value.1', /must be string/],
    ['null', 'tally', null, 'value', /must be object/],
    ['a value over 64 KiB', 'tally', { text: 'x'.repeat(70_000) }, 'value', /larger than 65536 bytes/],
  ])('refuses %s', async (_what, key, value, field, message) => {
    const p = await placed();
    const answer = await server.api('PUT', storagePath(p, key), { value });
    expectErrorBody(answer, { statusCode: 400, error: 'Bad Request', field });
    expect(answer.body.details).toEqual([{ field, message: expect.stringMatching(message) }]);
    expect((await server.api('GET', storagePath(p))).body.values).toEqual(DEFAULTS);
  });

  it('refuses a body without value', async () => {
    const p = await placed();
    expectErrorBody(await server.api('PUT', storagePath(p, 'count'), {}), { statusCode: 400, error: 'Bad Request', field: 'value' });
  });
});

describe('objects without a usable component', () => {
  it('answers 409 for an object that is no external-component, 404 for an unknown object', async () => {
    const board = await createBoard(server, 'Plain');
    const sticky = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'hi' }, position: { x: 0, y: 0 } });
    const answer = await server.api('GET', `/boards/${board.board_uuid}/objects/${sticky.body.id}/storage`);
    expectErrorBody(answer, { statusCode: 409, error: 'Conflict' });
    expect(answer.body.message).toMatch(/not an external-component/);
    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}/objects/${randomUUID()}/storage`), { statusCode: 404, error: 'Not Found' });
  });

  it('answers 410 once the version the object renders is deleted', async () => {
    const p = await placed();
    expect((await server.api('DELETE', `/components/${p.name}/1.0.0`)).status).toBe(204);
    const answer = await server.api('GET', storagePath(p));
    expectErrorBody(answer, { statusCode: 410, error: 'Gone' });
    expect(answer.body.message).toMatch(/was deleted/);
    expectErrorBody(await server.api('PUT', storagePath(p, 'count'), { value: 1 }), { statusCode: 410, error: 'Gone' });
  });
});

describe('board deletion', () => {
  it('removes the private values of the board', async () => {
    const p = await placed(GUEST_WRITES);
    const ana = await server.personalLink(p.boardId, 'ana');
    expect((await withToken(ana.token)('PUT', storagePath(p, 'notes'), { value: 'mine' })).status).toBe(200);
    const database = await openDatabase(server.database.url);
    try {
      expect(await database.prisma.componentStorageValue.count({ where: { boardId: p.boardId } })).toBe(1);
      expect((await server.api('DELETE', `/boards/${p.boardId}`)).status).toBe(204);
      expect(await database.prisma.componentStorageValue.count({ where: { boardId: p.boardId } })).toBe(0);
    } finally {
      await database.close();
    }
  });
});
