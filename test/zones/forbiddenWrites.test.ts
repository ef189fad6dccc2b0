import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { openDatabase } from '../../src/store/database.js';
import { DocumentStore } from '../../src/store/documentStore.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { type CreatedBoard, tokenOf } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * Write checks on sockets: a guest's socket update that touches the area of an assigned
 * zone in the board document (or leaves the zone's bounds in its zone document) never
 * reaches another client nor the store, the sender converges back to the server's state,
 * and whatever else the same update did still lands. Content inside a zone lives in the
 * zone's document, so the only objects lying in a zone's area of the board
 * document are ones an earlier version stored there: the tests store one.
 */

type Objects = Y.Map<unknown>;

/** A client that records what the server sends it and the objects after each received update. */
interface Client extends BoardClient {
  received: Uint8Array[];
  snapshots: Array<Record<string, any>>;
}

const ZONE = { bounds_x: 0, bounds_y: 0, bounds_width: 500, bounds_height: 500 };
const HOST_NOTE = { text: 'the host wrote this' };

const zoneDocument = (board: CreatedBoard, frameId: string) => `${board.board_uuid}/zones/${frameId}`;
const marker = (what: string) => `${what}-${randomUUID()}`;
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
const objectsOf = (client: BoardClient): Objects => client.doc.getMap('objects');
const field = (client: BoardClient, id: string, key: string) => (objectsOf(client).get(id) as Y.Map<unknown> | undefined)?.get(key);
/** REST objects as the document holds them: without `zone_id`, by id. */
const byId = (objects: Array<Record<string, any>>) =>
  Object.fromEntries(objects.map(({ zone_id: _zone, ...object }) => [object.id, object]));

/**
 * Stores, as an earlier version did, a host object inside the zone's area of the board
 * document; call before anything loads the board document.
 */
async function storeEarlierHostNote(server: TestServer, boardId: string): Promise<string> {
  const id = randomUUID();
  const doc = new Y.Doc();
  const fields: Array<[string, unknown]> = [['id', id], ['type', 'note'], ['data', HOST_NOTE], ['position', { x: 100, y: 100 }], ['created_at', new Date().toISOString()], ['created_by', null]];
  doc.getMap('objects').set(id, new Y.Map<unknown>(fields));
  const database = await openDatabase(server.database.url);
  try {
    await new DocumentStore(database).append([{ name: boardId, updates: [Y.encodeStateAsUpdate(doc)] }]);
  } finally {
    await database.close();
  }
  return id;
}

/** A server, its clients (destroyed after each test) and the board every test starts from. */
function harness() {
  const state = { server: undefined as unknown as TestServer, clients: [] as BoardClient[] };

  function connect(link: string, userId: string, name: string): Client {
    const base = connectBoardClient({ url: state.server.socketUrl(link, { user_id: userId }), name });
    state.clients.push(base);
    const client: Client = { ...base, received: [], snapshots: [] };
    base.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== base.provider) return;
      client.received.push(update);
      client.snapshots.push(objectsOf(base).toJSON());
    });
    return client;
  }

  async function connectSynced(link: string, userId: string, name: string): Promise<Client> {
    const client = connect(link, userId, name);
    // Synced, and the handshake's own acknowledgement is in: later acks answer later writes.
    await client.saved();
    return client;
  }

  /** A board with ada's zone, a host object an earlier version left inside the zone's area and bob's object outside it. */
  async function setUp() {
    const { server } = state;
    const board = (await server.api('POST', '/boards', { title: `Forbidden ${randomUUID().slice(0, 8)}` })).body as CreatedBoard;
    const zone = await server.api('POST', `/boards/${board.board_uuid}/frames`, { name: 'Ada', ...ZONE, assigned_user_id: 'ada' });
    expect(zone.status).toBe(201);
    const hostNoteId = await storeEarlierHostNote(server, board.board_uuid);
    const bob = await connectSynced(board.access_links.guest, 'bob', board.board_uuid);
    addObject(bob.doc, { id: 'bobs-note', data: { text: 'bob' }, x: 900, y: 900, createdBy: 'bob' });
    await bob.saved();
    const carol = await connectSynced(board.access_links.guest, 'carol', board.board_uuid);
    await eventually(() => objectsOf(carol).has('bobs-note'));
    await eventually(() => objectsOf(carol).has(hostNoteId));
    return { board, zoneId: zone.body.id as string, hostNoteId, bob, carol };
  }

  async function restObjects(board: CreatedBoard) {
    const read = await state.server.api('GET', `/boards/${board.board_uuid}`);
    expect(read.status).toBe(200);
    return read.body.state.objects as Array<Record<string, any>>;
  }

  afterEach(() => {
    state.clients.splice(0).forEach((client) => client.destroy());
  });
  return { state, connect, connectSynced, setUp, restObjects };
}

