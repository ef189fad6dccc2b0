import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { DocumentStore } from '../../src/store/documentStore.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard, postFrame, expectOk } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request, startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.js';

/**
 * Content inside a zone's bounds always lives in the zone's document, whoever
 * writes it. A REST object placed inside an active zone goes into the zone's document; the
 * board document's zone areas take no content from anyone, hosts included; content a zone
 * comes to cover (created, assigned, restored, moved or resized over it) moves into the
 * zone's document, written there before it leaves the board's.
 */

/** A provider client and every update the server sent it, as raw bytes. */
interface Client extends BoardClient {
  received: Uint8Array[];
}

const ZONE = { bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400 };

const { server, clients } = serverForSuite();
const marker = (what: string) => `${what}-${randomUUID()}`;

const zoneDocument = (board: CreatedBoard, frameId: string) => `${board.board_uuid}/zones/${frameId}`;
const objectsOf = (client: BoardClient) => client.doc.getMap('objects');
const heard = (client: Client, text: string) => client.received.some((update) => Buffer.from(update).toString('latin1').includes(text));
const positionOf = (client: BoardClient, id: string) => (objectsOf(client).get(id) as Y.Map<unknown> | undefined)?.get('position');

/**
 * How a student proves who it is, on the socket and over REST: today a user id declared next
 * to the guest link. The one place to change when students get personal links.
 */
async function student(board: CreatedBoard, userId: string): Promise<{ socketUrl: string; headers: Record<string, string> }> {
  const { link, token } = await server.personalLink(board.board_uuid, userId);
  return { socketUrl: server.socketUrl(link), headers: { authorization: `Bearer ${token}` } };
}

const studentHeaders = async (board: CreatedBoard, userId: string) => (await student(board, userId)).headers;

function connect(url: string, name: string): Client {
  const base = connectBoardClient({ url, name });
  clients.push(base);
  const client: Client = { ...base, received: [] };
  base.doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin === base.provider) client.received.push(update);
  });
  return client;
}

async function connectSynced(url: string, name: string): Promise<Client> {
  const client = connect(url, name);
  await client.saved();
  return client;
}

const asHost = (board: CreatedBoard, name: string) => connectSynced(server.socketUrl(board.access_links.host, { user_id: 'teacher' }), name);
const asStudent = async (board: CreatedBoard, userId: string, name: string) => connectSynced((await student(board, userId)).socketUrl, name);

const newBoard = () => createBoard(server, 'Zone content');

const createFrame = (board: CreatedBoard, body: Record<string, unknown>) => postFrame(server, board.board_uuid, { ...ZONE, ...body });

const hostCall = (method: string, path: string, body?: unknown) => expectOk(server, method, path, body);

function postObject(board: CreatedBoard, body: Record<string, unknown>, headers?: Record<string, string>): Promise<ApiResponse> {
  const object = { type: 'note', data: {}, ...body };
  return headers
    ? request(server.url, 'POST', `/api/v1/boards/${board.board_uuid}/objects`, object, headers)
    : server.api('POST', `/boards/${board.board_uuid}/objects`, object);
}

