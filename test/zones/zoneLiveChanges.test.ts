import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard, postFrame, expectOk } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient, countSyncAcks } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * Access to a zone document is re-decided the moment assignment or visibility
 * changes; `frame:*` messages tell each board client only about frames it may see; a zone
 * the host moves carries its objects along.
 */

type Point = { x: number; y: number };

/** A provider client plus what the tests watch on it. */
interface Client extends BoardClient {
  /** Updates that came from the server, as raw bytes. */
  received: Uint8Array[];
  /** `authenticationFailed` reasons (the server refused to open the document). */
  refusals: string[];
  /** Reasons of closes the provider saw: the server closing this one document, or the socket. */
  documentCloses: string[];
  /** SyncStatus answers for this client's updates. */
  acks: { saved: number; refused: number };
}

const { server, clients } = serverForSuite();

const zoneDocument = (board: CreatedBoard, frameId: string) => `${board.board_uuid}/zones/${frameId}`;
const marker = (what: string) => `${what}-${randomUUID()}`;
const contains = (updates: Uint8Array[], text: string) => updates.some((update) => Buffer.from(update).toString('latin1').includes(text));
const objectsOf = (client: BoardClient) => client.doc.getMap('objects');

function connect(link: string, userId: string, name: string): Client {
  const base = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name });
  clients.push(base);
  const client: Client = { ...base, received: [], refusals: [], documentCloses: [], acks: { saved: 0, refused: 0 } };
  base.doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin === base.provider) client.received.push(update);
  });
  base.provider.on('authenticationFailed', ({ reason }: { reason: string }) => client.refusals.push(reason));
  base.provider.on('close', ({ event }: { event: { reason: string } }) => client.documentCloses.push(String(event.reason)));
  countSyncAcks(base.provider, client.acks);
  return client;
}

/** A student's personal link on the board: only it owns the student's zone. */
async function studentLink(board: CreatedBoard, userId: string): Promise<string> {
  return (await server.personalLink(board.board_uuid, userId)).link;
}

async function connectSynced(link: string, userId: string, name: string): Promise<Client> {
  const client = connect(link, userId, name);
  // Synced, and the handshake's own acknowledgement is in: later acks answer later writes.
  await client.saved();
  return client;
}

const newBoard = () => createBoard(server, 'Live zones');

const createFrame = (board: CreatedBoard, body: Record<string, unknown>) => postFrame(server, board.board_uuid, body);

const hostCall = (method: string, path: string, body?: unknown) => expectOk(server, method, path, body);