/** The forbidden part of one update (given a unique secret to carry), and the object it targets. */
const FORBIDDEN: Array<{
  what: string;
  write: (objects: Objects, ids: { hostNote: string }, secret: string) => void;
  target: (ids: { hostNote: string }) => string;
}> = [
  {
    what: 'creating an object in the zone area',
    write: (objects, _ids, secret) => objects.set('intruder', new Y.Map<unknown>([['id', 'intruder'], ['type', 'note'], ['data', { text: secret }], ['position', { x: 50, y: 50 }]])),
    target: () => 'intruder',
  },
  {
    what: 'moving an own object into the zone area',
    write: (objects, _ids, secret) => {
      const own = objects.get('bobs-note') as Y.Map<unknown>;
      own.set('position', { x: 60, y: 60 });
      own.set('data', { text: secret });
    },
    target: () => 'bobs-note',
  },
  {
    what: 'creating an object as a plain JSON value in the zone area',
    write: (objects, _ids, secret) => objects.set('plain-intruder', { id: 'plain-intruder', type: 'note', data: { text: secret }, position: { x: 70, y: 70 } }),
    target: () => 'plain-intruder',
  },
  {
    what: 'moving an own object into the zone area through a nested position map',
    write: (objects, _ids, secret) => {
      const own = objects.get('bobs-note') as Y.Map<unknown>;
      own.set('position', new Y.Map<unknown>([['x', 80], ['y', 80]]));
      own.set('data', { text: secret });
    },
    target: () => 'bobs-note',
  },
  {
    what: 'changing an object lying in the zone area',
    write: (objects, ids, secret) => (objects.get(ids.hostNote) as Y.Map<unknown>).set('data', { text: secret }),
    target: (ids) => ids.hostNote,
  },
  {
    what: 'deleting an object lying in the zone area',
    write: (objects, ids) => objects.delete(ids.hostNote),
    target: (ids) => ids.hostNote,
  },
];