/** `state.objects` of GET /boards/<id>, as the host (API key) or with the given headers. */
async function stateObjects(board: CreatedBoard, headers?: Record<string, string>): Promise<Array<Record<string, any>>> {
  const read = headers
    ? await request(server.url, 'GET', `/api/v1/boards/${board.board_uuid}`, undefined, headers)
    : await server.api('GET', `/boards/${board.board_uuid}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

/** A host REST object far from every zone: once `watcher` has it, it has every earlier board update too. */
async function barrier(board: CreatedBoard, watcher: BoardClient): Promise<void> {
  const posted = await postObject(board, { type: 'barrier', position: { x: 50_000, y: 50_000 } });
  expect(posted.status).toBe(201);
  await eventually(() => objectsOf(watcher).has(posted.body.id));
}

describe('REST objects inside a zone', () => {
  it('a host object inside a hidden zone lands in the zone document: the owner receives it, other students never do, the answer names the zone', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const bob = await asStudent(board, 'bob', board.board_uuid);
    const ada = await asStudent(board, 'ada', zoneDocument(board, zone.id));
    const secret = marker('for-ada');

    const byApiKey = await postObject(board, { data: { text: secret }, position: { x: 50, y: 50 } });
    const byHostToken = await postObject(board, { data: { text: secret }, position: { x: 400, y: 400 } }, { authorization: `Bearer ${tokenOf(board.access_links.host)}` });
    for (const [posted, position] of [[byApiKey, { x: 50, y: 50 }], [byHostToken, { x: 400, y: 400 }]] as const) {
      expect(posted.status).toBe(201);
      expect(posted.body).toMatchObject({ type: 'note', data: { text: secret }, position, zone_id: zone.id });
    }
    const ids = [byApiKey.body.id as string, byHostToken.body.id as string];

    await eventually(() => ids.every((id) => objectsOf(ada).has(id)));
    await barrier(board, bob);
    expect(heard(bob, secret)).toBe(false);
    expect(ids.some((id) => objectsOf(bob).has(id))).toBe(false);
    expect(JSON.stringify(await stateObjects(board, await studentHeaders(board, 'bob')))).not.toContain(secret);
    const asHostSees = (await stateObjects(board)).filter((object) => ids.includes(object.id));
    expect(asHostSees.map((object) => object.zone_id)).toEqual([zone.id, zone.id]);
    const asAdaSees = (await stateObjects(board, await studentHeaders(board, 'ada'))).filter((object) => ids.includes(object.id));
    expect(asAdaSees).toEqual(asHostSees);
  });

  it('a student’s object inside a zone goes to the zone document when the zone lets that student write, and is refused otherwise', async () => {
    const board = await newBoard();
    const visible = await createFrame(board, { assigned_user_id: 'ada' });
    const hidden = await createFrame(board, { bounds_x: 1000, assigned_user_id: 'ada', zone_visibility: 'hidden' });
    await createFrame(board, { bounds_x: 2000 });
    const path = `/api/v1/boards/${board.board_uuid}/objects`;

    for (const [zone, x] of [[visible, 10], [hidden, 1010]] as const) {
      const mine = await postObject(board, { data: { text: 'ada' }, position: { x, y: 10 } }, await studentHeaders(board, 'ada'));
      expect(mine.status).toBe(201);
      expect(mine.body).toMatchObject({ created_by: 'ada', zone_id: zone.id });
      for (const headers of [await studentHeaders(board, 'bob'), { authorization: `Bearer ${tokenOf(board.access_links.guest)}` }]) {
        expectErrorBody(await postObject(board, { data: { text: 'bob' }, position: { x, y: 20 } }, headers), { statusCode: 403, error: 'Forbidden', path });
      }
    }
    // A plain frame's area, and the board outside any zone, belong to the board document.
    for (const x of [2010, 600]) {
      const posted = await postObject(board, { data: { text: 'bob' }, position: { x, y: 10 } }, await studentHeaders(board, 'bob'));
      expect(posted.status).toBe(201);
      expect(posted.body.zone_id).toBeUndefined();
    }
    const placed = (await stateObjects(board)).map((object) => [object.data.text, object.position.x, object.zone_id ?? board.board_uuid]);
    expect(placed).toEqual(
      expect.arrayContaining([['ada', 10, visible.id], ['ada', 1010, hidden.id], ['bob', 2010, board.board_uuid], ['bob', 600, board.board_uuid]]),
    );
    expect(placed).toHaveLength(4);
  });
});

describe('the board document’s zone areas take no content', () => {
  it('a host socket write into a zone area of the board document is rejected and reaches no other client, while its writes elsewhere land', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const host = await asHost(board, board.board_uuid);
    const bob = await asStudent(board, 'bob', board.board_uuid);
    addObject(host.doc, { id: 'movable', data: { text: 'outside' }, x: 900, y: 900 });
    await host.saved();
    await eventually(() => objectsOf(bob).has('movable'));
    const secret = marker('host-secret');

    host.doc.transact(() => {
      addObject(host.doc, { id: 'host-inside', data: { text: secret }, x: 10, y: 10 });
      (objectsOf(host).get('movable') as Y.Map<unknown>).set('position', { x: 200, y: 200 });
      addObject(host.doc, { id: 'host-outside', data: { text: 'fine' }, x: 800, y: 800 });
    });
    await host.saved();
    await eventually(() => host.messages.some((message) => message.type === 'write-rejected'));
    const rejected = host.messages.find((message) => message.type === 'write-rejected')!;
    expect({ ...rejected, object_ids: [...rejected.object_ids].sort() }).toEqual({ type: 'write-rejected', object_ids: ['host-inside', 'movable'], reason: 'zone-permissions' });
    await eventually(() => objectsOf(bob).has('host-outside'));
    await eventually(() => !objectsOf(host).has('host-inside') && isDeepStrictEqual(positionOf(host, 'movable'), { x: 900, y: 900 }));
    await barrier(board, bob);
    expect(heard(bob, secret)).toBe(false);
    expect(objectsOf(bob).has('host-inside')).toBe(false);
    expect(positionOf(bob, 'movable')).toEqual({ x: 900, y: 900 });
    const stored = await stateObjects(board);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored.filter((object) => object.zone_id === zone.id)).toEqual([]);
  });
});

describe('content a zone comes to cover moves into the zone’s document', () => {
  /** Board objects by a student (a Y.Map and a plain JSON value) and by the host over REST, inside `area`, and one outside. */
  async function seedBoard(board: CreatedBoard, origin: { x: number; y: number }) {
    const writer = await asStudent(board, 'bob', board.board_uuid);
    writer.doc.transact(() => {
      addObject(writer.doc, { id: 'map-note', data: { text: 'a map' }, x: origin.x + 10, y: origin.y + 10, createdBy: 'bob' });
      objectsOf(writer).set('plain-note', { id: 'plain-note', type: 'note', data: { text: 'plain' }, position: { x: origin.x + 300, y: origin.y + 300 } });
      addObject(writer.doc, { id: 'far-note', data: { text: 'far' }, x: origin.x + 3000, y: origin.y + 3000, createdBy: 'bob' });
    });
    await writer.saved();
    const rest = await postObject(board, { data: { text: 'by rest' }, position: { x: origin.x + 400, y: origin.y } });
    expect(rest.status).toBe(201);
    expect(rest.body.zone_id).toBeUndefined();
    const watcher = await asStudent(board, 'carol', board.board_uuid);
    const inside = ['map-note', 'plain-note', rest.body.id as string];
    await eventually(() => [...inside, 'far-note'].every((id) => objectsOf(watcher).has(id)));
    const before = Object.fromEntries(inside.map((id) => [id, objectsOf(watcher).toJSON()[id]]));
    return { watcher, inside, before };
  }

  /** The objects moved out of the board document (the watcher saw them go) into the zone's, unchanged, and nobody else can read them. */
  async function expectMovedIn(board: CreatedBoard, zoneId: string, seeded: Awaited<ReturnType<typeof seedBoard>>, shift = { x: 0, y: 0 }) {
    const { watcher, inside, before } = seeded;
    await eventually(() => inside.every((id) => !objectsOf(watcher).has(id)));
    expect(objectsOf(watcher).has('far-note')).toBe(true);
    const ada = await asStudent(board, 'ada', zoneDocument(board, zoneId));
    const inZone = objectsOf(ada).toJSON();
    for (const id of inside) {
      const { position, ...rest } = before[id] as { position: { x: number; y: number } };
      expect(inZone[id]).toEqual({ ...rest, position: { x: position.x + shift.x, y: position.y + shift.y } });
    }
    const asHost = await stateObjects(board);
    expect(asHost.filter((object) => inside.includes(object.id)).map((object) => object.zone_id)).toEqual(inside.map(() => zoneId));
    expect(asHost.filter((object) => object.id === 'far-note').map((object) => object.zone_id)).toEqual([undefined]);
    const asCarol = await stateObjects(board, await studentHeaders(board, 'carol'));
    expect(asCarol.filter((object) => inside.includes(object.id))).toEqual([]);
  }

  it('creating a zone over board objects', async () => {
    const board = await newBoard();
    const seeded = await seedBoard(board, { x: 0, y: 0 });
    const zone = await createFrame(board, { assigned_user_id: 'ada', zone_visibility: 'hidden' });
    await expectMovedIn(board, zone.id, seeded);
  });

  it('assigning a plain frame over board objects (one by one and in bulk)', async () => {
    const board = await newBoard();
    const one = await seedBoard(board, { x: 0, y: 0 });
    const plain = await createFrame(board, {});
    expect((await stateObjects(board)).every((object) => object.zone_id === undefined)).toBe(true);
    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${plain.id}`, { zone_visibility: 'hidden' });
    await hostCall('POST', `/boards/${board.board_uuid}/frames/${plain.id}/assign`, { user_id: 'ada' });
    await expectMovedIn(board, plain.id, one);

    const other = await newBoard();
    const bulk = await seedBoard(other, { x: 0, y: 0 });
    const frame = await createFrame(other, {});
    await hostCall('PATCH', `/boards/${other.board_uuid}/frames/${frame.id}`, { zone_visibility: 'hidden' });
    const assigned = await hostCall('POST', `/boards/${other.board_uuid}/zones/bulk-assign`, { assignments: [{ frame_id: frame.id, user_id: 'ada' }] });
    expect(assigned).toMatchObject({ assigned: 1, failed: 0 });
    await expectMovedIn(other, frame.id, bulk);
  });

  it('restoring an archived zone over what was written into its area meanwhile', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'ada', zone_visibility: 'hidden' });
    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { visibility: 'archived' });
    const seeded = await seedBoard(board, { x: 0, y: 0 });
    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { visibility: 'active' });
    await expectMovedIn(board, zone.id, seeded);
  });

  it('moving a zone over board objects, its own objects going along', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const ada = await asStudent(board, 'ada', zoneDocument(board, zone.id));
    addObject(ada.doc, { id: 'adas', data: { text: 'ada' }, x: 10, y: 20 });
    await ada.saved();
    const seeded = await seedBoard(board, { x: 5000, y: 0 });

    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { bounds_x: 5000 });
    await expectMovedIn(board, zone.id, seeded);
    await eventually(() => isDeepStrictEqual(positionOf(ada, 'adas'), { x: 5010, y: 20 }));
  });

  it('resizing a zone over board objects', async () => {
    const board = await newBoard();
    const small = { bounds_x: -95, bounds_y: -95, bounds_width: 100, bounds_height: 100 };
    const zone = await createFrame(board, { ...small, assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const seeded = await seedBoard(board, { x: 0, y: 0 });
    expect((await stateObjects(board)).every((object) => object.zone_id === undefined)).toBe(true);
    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { bounds_width: 500, bounds_height: 500 });
    await expectMovedIn(board, zone.id, seeded);
  });

  it('an object arriving under the id of one already in the zone document gets a new id; the zone’s own keeps its id', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'ada' });
    const ada = await asStudent(board, 'ada', zoneDocument(board, zone.id));
    addObject(ada.doc, { id: 'same-id', data: { text: 'ada' }, x: 10, y: 10, createdBy: 'ada' });
    await ada.saved();
    const bob = await asStudent(board, 'bob', board.board_uuid);
    addObject(bob.doc, { id: 'same-id', data: { text: 'bob' }, x: 1010, y: 10, createdBy: 'bob' });
    await bob.saved();

    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { bounds_x: 1000 });
    await eventually(() => !objectsOf(bob).has('same-id'));
    await eventually(() => objectsOf(ada).size === 2);
    const inZone = objectsOf(ada).toJSON() as Record<string, Record<string, any>>;
    expect(inZone['same-id']).toMatchObject({ id: 'same-id', data: { text: 'ada' }, position: { x: 1010, y: 10 } });
    const [arrivedId, arrived] = Object.entries(inZone).find(([id]) => id !== 'same-id')!;
    expect(arrived).toMatchObject({ id: arrivedId, data: { text: 'bob' }, position: { x: 1010, y: 10 }, created_by: 'bob' });
  });
});

