import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { BusEvent } from '../../src/events/types.js';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Object events (`object.created`, `object.updated`, `object.deleted`) come from the board
 * document itself: one per changed object, whether the change came over REST or a socket.
 */
const { server, clients } = serverForSuite();

type ObjectEvent = Extract<BusEvent, { name: 'object.created' | 'object.updated' | 'object.deleted' }>;

async function createBoard(): Promise<{ boardId: string; hostLink: string }> {
  const res = await server.api('POST', '/boards', { title: `Events ${randomUUID().slice(0, 8)}` });
  expect(res.status).toBe(201);
  return { boardId: res.body.board_uuid, hostLink: res.body.access_links.host };
}

/** A real provider client on the board, identified as `userId`, synced. */
async function join(board: { boardId: string; hostLink: string }, userId: string): Promise<BoardClient> {
  const client = connectBoardClient({ url: server.socketUrl(board.hostLink, { user_id: userId }), name: board.boardId });
  clients.push(client);
  await client.synced();
  return client;
}

/** The object events of one board (optionally of one object), oldest first. */
function objectEvents(boardId: string, objectId?: string): ObjectEvent[] {
  return server.events.filter(
    (e): e is ObjectEvent =>
      e.name.startsWith('object.') && e.payload.board_id === boardId && (objectId === undefined || (e.payload as any).object_id === objectId),
  );
}

const addOverRest = (boardId: string, body: Record<string, unknown> = {}) =>
  server.api('POST', `/boards/${boardId}/objects`, { type: 'marker', data: {}, position: { x: 0, y: 0 }, ...body });

/**
 * Resolves once every object event of the changes made so far has been published: events
 * of one board are published in order, so once a later REST addition's event is out, all
 * earlier ones are too. Socket clients must have `saved()` their changes first.
 */
async function allEventsPublished(boardId: string): Promise<void> {
  const res = await addOverRest(boardId, { type: 'barrier' });
  expect(res.status).toBe(201);
  await eventually(() => objectEvents(boardId, res.body.id).length === 1);
}

const objectMap = (client: BoardClient, id: string) => client.doc.getMap('objects').get(id) as Y.Map<unknown>;

async function readState(boardId: string): Promise<{ version: number; objects: Array<Record<string, any>> }> {
  const res = await server.api('GET', `/boards/${boardId}`);
  expect(res.status).toBe(200);
  return res.body.state;
}