describe('a guest writing into an assigned zone’s area of the board document', () => {
  const h = harness();
  beforeAll(async () => {
    h.state.server = await startTestServer();
  });
  afterAll(async () => {
    await h.state.server?.close();
  });

  for (const { what, write, target } of FORBIDDEN) {
    it(`${what} reaches no other client nor REST, the sender converges, and the same update’s allowed write lands`, async () => {
      const { board, hostNoteId, bob, carol } = await h.setUp();
      const ids = { hostNote: hostNoteId };
      const secret = marker('secret');
      const allowedText = marker('allowed');
      carol.received.length = 0;
      carol.snapshots.length = 0;

      bob.doc.transact(() => {
        write(objectsOf(bob), ids, secret);
        addObject(bob.doc, { id: 'allowed', data: { text: allowedText }, x: 800, y: 800, createdBy: 'bob' });
      });
      await bob.saved();
      await eventually(() => objectsOf(carol).has('allowed'));
      await eventually(() => bob.messages.some((message) => message.type === 'write-rejected'));
      expect(bob.messages.find((message) => message.type === 'write-rejected')).toEqual({
        type: 'write-rejected',
        object_ids: [target(ids)],
        reason: 'zone-permissions',
      });

      // The watcher never received the forbidden content, and never saw the zone's area change.
      expect(carol.received.some((update) => text(update).includes(secret))).toBe(false);
      expect(carol.received.some((update) => text(update).includes(allowedText))).toBe(true);
      for (const snapshot of carol.snapshots) {
        expect(snapshot.intruder).toBeUndefined();
        expect(snapshot['plain-intruder']).toBeUndefined();
        expect(snapshot[hostNoteId]).toMatchObject({ data: HOST_NOTE, position: { x: 100, y: 100 } });
        expect(snapshot['bobs-note']).toMatchObject({ data: { text: 'bob' }, position: { x: 900, y: 900 } });
      }

      // The sender is back on the server's state; REST shows the same.
      await eventually(() => isDeepStrictEqual(objectsOf(bob).toJSON(), objectsOf(carol).toJSON()));
      const fresh = await h.connectSynced(board.access_links.host, 'teacher', board.board_uuid);
      expect(objectsOf(bob).toJSON()).toEqual(objectsOf(fresh).toJSON());
      const rest = byId(await h.restObjects(board));
      expect(Object.keys(rest).sort()).toEqual(['allowed', 'bobs-note', hostNoteId].sort());
      expect(rest).toEqual(objectsOf(fresh).toJSON());
      expect(JSON.stringify(rest)).not.toContain(secret);
      // No webhook or agent event carries the forbidden content either.
      expect(JSON.stringify(h.state.server.events)).not.toContain(secret);
    });
  }

  it('the host writes anywhere in the zone document, and may move out what lies in the zone area of the board document, but puts nothing there', async () => {
    const { board, zoneId, hostNoteId, carol } = await h.setUp();
    const host = await h.connectSynced(board.access_links.host, 'teacher', board.board_uuid);
    host.doc.transact(() => {
      addObject(host.doc, { id: 'host-inside', x: 10, y: 10 });
      (objectsOf(host).get(hostNoteId) as Y.Map<unknown>).set('position', { x: 620, y: 130 });
    });
    await host.saved();
    await eventually(() => (field(carol, hostNoteId, 'position') as { x: number }).x === 620);
    await eventually(() => host.messages.some((message) => message.type === 'write-rejected'));
    expect(host.messages.find((message) => message.type === 'write-rejected')).toEqual({ type: 'write-rejected', object_ids: ['host-inside'], reason: 'zone-permissions' });
    expect(objectsOf(carol).has('host-inside')).toBe(false);
    const hostInZone = await h.connectSynced(board.access_links.host, 'teacher', zoneDocument(board, zoneId));
    const ada = await h.connectSynced((await h.state.server.personalLink(board.board_uuid, 'ada')).link, 'ada', zoneDocument(board, zoneId));
    addObject(hostInZone.doc, { id: 'beyond', x: 2000, y: 2000 });
    await hostInZone.saved();
    await eventually(() => objectsOf(ada).has('beyond'));
    expect(hostInZone.messages.some((message) => message.type === 'write-rejected')).toBe(false);
  });

  it('the owner writes inside its zone document, but creating or moving an object outside the zone bounds there is undone', async () => {
    const { board, zoneId } = await h.setUp();
    const name = zoneDocument(board, zoneId);
    const ada = await h.connectSynced((await h.state.server.personalLink(board.board_uuid, 'ada')).link, 'ada', name);
    const host = await h.connectSynced(board.access_links.host, 'teacher', name);
    addObject(ada.doc, { id: 'sketch', data: { text: 'inside' }, x: 250, y: 250, createdBy: 'ada' });
    await ada.saved();
    await eventually(() => objectsOf(host).has('sketch'));
    expect((await h.restObjects(board)).find((object) => object.id === 'sketch')).toMatchObject({ zone_id: zoneId, position: { x: 250, y: 250 } });

    const escape = marker('escape');
    host.received.length = 0;
    host.snapshots.length = 0;
    ada.doc.transact(() => {
      (objectsOf(ada).get('sketch') as Y.Map<unknown>).set('position', { x: 900, y: 250 });
      addObject(ada.doc, { id: 'outside', data: { text: escape }, x: 501, y: 10 });
      addObject(ada.doc, { id: 'second', data: { text: 'also inside' }, x: 500, y: 500 });
    });
    await ada.saved();
    await eventually(() => objectsOf(host).has('second'));
    await eventually(() => (field(ada, 'sketch', 'position') as { x: number }).x === 250 && !objectsOf(ada).has('outside'));
    expect(ada.messages.find((message) => message.type === 'write-rejected')?.object_ids.sort()).toEqual(['outside', 'sketch']);
    expect(host.received.some((update) => text(update).includes(escape))).toBe(false);
    for (const snapshot of host.snapshots) {
      expect(snapshot.sketch.position).toEqual({ x: 250, y: 250 });
      expect(snapshot.outside).toBeUndefined();
    }
    expect(objectsOf(ada).toJSON()).toEqual(objectsOf(host).toJSON());
  });

  it('REST POST /boards/:id/objects inside a zone area answers 403 to a guest who may not write the zone and 201 to the host, into the zone document', async () => {
    const { board, zoneId } = await h.setUp();
    const path = `/api/v1/boards/${board.board_uuid}/objects`;
    const inside = { type: 'note', data: { text: 'in the zone' }, position: { x: 10, y: 10 } };
    const asGuest = (userId: string) => ({ authorization: `Bearer ${tokenOf(board.access_links.guest)}`, 'x-user-id': userId });
    expectErrorBody(await request(h.state.server.url, 'POST', path, inside, asGuest('bob')), { statusCode: 403, error: 'Forbidden', path });
    expect((await request(h.state.server.url, 'POST', path, { ...inside, position: { x: 600, y: 10 } }, asGuest('bob'))).status).toBe(201);
    expect((await h.state.server.api('POST', `/boards/${board.board_uuid}/objects`, inside)).status).toBe(201);
    const hostToken = { authorization: `Bearer ${tokenOf(board.access_links.host)}` };
    expect((await request(h.state.server.url, 'POST', path, inside, hostToken)).status).toBe(201);
    const objects = (await h.restObjects(board)).filter((object) => object.data?.text === 'in the zone');
    expect(objects.map((object) => object.zone_id ?? 'board').sort()).toEqual(['board', zoneId, zoneId].sort());
  });
});