describe('moving content into a zone survives a crash between the two documents', () => {
  type StoreMethods = Pick<DocumentStore, 'load' | 'append' | 'saveSnapshot'>;
  let held: { boardId: string; release: () => void; reached: boolean; promise: Promise<void> } | null = null;
  let crashing: TestServer;
  let reader: TestServer | undefined;

  beforeAll(async () => {
    crashing = await startTestServer({
      decorateStore: (store: DocumentStore): DocumentStore => {
        const append = store.append.bind(store);
        const wrapped: Partial<StoreMethods> = {
          append: async (batch) => {
            const hold = held;
            if (hold && batch.some((entry) => entry.name === hold.boardId)) {
              hold.reached = true;
              await hold.promise;
            }
            return append(batch);
          },
        };
        return Object.assign(Object.create(store) as DocumentStore, wrapped);
      },
    });
  });
  afterAll(async () => {
    held?.release();
    await reader?.stop();
    await crashing?.close();
  });

  it('the zone document holds the object before the board document lets it go', async () => {
    const created = await crashing.api('POST', '/boards', { title: 'Crash between documents' });
    const boardId = created.body.board_uuid as string;
    const posted = await crashing.api('POST', `/boards/${boardId}/objects`, { type: 'note', data: { text: 'keep me' }, position: { x: 10, y: 10 } });
    expect(posted.status).toBe(201);

    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    held = { boardId, release, reached: false, promise };
    const zoneCreation = crashing.api('POST', `/boards/${boardId}/frames`, { name: 'Zone', ...ZONE, assigned_user_id: 'ada' });
    await eventually(() => held!.reached);

    // What a service starting on the store now (after a crash) would find: the object twice, never lost.
    reader = await startTestServer({ database: crashing.database });
    const stored = await request(reader.url, 'GET', `/api/v1/boards/${boardId}`, undefined, { 'x-api-key': crashing.apiKey });
    expect(stored.status).toBe(200);
    const copies = (stored.body.state.objects as Array<Record<string, any>>).filter((object) => object.id === posted.body.id);
    expect(copies.map((object) => object.zone_id ?? 'board')).toEqual(['board', expect.any(String)]);

    held.release();
    held = null;
    const zone = await zoneCreation;
    expect(zone.status).toBe(201);
    const after = (await crashing.api('GET', `/boards/${boardId}`)).body.state.objects as Array<Record<string, any>>;
    expect(after.filter((object) => object.id === posted.body.id).map((object) => object.zone_id)).toEqual([zone.body.id]);
  });
});