describe('object events raised by changes over a socket', () => {
  it('raises exactly one object.created with the object, the board version and its author when a socket client adds an object', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    const bob = await join(board, 'bob');

    addObject(alice.doc, { id: 'note-1', type: 'sticky', data: { text: 'hello', color: '#ff0' }, x: 10, y: 20 });
    await alice.saved();
    await eventually(() => bob.doc.getMap('objects').has('note-1'));
    await allEventsPublished(board.boardId);

    const events = objectEvents(board.boardId, 'note-1');
    expect(events).toHaveLength(1);
    expect(events[0]!.name).toBe('object.created');
    expect(events[0]!.payload).toEqual({
      board_id: board.boardId,
      organization_id: server.organizationId,
      object_id: 'note-1',
      object_type: 'sticky',
      object_data: { text: 'hello', color: '#ff0' },
      version: expect.any(Number),
      created_by: 'alice',
    });
    expect(events[0]!.payload.version).toBeGreaterThanOrEqual(1);
  });

  it('raises exactly one object.updated holding only the changed position when a socket client moves an object', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    addObject(alice.doc, { id: 'note-1', type: 'sticky', data: { text: 'hello' }, x: 10, y: 20 });
    await alice.saved();
    const created = (await eventually(() => objectEvents(board.boardId, 'note-1')[0]))!;

    objectMap(alice, 'note-1').set('position', { x: 110, y: 220 });
    await alice.saved();
    await allEventsPublished(board.boardId);

    const updates = objectEvents(board.boardId, 'note-1').filter((e) => e.name === 'object.updated');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.payload).toEqual({
      board_id: board.boardId,
      organization_id: server.organizationId,
      object_id: 'note-1',
      object_type: 'sticky',
      changes: { before: { position: { x: 10, y: 20 } }, after: { position: { x: 110, y: 220 } } },
      version: expect.any(Number),
      updated_by: 'alice',
    });
    expect(updates[0]!.payload.version).toBeGreaterThan(created.payload.version);
  });

  it('raises exactly one object.updated holding only the old and new data when a socket client edits an object', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    addObject(alice.doc, { id: 'note-1', type: 'sticky', data: { text: 'draft' }, x: 1, y: 2 });
    await alice.saved();

    objectMap(alice, 'note-1').set('data', { text: 'final', color: 'blue' });
    await alice.saved();
    await allEventsPublished(board.boardId);

    const updates = objectEvents(board.boardId, 'note-1').filter((e) => e.name === 'object.updated');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.payload.changes).toEqual({ before: { data: { text: 'draft' } }, after: { data: { text: 'final', color: 'blue' } } });
    expect(updates[0]!.payload.updated_by).toBe('alice');
  });

  it('attributes each change to the socket client that made it', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    const bob = await join(board, 'bob');
    addObject(alice.doc, { id: 'note-1', data: { text: 'a' } });
    await alice.saved();
    await eventually(() => bob.doc.getMap('objects').has('note-1'));

    objectMap(bob, 'note-1').set('data', { text: 'b' });
    await bob.saved();
    await allEventsPublished(board.boardId);

    const names = objectEvents(board.boardId, 'note-1').map((e) => e.name);
    expect(names).toEqual(['object.created', 'object.updated']);
    const [created, updated] = objectEvents(board.boardId, 'note-1');
    expect((created!.payload as any).created_by).toBe('alice');
    expect((updated!.payload as any).updated_by).toBe('bob');
  });

  it('raises one event per object when one transaction changes two objects', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    addObject(alice.doc, { id: 'left', type: 'shape', data: { kind: 'circle' }, x: 0, y: 0 });
    addObject(alice.doc, { id: 'right', type: 'shape', data: { kind: 'square' }, x: 100, y: 0 });
    await alice.saved();

    alice.doc.transact(() => {
      objectMap(alice, 'left').set('position', { x: 5, y: 5 });
      objectMap(alice, 'right').set('data', { kind: 'triangle' });
      objectMap(alice, 'right').set('position', { x: 105, y: 5 });
    });
    await alice.saved();
    await allEventsPublished(board.boardId);

    const updates = objectEvents(board.boardId).filter((e) => e.name === 'object.updated');
    expect(updates.map((e) => e.payload.object_id).sort()).toEqual(['left', 'right']);
    const byId = Object.fromEntries(updates.map((e) => [e.payload.object_id, e.payload as any]));
    expect(byId.left.changes).toEqual({ before: { position: { x: 0, y: 0 } }, after: { position: { x: 5, y: 5 } } });
    expect(byId.right.changes).toEqual({
      before: { data: { kind: 'square' }, position: { x: 100, y: 0 } },
      after: { data: { kind: 'triangle' }, position: { x: 105, y: 5 } },
    });
    expect(byId.left.version).toBe(byId.right.version);
  });

  it('raises exactly one object.deleted with the deleted object type, data and remover', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    addObject(alice.doc, { id: 'note-1', type: 'sticky', data: { text: 'bye' }, x: 3, y: 4 });
    await alice.saved();

    alice.doc.getMap('objects').delete('note-1');
    await alice.saved();
    await allEventsPublished(board.boardId);

    const events = objectEvents(board.boardId, 'note-1');
    expect(events.map((e) => e.name)).toEqual(['object.created', 'object.deleted']);
    expect(events[1]!.payload).toEqual({
      board_id: board.boardId,
      organization_id: server.organizationId,
      object_id: 'note-1',
      object_type: 'sticky',
      object_data: { text: 'bye' },
      version: expect.any(Number),
      deleted_by: 'alice',
    });
    expect(events[1]!.payload.version).toBeGreaterThan(events[0]!.payload.version);
    expect((await readState(board.boardId)).objects.map((o) => o.id)).not.toContain('note-1');
  });

  it('raises no event for a change that leaves the object as it was, although the change is stored', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    addObject(alice.doc, { id: 'note-1', data: { text: 'same' }, x: 7, y: 8 });
    await alice.saved();
    await eventually(() => objectEvents(board.boardId, 'note-1').length === 1);
    const versionBefore = (await readState(board.boardId)).version;

    alice.doc.transact(() => {
      objectMap(alice, 'note-1').set('position', { x: 7, y: 8 });
      objectMap(alice, 'note-1').set('data', { text: 'same' });
    });
    await alice.saved();
    // The update did reach the store (the version moved), it only changed nothing.
    expect((await readState(board.boardId)).version).toBeGreaterThan(versionBefore);
    await allEventsPublished(board.boardId);

    expect(objectEvents(board.boardId, 'note-1').map((e) => e.name)).toEqual(['object.created']);
  });
});