describe('refused writes after a restart on the same database', () => {
  const h = harness();
  let restarted: TestServer | undefined;
  let firstStopped = false;
  beforeAll(async () => {
    h.state.server = await startTestServer();
  });
  afterAll(async () => {
    if (!firstStopped) await h.state.server?.stop();
    await restarted?.stop();
    await h.state.server?.database.drop();
  });

  it('none of the forbidden writes were stored, while the allowed ones were', async () => {
    const first = h.state.server;
    const { board, hostNoteId, bob } = await h.setUp();
    const secrets = FORBIDDEN.map(({ what }) => marker(what.split(' ')[0]!));
    const allowed = FORBIDDEN.map((_, index) => `allowed-${index}`);
    for (const [index, { write }] of FORBIDDEN.entries()) {
      const before = bob.messages.length;
      bob.doc.transact(() => {
        write(objectsOf(bob), { hostNote: hostNoteId }, secrets[index]!);
        addObject(bob.doc, { id: allowed[index]!, x: 700 + index, y: 700, createdBy: 'bob' });
      });
      await bob.saved();
      await eventually(() => bob.messages.slice(before).some((message) => message.type === 'write-rejected'));
    }
    h.state.clients.splice(0).forEach((client) => client.destroy());
    await first.stop();
    firstStopped = true;

    // The store itself (update log and snapshots) holds none of the forbidden content.
    const database = await openDatabase(first.database.url);
    try {
      const where = { OR: [{ name: board.board_uuid }, { name: { startsWith: `${board.board_uuid}/` } }] };
      const updates = await database.prisma.documentUpdate.findMany({ where });
      const snapshots = await database.prisma.documentSnapshot.findMany({ where });
      const stored = [...updates.map((row) => text(row.update)), ...snapshots.map((row) => text(row.state))].join('\n');
      expect(stored.length).toBeGreaterThan(0);
      for (const secret of secrets) expect(stored).not.toContain(secret);
      for (const id of allowed) expect(stored).toContain(id);
    } finally {
      await database.close();
    }

    restarted = await startTestServer({ database: first.database });
    const read = await request(restarted.url, 'GET', `/api/v1/boards/${board.board_uuid}`, undefined, { 'x-api-key': first.apiKey });
    expect(read.status).toBe(200);
    const objects = byId(read.body.state.objects);
    expect(Object.keys(objects).sort()).toEqual([...allowed, 'bobs-note', hostNoteId].sort());
    expect(objects[hostNoteId]).toMatchObject({ data: HOST_NOTE, position: { x: 100, y: 100 } });
    expect(objects['bobs-note']).toMatchObject({ data: { text: 'bob' }, position: { x: 900, y: 900 } });
    for (const secret of secrets) expect(JSON.stringify(objects)).not.toContain(secret);
  });
});
