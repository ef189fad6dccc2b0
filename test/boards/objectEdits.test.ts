import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { ManualClock } from '../../src/clock.js';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { createBoard, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import type { BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request, type ApiResponse } from '../helpers/testServer.js';

/**
 * Changing, reading and removing one board object over REST (`PATCH`, `GET`, `DELETE
 * /boards/<id>/objects/<object_id>`), zone rights and locks included, and the same lock rule on
 * the live document: a guest's socket change to a locked object is undone, a host's stays.
 */

const clock = new ManualClock(new Date('2031-05-04T08:00:00.000Z'));
const suite = serverForSuite({ clock });
const { server } = suite;

const ZONE = { bounds_x: 0, bounds_y: 0, bounds_width: 500, bounds_height: 500 };
const OUTSIDE = { x: 1_000, y: 1_000 };

const objectPath = (board: CreatedBoard, objectId = '') => `/boards/${board.board_uuid}/objects${objectId ? `/${objectId}` : ''}`;

/** Calls the API with a board token (and a declared user id, which only a host token may carry). */
function withToken(token: string, method: string, path: string, body?: unknown, userId?: string): Promise<ApiResponse> {
  return request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${token}`, ...(userId ? { 'x-user-id': userId } : {}) });
}

const asGuest = (board: CreatedBoard, method: string, path: string, body?: unknown) => withToken(tokenOf(board.access_links.guest), method, path, body);
const asHostToken = (board: CreatedBoard, method: string, path: string, body?: unknown) => withToken(tokenOf(board.access_links.host), method, path, body, 'teacher');

async function addNote(board: CreatedBoard, position = OUTSIDE, data: Record<string, unknown> = { text: 'hello' }): Promise<Record<string, any>> {
  const created = await server.api('POST', objectPath(board), { type: 'sticky', data, position });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const eventsOf = (name: string, objectId: string) => server.events.filter((event) => event.name === name && (event.payload as { object_id?: string }).object_id === objectId);

const objectsOf = (client: BoardClient) => client.doc.getMap<Y.Map<unknown>>('objects');
const fieldOf = (client: BoardClient, id: string, key: string) => objectsOf(client).get(id)?.get(key);

async function connectSynced(token: string, name: string, userId: string): Promise<BoardClient> {
  const client = suite.connect(token, name, { user_id: userId });
  await client.saved();
  return client;
}

describe('PATCH /boards/:id/objects/:object_id', () => {
  it('replaces data, moves and resizes the object, stamping updated_by and updated_at', async () => {
    const board = await createBoard(server, 'Edits');
    const note = await addNote(board, OUTSIDE, { text: 'first', color: 'yellow' });
    clock.advance(60_000);
    const patched = await asHostToken(board, 'PATCH', objectPath(board, note.id), { data: { text: 'second' }, position: { x: 1_200, y: 900 }, width: 300, height: 150 });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      ...note,
      data: { text: 'second' },
      position: { x: 1_200, y: 900 },
      width: 300,
      height: 150,
      updated_at: clock.now().toISOString(),
      updated_by: 'teacher',
    });
    expect(patched.body.updated_at).not.toBe(note.created_at);
    const read = await server.api('GET', objectPath(board, note.id));
    expect(read.body).toEqual(patched.body);
    await eventually(() => expect(eventsOf('object.updated', note.id)).toHaveLength(1));
    expect(eventsOf('object.updated', note.id)[0]!.payload).toMatchObject({ object_type: 'sticky', updated_by: 'teacher' });
  });

  it('with the API key, updated_by is null', async () => {
    const board = await createBoard(server, 'Edits');
    const note = await addNote(board);
    const patched = await server.api('PATCH', objectPath(board, note.id), { position: { x: 5, y: 5 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ position: { x: 5, y: 5 }, data: note.data, updated_by: null, updated_at: expect.stringMatching(ISO_TIMESTAMP) });
  });

  it('answers 404 for an unknown object and an unknown board', async () => {
    const board = await createBoard(server, 'Edits');
    const unknownObject = objectPath(board, randomUUID());
    expectErrorBody(await server.api('PATCH', unknownObject, { data: {} }), { statusCode: 404, error: 'Not Found', path: `/api/v1${unknownObject}` });
    const unknownBoard = `/boards/${randomUUID()}/objects/${randomUUID()}`;
    expectErrorBody(await server.api('PATCH', unknownBoard, { data: {} }), { statusCode: 404, error: 'Not Found' });
  });

  it.each([
    ['an empty patch', {}, ''],
    ['a position.x that is not a number', { position: { x: 'left', y: 0 } }, 'position.x'],
    ['data that is not an object', { data: 'text' }, 'data'],
    ['a negative width', { width: -1 }, 'width'],
    ['locked that is not a boolean', { locked: 'yes' }, 'locked'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ])('answers 400 for %s and changes nothing', async (_name, body, field) => {
    const board = await createBoard(server, 'Edits');
    const note = await addNote(board);
    const path = objectPath(board, note.id);
    const refused = await server.api('PATCH', path, body);
    if (field) expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field });
    else expect(refused.status).toBe(400);
    expect((await server.api('GET', path)).body).toEqual(note);
  });

  it('refuses a student editing an object in a zone it does not own (403), lets the owner and the host', async () => {
    const board = await createBoard(server, 'Edits');
    const zone = await postFrame(server, board.board_uuid, { ...ZONE, assigned_user_id: 'ada' });
    const note = await addNote(board, { x: 100, y: 100 });
    expect(note.zone_id).toBe(zone.id);
    const bob = await server.personalLink(board.board_uuid, 'bob');
    const ada = await server.personalLink(board.board_uuid, 'ada');
    expectErrorBody(await withToken(bob.token, 'PATCH', objectPath(board, note.id), { data: { text: 'bob was here' } }), { statusCode: 403, error: 'Forbidden' });
    expectErrorBody(await withToken(bob.token, 'DELETE', objectPath(board, note.id)), { statusCode: 403, error: 'Forbidden' });
    const byAda = await withToken(ada.token, 'PATCH', objectPath(board, note.id), { data: { text: 'ada’s answer' } });
    expect(byAda.status).toBe(200);
    expect(byAda.body).toMatchObject({ data: { text: 'ada’s answer' }, updated_by: 'ada', zone_id: zone.id });
    expect((await server.api('PATCH', objectPath(board, note.id), { position: { x: 200, y: 200 } })).status).toBe(200);
  });

  it('refuses moving an object into another zone’s area (409) and leaves it where it was', async () => {
    const board = await createBoard(server, 'Edits');
    await postFrame(server, board.board_uuid, { ...ZONE, assigned_user_id: 'ada' });
    const note = await addNote(board);
    const refused = await server.api('PATCH', objectPath(board, note.id), { position: { x: 50, y: 50 } });
    expectErrorBody(refused, { statusCode: 409, error: 'Conflict' });
    expect((await server.api('GET', objectPath(board, note.id))).body.position).toEqual(OUTSIDE);
  });
});

describe('locked objects over REST', () => {
  it('a host locks an object: guests may neither change nor remove it (403, locked), the host still may; unlocked, guests may again', async () => {
    const board = await createBoard(server, 'Locks');
    const note = await addNote(board);
    const path = objectPath(board, note.id);
    const locked = await server.api('PATCH', path, { locked: true });
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({ locked: true });
    expect((await asGuest(board, 'GET', path)).body).toMatchObject({ locked: true });

    for (const [method, body] of [['PATCH', { data: { text: 'guest edit' } }], ['PATCH', { position: { x: 1_100, y: 1_100 } }], ['DELETE', undefined]] as const) {
      const refused = await asGuest(board, method, path, body);
      expectErrorBody(refused, { statusCode: 403, error: 'Forbidden' });
      expect(refused.body.message).toMatch(/locked/i);
    }
    expect((await server.api('GET', path)).body).toMatchObject({ data: { text: 'hello' }, position: OUTSIDE, locked: true });

    const byHost = await asHostToken(board, 'PATCH', path, { data: { text: 'host edit' } });
    expect(byHost.status).toBe(200);
    expect(byHost.body).toMatchObject({ data: { text: 'host edit' }, locked: true });

    const unlocked = await server.api('PATCH', path, { locked: false });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.locked).toBeUndefined();
    const byGuest = await asGuest(board, 'PATCH', path, { data: { text: 'guest edit' } });
    expect(byGuest.status).toBe(200);
    expect(byGuest.body).toMatchObject({ data: { text: 'guest edit' } });
    expect(byGuest.body.locked).toBeUndefined();
  });

  it('a guest may not lock nor unlock an object (403)', async () => {
    const board = await createBoard(server, 'Locks');
    const note = await addNote(board);
    const path = objectPath(board, note.id);
    expectErrorBody(await asGuest(board, 'PATCH', path, { locked: true }), { statusCode: 403, error: 'Forbidden' });
    expect((await server.api('GET', path)).body.locked).toBeUndefined();
    expect((await server.api('PATCH', path, { locked: true })).status).toBe(200);
    expectErrorBody(await asGuest(board, 'PATCH', path, { locked: false }), { statusCode: 403, error: 'Forbidden' });
    expect((await server.api('GET', path)).body.locked).toBe(true);
  });
});

describe('DELETE and GET /boards/:id/objects/:object_id', () => {
  it('removes the object (204), then answers 404, and publishes object.deleted', async () => {
    const board = await createBoard(server, 'Removals');
    const note = await addNote(board);
    const path = objectPath(board, note.id);
    const removed = await asHostToken(board, 'DELETE', path);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expectErrorBody(await server.api('GET', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    expectErrorBody(await server.api('DELETE', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    await eventually(() => expect(eventsOf('object.deleted', note.id)).toHaveLength(1));
    expect(eventsOf('object.deleted', note.id)[0]!.payload).toMatchObject({
      board_id: board.board_uuid,
      object_type: 'sticky',
      object_data: { text: 'hello' },
      deleted_by: 'teacher',
    });
    expect((await server.api('GET', `/boards/${board.board_uuid}`)).body.state.objects).toEqual([]);
  });

  it('GET answers the object (200) with its zone, and 404 for an object nobody has', async () => {
    const board = await createBoard(server, 'Reads');
    const zone = await postFrame(server, board.board_uuid, { ...ZONE, assigned_user_id: 'ada' });
    const inZone = await addNote(board, { x: 10, y: 10 });
    const outside = await addNote(board);
    expect(await server.api('GET', objectPath(board, inZone.id))).toMatchObject({ status: 200, body: { ...inZone, zone_id: zone.id } });
    expect(await asGuest(board, 'GET', objectPath(board, outside.id))).toMatchObject({ status: 200, body: outside });
    expectErrorBody(await server.api('GET', objectPath(board, 'no-such-object')), { statusCode: 404, error: 'Not Found' });
  });
});

describe('REST edits and locks on the live document', () => {
  it('a connected client receives REST edits, locks and removals as they happen', async () => {
    const board = await createBoard(server, 'Live');
    const client = await connectSynced(tokenOf(board.access_links.guest), board.board_uuid, 'watcher');
    const note = await addNote(board);
    await eventually(() => expect(fieldOf(client, note.id, 'data')).toEqual({ text: 'hello' }));
    await server.api('PATCH', objectPath(board, note.id), { data: { text: 'changed' }, position: { x: 1_050, y: 1_060 } });
    await eventually(() => expect(objectsOf(client).get(note.id)?.toJSON()).toMatchObject({ data: { text: 'changed' }, position: { x: 1_050, y: 1_060 } }));
    await server.api('PATCH', objectPath(board, note.id), { locked: true });
    await eventually(() => expect(fieldOf(client, note.id, 'locked')).toBe(true));
    await server.api('PATCH', objectPath(board, note.id), { locked: false });
    await eventually(() => expect(objectsOf(client).get(note.id)?.has('locked')).toBe(false));
    await server.api('DELETE', objectPath(board, note.id));
    await eventually(() => expect(objectsOf(client).has(note.id)).toBe(false));
  });

  /** A locked note, a guest and a second guest watching, all synced. */
  async function lockedNoteWithGuests() {
    const board = await createBoard(server, 'Live locks');
    const note = await addNote(board, OUTSIDE, { text: 'locked text' });
    expect((await server.api('PATCH', objectPath(board, note.id), { locked: true })).status).toBe(200);
    const guest = await connectSynced(tokenOf(board.access_links.guest), board.board_uuid, 'bob');
    const watcher = await connectSynced(tokenOf(board.access_links.guest), board.board_uuid, 'carol');
    await eventually(() => expect(fieldOf(guest, note.id, 'locked')).toBe(true));
    await eventually(() => expect(fieldOf(watcher, note.id, 'locked')).toBe(true));
    return { board, note, guest, watcher };
  }

  const GUEST_EDITS: Array<{ what: string; edit: (objects: Y.Map<Y.Map<unknown>>, id: string) => void }> = [
    { what: 'changing its data', edit: (objects, id) => objects.get(id)!.set('data', { text: 'defaced' }) },
    { what: 'moving it', edit: (objects, id) => objects.get(id)!.set('position', { x: 1_400, y: 1_400 }) },
    { what: 'unlocking it', edit: (objects, id) => objects.get(id)!.delete('locked') },
    { what: 'removing it', edit: (objects, id) => objects.delete(id) },
  ];

  for (const { what, edit } of GUEST_EDITS) {
    it(`a guest ${what} over the socket is undone: write-rejected (locked), the guest converges back, nobody else sees it`, async () => {
      const { board, note, guest, watcher } = await lockedNoteWithGuests();
      const before = objectsOf(watcher).get(note.id)!.toJSON();
      edit(objectsOf(guest), note.id);
      await eventually(() => expect(guest.messages.find((message) => message.type === 'write-rejected')).toEqual({ type: 'write-rejected', object_ids: [note.id], reason: 'locked' }));
      await eventually(() => expect(objectsOf(guest).get(note.id)?.toJSON()).toEqual(before));
      expect(objectsOf(watcher).get(note.id)!.toJSON()).toEqual(before);
      const read = await server.api('GET', objectPath(board, note.id));
      expect(read.body).toMatchObject({ data: { text: 'locked text' }, position: OUTSIDE, locked: true });
    });
  }

  it('a guest locking an object over the socket is undone (write-rejected, locked)', async () => {
    const board = await createBoard(server, 'Live locks');
    const note = await addNote(board);
    const guest = await connectSynced(tokenOf(board.access_links.guest), board.board_uuid, 'bob');
    await eventually(() => expect(objectsOf(guest).has(note.id)).toBe(true));
    objectsOf(guest).get(note.id)!.set('locked', true);
    await eventually(() => expect(guest.messages.find((message) => message.type === 'write-rejected')).toMatchObject({ object_ids: [note.id], reason: 'locked' }));
    await eventually(() => expect(objectsOf(guest).get(note.id)?.has('locked')).toBe(false));
    expect((await server.api('GET', objectPath(board, note.id))).body.locked).toBeUndefined();
  });

  it('a host’s socket edit of a locked object stays, and reaches the others and REST', async () => {
    const { board, note, watcher } = await lockedNoteWithGuests();
    const host = await connectSynced(tokenOf(board.access_links.host), board.board_uuid, 'teacher');
    await eventually(() => expect(objectsOf(host).has(note.id)).toBe(true));
    objectsOf(host).get(note.id)!.set('data', { text: 'the teacher changed it' });
    await host.saved();
    await eventually(() => expect(fieldOf(watcher, note.id, 'data')).toEqual({ text: 'the teacher changed it' }));
    expect(host.messages.some((message) => message.type === 'write-rejected')).toBe(false);
    expect((await server.api('GET', objectPath(board, note.id))).body).toMatchObject({ data: { text: 'the teacher changed it' }, locked: true });
  });
});