describe('object events raised by changes over REST', () => {
  it('raises exactly one object.created for an object added over REST and the connected socket client receives the object', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');

    const res = await addOverRest(board.boardId, { type: 'sticky', data: { text: 'from REST' }, position: { x: 4, y: 5 }, width: 30, height: 40 });
    expect(res.status).toBe(201);
    const id = res.body.id as string;

    const received = (await eventually(() => alice.doc.getMap('objects').get(id) as Y.Map<unknown> | undefined))!;
    expect(received.toJSON()).toEqual(res.body);
    const { version } = await readState(board.boardId);
    await allEventsPublished(board.boardId);
    const events = objectEvents(board.boardId, id);
    expect(events).toHaveLength(1);
    expect(events[0]!.name).toBe('object.created');
    expect(events[0]!.payload).toEqual({
      board_id: board.boardId,
      organization_id: server.organizationId,
      object_id: id,
      object_type: 'sticky',
      object_data: { text: 'from REST' },
      version,
      created_by: null,
    });
    expect(res.body.created_at).toMatch(ISO_TIMESTAMP);
  });

  it('reports strictly increasing versions across REST and socket changes, ending at the board state.version', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    const versions: number[] = [];
    const lastEvent = async (objectId: string, count: number) => {
      const events = (await eventually(() => {
        const found = objectEvents(board.boardId, objectId);
        return found.length >= count ? found : null;
      }))!;
      expect(events).toHaveLength(count);
      versions.push(events[count - 1]!.payload.version);
    };

    const rest = await addOverRest(board.boardId, { data: { step: 1 } });
    await lastEvent(rest.body.id, 1);
    addObject(alice.doc, { id: 'note-1', data: { step: 2 } });
    await alice.saved();
    await lastEvent('note-1', 1);
    objectMap(alice, 'note-1').set('position', { x: 9, y: 9 });
    await alice.saved();
    await lastEvent('note-1', 2);
    await eventually(() => alice.doc.getMap('objects').has(rest.body.id));
    objectMap(alice, rest.body.id).set('data', { step: 4 });
    await alice.saved();
    await lastEvent(rest.body.id, 2);
    alice.doc.getMap('objects').delete('note-1');
    await alice.saved();
    await lastEvent('note-1', 3);

    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
    expect((await readState(board.boardId)).version).toBe(versions.at(-1));
  });

  it('gives each of several rapid changes the version it made, not the version of a later change', async () => {
    const board = await createBoard();
    const alice = await join(board, 'alice');
    const ids = ['a', 'b', 'c', 'd', 'e'];
    // Separate transactions sent back to back, so they tend to share one group commit.
    for (const id of ids) addObject(alice.doc, { id, data: { id } });
    const rest = await Promise.all([1, 2, 3].map((n) => addOverRest(board.boardId, { data: { n } })));
    await alice.saved();
    const all = [...ids, ...rest.map((res) => res.body.id as string)];
    const events = (await eventually(() => {
      const found = objectEvents(board.boardId).filter((e) => all.includes(e.payload.object_id));
      return found.length === all.length ? found : null;
    }))!;

    const versions = events.map((e) => e.payload.version);
    expect(new Set(versions).size).toBe(all.length);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
    expect(events.filter((e) => ids.includes(e.payload.object_id)).map((e) => e.payload.object_id)).toEqual(ids);
    expect((await readState(board.boardId)).version).toBe(Math.max(...versions));
  });
});
