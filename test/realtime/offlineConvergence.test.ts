import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * Offline tolerance with the real provider: a client that loses its socket keeps editing,
 * and once it reconnects every replica, the REST view and the store agree on all edits.
 */
let database: TestDatabase;
let server: TestServer;
/** Servers still running (a restart adds one). */
const running: TestServer[] = [];
const clients: BoardClient[] = [];

beforeEach(async () => {
  database = await createTestDatabase();
  server = await startTestServer({ database });
  running.push(server);
});
afterEach(async () => {
  clients.splice(0).forEach((client) => client.destroy());
  await Promise.all(running.splice(0).map((s) => s.stop()));
  await database.drop();
});

const PEOPLE = ['alice', 'bob', 'carol'] as const;

interface Board {
  boardId: string;
  /** Personal links, issued up front: they outlive a restart, as the board does. */
  links: Record<(typeof PEOPLE)[number], string>;
}

async function createBoard(): Promise<Board> {
  const res = await server.api('POST', '/boards', { title: `Offline ${randomUUID().slice(0, 8)}` });
  expect(res.status).toBe(201);
  const boardId = res.body.board_uuid as string;
  const links = await Promise.all(PEOPLE.map(async (userId) => [userId, (await server.personalLink(boardId, userId)).link] as const));
  return { boardId, links: Object.fromEntries(links) as Board['links'] };
}

/** Joins as `userId` with its personal link, so object events name it. */
async function join(on: TestServer, board: Board, userId: (typeof PEOPLE)[number]): Promise<BoardClient> {
  const client = connectBoardClient({ url: on.socketUrl(board.links[userId]), name: board.boardId });
  clients.push(client);
  await client.synced();
  return client;
}

/** A new board on which alice wrote object `shared` and bob, connected too, has it. */
async function sharingOneObject() {
  const board = await createBoard();
  const alice = await join(server, board, 'alice');
  const bob = await join(server, board, 'bob');
  addObject(alice.doc, { id: 'shared', type: 'sticky', data: { text: 'original' }, x: 0, y: 0 });
  await alice.saved();
  await eventually(() => bob.doc.getMap('objects').has('shared'));
  return { board, alice, bob };
}

/** Cuts a client's socket; its document stays editable, as in a browser that went offline. */
async function goOffline(client: BoardClient): Promise<void> {
  client.socket.disconnect();
  await eventually(() => String(client.socket.status) === 'disconnected' && !client.provider.isSynced);
}

/** Reconnects a client's socket and waits until it is synced and its edits are saved. */
async function goOnline(client: BoardClient): Promise<void> {
  void client.socket.connect();
  await client.saved();
}

/** The objects map as another replica would rebuild it from the document's full state. */
function objectsOf(doc: Y.Doc): Record<string, Record<string, unknown>> {
  const copy = new Y.Doc();
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
  const objects = copy.getMap('objects').toJSON() as Record<string, Record<string, unknown>>;
  copy.destroy();
  return objects;
}

const objectOf = (client: BoardClient, id: string) => client.doc.getMap('objects').get(id) as Y.Map<unknown>;

/** The board's objects over REST, keyed by id, read as the board's organization. */
async function restObjects(on: TestServer, boardId: string): Promise<Record<string, Record<string, unknown>>> {
  const res = await request(on.url, 'GET', `/api/v1/boards/${boardId}`, undefined, { 'x-api-key': server.apiKey });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.state.objects as Array<Record<string, unknown>>).map((o) => [o.id as string, o]));
}

/** Waits until every client holds the same objects (among them `including`), and returns them. */
async function converged(replicas: BoardClient[], including: string[] = []): Promise<Record<string, Record<string, unknown>>> {
  return (await eventually(() => {
    const [first, ...rest] = replicas.map((client) => JSON.stringify(objectsOf(client.doc)));
    const objects = objectsOf(replicas[0]!.doc);
    return rest.every((other) => other === first) && including.every((id) => id in objects) ? objects : null;
  }))!;
}

/** Who raised which object event for each object of a board, in order. */
function objectEventsById(on: TestServer, boardId: string): Record<string, string[]> {
  const byId: Record<string, string[]> = {};
  for (const { name, payload } of on.events) {
    if (!name.startsWith('object.') || payload.board_id !== boardId) continue;
    const p = payload as unknown as Record<string, string | null>;
    const author = name === 'object.created' ? p.created_by : name === 'object.updated' ? p.updated_by : p.deleted_by;
    (byId[p.object_id!] ??= []).push(`${name} by ${author}`);
  }
  return byId;
}

/** Stops the server and starts a new one on the same database. */
async function restart(): Promise<TestServer> {
  await server.stop();
  running.splice(running.indexOf(server), 1);
  const next = await startTestServer({ database });
  running.push(next);
  return next;
}