async function restObjects(board: CreatedBoard): Promise<Array<Record<string, any>>> {
  const read = await server.api('GET', `/boards/${board.board_uuid}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

/** A host write that `watcher` receives: every update the server applied before it has reached `watcher` too. */
async function barrier(writer: Client, watcher: Client): Promise<void> {
  const id = `barrier-${randomUUID()}`;
  addObject(writer.doc, { id, x: 1, y: 1 });
  await writer.saved();
  await eventually(() => objectsOf(watcher).has(id));
}

/** Writes an object and waits for the server's answer; true if it was applied. */
async function tryWrite(client: Client, object: Parameters<typeof addObject>[1]): Promise<boolean> {
  const before = { ...client.acks };
  addObject(client.doc, object);
  await eventually(() => client.acks.saved > before.saved || client.acks.refused > before.refused);
  return client.acks.saved > before.saved;
}

describe('live revocation and granting of zone documents', () => {
  it('an other guest holding a visible zone open loses it at once when the host hides the zone, and receives nothing written afterwards', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400, assigned_user_id: 'ada' });
    const name = zoneDocument(board, zone.id);
    const ada = await connectSynced(await studentLink(board, 'ada'), 'ada', name);
    const bob = await connectSynced(await studentLink(board, 'bob'), 'bob', name);
    const host = await connectSynced(board.access_links.host, 'teacher', name);
    expect(bob.provider.authorizedScope).toBe('readonly');
    addObject(ada.doc, { id: 'early', data: { text: 'before hiding' }, x: 10, y: 10 });
    await ada.saved();
    await eventually(() => objectsOf(bob).has('early'));

    await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { zone_visibility: 'hidden' });
    await eventually(() => bob.documentCloses.includes('zone-forbidden'), 2_000);
    expect(bob.closes).toEqual([]); // the document was closed, not bob's socket

    const secret = marker('secret');
    addObject(ada.doc, { id: 'late', data: { text: secret }, x: 20, y: 20 });
    await ada.saved();
    await eventually(() => objectsOf(host).has('late'));
    await barrier(host, ada);
    expect(contains(bob.received, secret)).toBe(false);
    expect(objectsOf(bob).has('late')).toBe(false);
    // Opening it again is refused now.
    const again = connect(await studentLink(board, 'bob'), 'bob', name);
    await eventually(() => again.refusals.length > 0);
    expect(again.refusals).toEqual(['zone-forbidden']);
    expect(contains(again.received, secret)).toBe(false);
  });

  it('an owner whose visible zone is reassigned keeps reading it, but its writes are refused from then on while the new owner’s land', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400, assigned_user_id: 'ada' });
    const name = zoneDocument(board, zone.id);
    const ada = await connectSynced(await studentLink(board, 'ada'), 'ada', name);
    const host = await connectSynced(board.access_links.host, 'teacher', name);
    expect(await tryWrite(ada, { id: 'mine', data: { text: 'ada wrote this' }, x: 10, y: 10 })).toBe(true);
    await eventually(() => objectsOf(host).has('mine'));

    const reassigned = await hostCall('POST', `/boards/${board.board_uuid}/frames/${zone.id}/assign`, { user_id: 'cy' });
    expect(reassigned).toMatchObject({ assigned_user_id: 'cy', zone_version: zone.zone_version + 1 });

    const refused = marker('refused');
    expect(await tryWrite(ada, { id: 'too-late', data: { text: refused }, x: 30, y: 30 })).toBe(false);
    await barrier(host, ada);
    expect(contains(host.received, refused)).toBe(false);
    expect(JSON.stringify(await restObjects(board))).not.toContain(refused);
    expect(ada.documentCloses).toEqual([]);

    const cy = await connectSynced(await studentLink(board, 'cy'), 'cy', name);
    expect(cy.provider.authorizedScope).toBe('read-write');
    expect(await tryWrite(cy, { id: 'cys', data: { text: 'cy wrote this' }, x: 50, y: 50 })).toBe(true);
    await eventually(() => objectsOf(ada).has('cys'));
    await eventually(() => objectsOf(host).has('cys'));
    const ids = (await restObjects(board)).map((object) => object.id).sort();
    expect(ids.filter((id) => !id.startsWith('barrier-'))).toEqual(['cys', 'mine']);
  });

  it('an owner whose hidden zone is reassigned loses the zone document at once', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { bounds_x: 0, bounds_y: 0, assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const name = zoneDocument(board, zone.id);
    const ada = await connectSynced(await studentLink(board, 'ada'), 'ada', name);
    const host = await connectSynced(board.access_links.host, 'teacher', name);

    await hostCall('POST', `/boards/${board.board_uuid}/frames/${zone.id}/assign`, { user_id: 'cy' });
    await eventually(() => ada.documentCloses.includes('zone-forbidden'), 2_000);
    const secret = marker('cy-secret');
    addObject(host.doc, { id: 'for-cy', data: { text: secret }, x: 5, y: 5 });
    await host.saved();
    const cy = await connectSynced(await studentLink(board, 'cy'), 'cy', name);
    expect(objectsOf(cy).has('for-cy')).toBe(true);
    expect(contains(ada.received, secret)).toBe(false);
  });

  it('unassigning a zone makes its document writable by every guest and frees its area in the board document', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400, assigned_user_id: 'ada' });
    const name = zoneDocument(board, zone.id);
    const ada = await connectSynced(await studentLink(board, 'ada'), 'ada', name);
    expect(await tryWrite(ada, { id: 'adas', data: { text: 'by ada' }, x: 10, y: 10 })).toBe(true);
    const bob = await connectSynced(await studentLink(board, 'bob'), 'bob', name);
    const host = await connectSynced(board.access_links.host, 'teacher', name);
    expect(bob.provider.authorizedScope).toBe('readonly');

    const plain = await hostCall('POST', `/boards/${board.board_uuid}/frames/${zone.id}/unassign`);
    expect(plain).toMatchObject({ assigned_user_id: null, assigned_participant_id: null, zone_version: zone.zone_version + 1 });

    // bob's open connection is writable now, and ada's objects are everyone's.
    expect(await tryWrite(bob, { id: 'bobs', data: { text: 'by bob' }, x: 20, y: 20 })).toBe(true);
    (objectsOf(bob).get('adas') as Y.Map<unknown>).set('data', { text: 'edited by bob' });
    await bob.saved();
    const adasData = (client: Client) => JSON.stringify((objectsOf(client).get('adas') as Y.Map<unknown>).get('data'));
    await eventually(() => objectsOf(host).has('bobs') && adasData(host) === JSON.stringify({ text: 'edited by bob' }));
    await eventually(() => adasData(ada) === JSON.stringify({ text: 'edited by bob' }));
    const dan = await connectSynced(await studentLink(board, 'dan'), 'dan', name);
    expect(dan.provider.authorizedScope).toBe('read-write');
    expect(await tryWrite(dan, { id: 'dans', x: 30, y: 30 })).toBe(true);
    const zoneObjects = (await restObjects(board)).filter((object) => object.zone_id === zone.id);
    expect(zoneObjects.map((object) => object.id).sort()).toEqual(['adas', 'bobs', 'dans']);
    expect(zoneObjects.find((object) => object.id === 'adas')?.data).toEqual({ text: 'edited by bob' });

    // The board document's area of the former zone takes guest writes again.
    const bobOnBoard = await connectSynced(await studentLink(board, 'bob'), 'bob', board.board_uuid);
    const hostOnBoard = await connectSynced(board.access_links.host, 'teacher', board.board_uuid);
    addObject(bobOnBoard.doc, { id: 'in-old-area', x: 100, y: 100 });
    await bobOnBoard.saved();
    await eventually(() => objectsOf(hostOnBoard).has('in-old-area'));
    expect(bobOnBoard.messages.some((message) => message.type === 'write-rejected')).toBe(false);
  });
});

describe('frame:* messages on the board document', () => {
  it('reach board clients as frames change, and a guest never receives the record of a zone it may not see', async () => {
    const board = await newBoard();
    const frames = `/boards/${board.board_uuid}/frames`;
    const host = await connectSynced(board.access_links.host, 'teacher', board.board_uuid);
    const ada = await connectSynced(await studentLink(board, 'ada'), 'ada', board.board_uuid);
    const bob = await connectSynced(await studentLink(board, 'bob'), 'bob', board.board_uuid);
    const frameMessages = (client: Client) =>
      client.messages.filter((message) => String(message.type).startsWith('frame:')).map((message) => ({ type: message.type, frame: message.frame }));
    const seen = (client: Client) => frameMessages(client).map((message) => `${message.type} ${message.frame.name ?? message.frame.id}`);
    /** Waits until each client has exactly the expected frame messages (new ones arrive as they happen). */
    const expectSeen = async (expected: Array<[Client, string[]]>) => {
      for (const [client, list] of expected) await eventually(() => seen(client).length >= list.length);
      for (const [client, list] of expected) expect(seen(client)).toEqual(list);
    };

    const plain = await createFrame(board, { name: 'Plain', bounds_x: 0, bounds_y: 5000 });
    await expectSeen([[host, ['frame:created Plain']], [ada, ['frame:created Plain']], [bob, ['frame:created Plain']]]);
    const hidden = await createFrame(board, { name: 'Ada hidden', bounds_x: 0, bounds_y: 0, assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const secret = await createFrame(board, { name: 'Secret', bounds_x: 2000, bounds_y: 0, assigned_user_id: 'ada', zone_visibility: 'host_only' });
    const visible = await createFrame(board, { name: 'Ada visible', bounds_x: 4000, bounds_y: 0, assigned_user_id: 'ada' });
    await expectSeen([
      [host, ['frame:created Plain', 'frame:created Ada hidden', 'frame:created Secret', 'frame:created Ada visible']],
      [ada, ['frame:created Plain', 'frame:created Ada hidden', 'frame:created Ada visible']],
      [bob, ['frame:created Plain', 'frame:created Ada visible']],
    ]);
    expect(frameMessages(bob)[1]!.frame).toMatchObject({ id: visible.id, assigned_user_id: 'ada', zone_visibility: 'visible' });

    await hostCall('PATCH', `${frames}/${hidden.id}`, { name: 'Ada hidden 2' });
    await hostCall('PATCH', `${frames}/${secret.id}`, { name: 'Secret 2' });
    await hostCall('PATCH', `${frames}/${visible.id}`, { name: 'Ada visible 2' });
    await hostCall('DELETE', `${frames}/${plain.id}`);
    await expectSeen([
      [host, ['frame:created Plain', 'frame:created Ada hidden', 'frame:created Secret', 'frame:created Ada visible', 'frame:updated Ada hidden 2', 'frame:updated Secret 2', 'frame:updated Ada visible 2', 'frame:deleted Plain']],
      [ada, ['frame:created Plain', 'frame:created Ada hidden', 'frame:created Ada visible', 'frame:updated Ada hidden 2', 'frame:updated Ada visible 2', 'frame:deleted Plain']],
      [bob, ['frame:created Plain', 'frame:created Ada visible', 'frame:updated Ada visible 2', 'frame:deleted Plain']],
    ]);

    // Hiding a zone bob could see tells him it is gone, with its id only.
    await hostCall('PATCH', `${frames}/${visible.id}`, { zone_visibility: 'hidden' });
    await eventually(() => frameMessages(bob).length === 5);
    expect(frameMessages(bob)[4]).toEqual({ type: 'frame:deleted', frame: { id: visible.id } });
    await eventually(() => frameMessages(ada).length === 7);
    expect(frameMessages(ada)[6]).toMatchObject({ type: 'frame:updated', frame: { id: visible.id, zone_visibility: 'hidden' } });

    const bobsRecords = frameMessages(bob).map((message) => message.frame.id);
    expect(bobsRecords).not.toContain(hidden.id);
    expect(bobsRecords).not.toContain(secret.id);
    expect(frameMessages(ada).map((message) => message.frame.id)).not.toContain(secret.id);
  });
});

describe('moving a zone', () => {
  /** Positions of every object of a document, by id. */
  const positions = (doc: Y.Doc) => {
    const result: Record<string, Point> = {};
    doc.getMap('objects').forEach((value, id) => (result[id] = (value as Y.Map<unknown>).get('position') as Point));
    return result;
  };
  /** Records each update from the server that changes any object's position. */
  const watchPositions = (client: Client) => {
    const states = [positions(client.doc)];
    client.doc.on('update', (_update: Uint8Array, origin: unknown) => {
      if (origin !== client.provider) return;
      const now = positions(client.doc);
      if (JSON.stringify(now) !== JSON.stringify(states.at(-1))) states.push(now);
    });
    return states;
  };
  const shifted = (before: Record<string, Point>, ids: string[], dx: number, dy: number) =>
    Object.fromEntries(Object.entries(before).map(([id, p]) => [id, ids.includes(id) ? { x: p.x + dx, y: p.y + dy } : p]));

  it('carries the zone document’s objects along in one update, REST objects placed in the zone included', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400, assigned_user_id: 'ada' });
    const ada = await connectSynced(await studentLink(board, 'ada'), 'ada', zoneDocument(board, zone.id));
    ada.doc.transact(() => {
      addObject(ada.doc, { id: 'a', x: 10, y: 10 });
      addObject(ada.doc, { id: 'b', x: 100, y: 250 });
      addObject(ada.doc, { id: 'c', x: 400, y: 400 });
    });
    await ada.saved();
    const ids: Record<string, string> = {};
    for (const [id, position] of [['inside', { x: 200, y: 200 }], ['outside', { x: 1000, y: 1000 }]] as const) {
      const added = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: id, data: {}, position });
      expect(added.status).toBe(201);
      ids[id] = added.body.id;
    }
    // Content inside the zone lives in the zone's document, REST content too.
    await eventually(() => objectsOf(ada).has(ids.inside!));
    const onBoard = await connectSynced(await studentLink(board, 'bob'), 'bob', board.board_uuid);
    expect([...objectsOf(onBoard).keys()]).toEqual([ids.outside]);
    const zoneStates = watchPositions(ada);

    const moved = await hostCall('PATCH', `/boards/${board.board_uuid}/frames/${zone.id}`, { bounds_x: 500, bounds_y: 100 });
    expect(moved).toMatchObject({ bounds_x: 500, bounds_y: 100, bounds_width: 400, bounds_height: 400, zone_version: zone.zone_version + 1 });

    const zoneExpected = shifted(zoneStates[0]!, ['a', 'b', 'c', ids.inside!], 500, 100);
    await eventually(() => JSON.stringify(positions(ada.doc)) === JSON.stringify(zoneExpected));
    expect(zoneStates).toEqual([zoneStates[0], zoneExpected]);

    const objects = await restObjects(board);
    const at = (id: string) => objects.find((object) => object.id === id)?.position;
    expect([at('a'), at('b'), at('c'), at(ids.inside!), at(ids.outside!)]).toEqual([
      { x: 510, y: 110 }, { x: 600, y: 350 }, { x: 900, y: 500 }, { x: 700, y: 300 }, { x: 1000, y: 1000 },
    ]);
    expect(positions(onBoard.doc)).toEqual({ [ids.outside!]: { x: 1000, y: 1000 } });

    // The owner's write rules follow the new bounds at once.
    expect(await tryWrite(ada, { id: 'new-area', x: 850, y: 450 })).toBe(true);
    addObject(ada.doc, { id: 'old-area', x: 50, y: 50 });
    await ada.saved();
    await eventually(() => !objectsOf(ada).has('old-area'));
    expect(ada.messages.some((message) => message.type === 'write-rejected' && message.object_ids.includes('old-area'))).toBe(true);
  });

  it('the owner (a guest) cannot move, resize or delete its zone over REST', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { bounds_x: 0, bounds_y: 0, bounds_width: 400, bounds_height: 400, assigned_user_id: 'ada' });
    const path = `/api/v1/boards/${board.board_uuid}/frames/${zone.id}`;
    const asAda = { authorization: `Bearer ${tokenOf(await studentLink(board, 'ada'))}` };
    expect((await request(server.url, 'GET', path, undefined, asAda)).status).toBe(200);
    for (const [method, body] of [['PATCH', { bounds_x: 300 }], ['PATCH', { bounds_y: -50 }], ['PATCH', { bounds_width: 900, bounds_height: 900 }], ['DELETE', undefined]] as const) {
      expectErrorBody(await request(server.url, method, path, body, asAda), { statusCode: 403, error: 'Forbidden', path });
    }
    const after = await server.api('GET', `/boards/${board.board_uuid}/frames/${zone.id}`);
    expect(after.body).toEqual(zone);
  });
});