describe('offline edits with the real provider', () => {
  it('merges the offline edits of one client with concurrent edits of another, over sockets, REST and a restart', async () => {
    const { board, alice, bob } = await sharingOneObject();

    await goOffline(alice);
    addObject(alice.doc, { id: 'alice-1', type: 'shape', data: { kind: 'circle' }, x: 10, y: 10 });
    addObject(alice.doc, { id: 'alice-2', type: 'shape', data: { kind: 'square' }, x: 20, y: 20 });
    objectOf(alice, 'shared').set('position', { x: 300, y: 400 });
    objectOf(bob, 'shared').set('data', { text: 'edited by bob' });
    addObject(bob.doc, { id: 'bob-1', type: 'sticky', data: { text: 'bob was here' }, x: 30, y: 30 });
    await bob.saved();

    // Nothing of alice's offline work has reached the server or bob.
    const whileOffline = await restObjects(server, board.boardId);
    expect(Object.keys(whileOffline).sort()).toEqual(['bob-1', 'shared']);
    expect(whileOffline.shared!.position).toEqual({ x: 0, y: 0 });
    expect(bob.doc.getMap('objects').has('alice-1')).toBe(false);

    await goOnline(alice);
    const merged = await converged([alice, bob], ['alice-1', 'alice-2']);
    expect(Object.keys(merged).sort()).toEqual(['alice-1', 'alice-2', 'bob-1', 'shared']);
    expect(merged.shared).toMatchObject({ type: 'sticky', data: { text: 'edited by bob' }, position: { x: 300, y: 400 } });
    expect(merged['alice-2']).toMatchObject({ type: 'shape', data: { kind: 'square' }, position: { x: 20, y: 20 } });

    // Each edit raised its object event once, attributed to its author; object events of a
    // board are published in order, so once a later REST addition's is out, all of them are.
    const marker = await server.api('POST', `/boards/${board.boardId}/objects`, { type: 'marker', data: {}, position: { x: 0, y: 0 } });
    expect(marker.status).toBe(201);
    await eventually(() => objectEventsById(server, board.boardId)[marker.body.id]);
    expect(objectEventsById(server, board.boardId)).toEqual({
      shared: ['object.created by alice', 'object.updated by bob', 'object.updated by alice'],
      'bob-1': ['object.created by bob'],
      'alice-1': ['object.created by alice'],
      'alice-2': ['object.created by alice'],
      [marker.body.id]: ['object.created by null'],
    });

    const objects = await converged([alice, bob], [marker.body.id]);
    expect(objects).toEqual({ ...merged, [marker.body.id]: marker.body });
    expect(await restObjects(server, board.boardId)).toEqual(objects);

    const restarted = await restart();
    expect(await restObjects(restarted, board.boardId)).toEqual(objects);
    const carol = await join(restarted, board, 'carol');
    expect(objectsOf(carol.doc)).toEqual(objects);
  });

  it('converges concurrent offline changes of the same field to the same winner on every replica, whatever the merge order', async () => {
    const { board, alice, bob } = await sharingOneObject();

    await Promise.all([goOffline(alice), goOffline(bob)]);
    objectOf(alice, 'shared').set('position', { x: 111, y: 111 });
    objectOf(alice, 'shared').set('data', { text: 'alice wins?' });
    objectOf(bob, 'shared').set('position', { x: 222, y: 222 });
    objectOf(bob, 'shared').set('data', { text: 'bob wins?' });
    // What any replica must end with, merging the two offline states in either order.
    const aliceState = Y.encodeStateAsUpdate(alice.doc);
    const bobState = Y.encodeStateAsUpdate(bob.doc);
    const merged = [
      [aliceState, bobState],
      [bobState, aliceState],
    ].map((order) => {
      const replica = new Y.Doc();
      order.forEach((update) => Y.applyUpdate(replica, update));
      return objectsOf(replica);
    });
    expect(merged[0]).toEqual(merged[1]);
    const expected = merged[0]!;
    expect([{ x: 111, y: 111 }, { x: 222, y: 222 }]).toContainEqual(expected.shared!.position);

    await goOnline(bob);
    await goOnline(alice);
    expect(await converged([alice, bob])).toEqual(expected);
    await bob.saved();
    expect(await restObjects(server, board.boardId)).toEqual(expected);

    const restarted = await restart();
    expect(await restObjects(restarted, board.boardId)).toEqual(expected);
  });

  it('keeps an object deleted offline deleted although another client changed it meanwhile', async () => {
    const board = await createBoard();
    const alice = await join(server, board, 'alice');
    const bob = await join(server, board, 'bob');
    addObject(alice.doc, { id: 'doomed', data: { text: 'v1' } });
    addObject(alice.doc, { id: 'kept', data: { text: 'v1' } });
    await alice.saved();
    await eventually(() => bob.doc.getMap('objects').has('doomed') && bob.doc.getMap('objects').has('kept'));

    await goOffline(alice);
    alice.doc.getMap('objects').delete('doomed');
    objectOf(bob, 'doomed').set('data', { text: 'v2' });
    objectOf(bob, 'kept').set('data', { text: 'v2' });
    await bob.saved();

    await goOnline(alice);
    const objects = await converged([alice, bob], ['kept']);
    expect(Object.keys(objects)).toEqual(['kept']);
    expect(objects.kept!.data).toEqual({ text: 'v2' });
    expect(await restObjects(server, board.boardId)).toEqual(objects);
  });
});
