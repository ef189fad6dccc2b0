import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { serverForSuite, type CreatedBoard, QUIZ_SCHEMA } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Write checks for custom object types: an object of a registered type written
 * over a socket with data that fails the type's schema never reaches another client nor the
 * store, whoever writes it (hosts included); the writer converges back and is told
 * (`write-rejected`, reason `invalid-object`). Valid objects flow as usual.
 */

/** A client that records every update the server sends it and the objects after each. */
interface Client extends BoardClient {
  received: Uint8Array[];
  snapshots: Array<Record<string, any>>;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
const marker = (what: string) => `${what}-${randomUUID()}`;
const objectsOf = (client: BoardClient): Y.Map<unknown> => client.doc.getMap('objects');

const { server, clients } = serverForSuite();

beforeAll(async () => {
  const registered = await server.api('POST', '/object-types', { typeName: 'quiz', displayName: 'Quiz', category: 'assessment', schema: QUIZ_SCHEMA });
  expect(registered.status).toBe(201);
});

async function connect(link: string, userId: string, board: CreatedBoard): Promise<Client> {
  const base = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name: board.board_uuid });
  clients.push(base);
  const client: Client = { ...base, received: [], snapshots: [] };
  base.doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== base.provider) return;
    client.received.push(update);
    client.snapshots.push(objectsOf(base).toJSON());
  });
  await client.saved();
  return client;
}

/** A board with a guest writer, a host and a guest watching. */
async function setUp() {
  const board = (await server.api('POST', '/boards', { title: `Quiz ${randomUUID().slice(0, 8)}` })).body as CreatedBoard;
  const writer = await connect(board.access_links.guest, 'bob', board);
  const host = await connect(board.access_links.host, 'teacher', board);
  const watcher = await connect(board.access_links.guest, 'carol', board);
  return { board, writer, host, watcher };
}

async function restObjects(board: CreatedBoard): Promise<Array<Record<string, any>>> {
  const read = await server.api('GET', `/boards/${board.board_uuid}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

function rejection(client: BoardClient) {
  return client.messages.find((message) => message.type === 'write-rejected' && message.reason === 'invalid-object');
}

/**
 * `writer` sends, in one update, an invalid object (carrying a unique secret) and a valid
 * one; returns once the valid one reached `watcher` and the writer was told of the refusal.
 */
async function writeInvalidAndValid(writer: Client, watcher: Client, invalid: (secret: string) => void) {
  const secret = marker('secret');
  const allowed = marker('allowed');
  watcher.received.length = 0;
  watcher.snapshots.length = 0;
  writer.doc.transact(() => {
    invalid(secret);
    addObject(writer.doc, { id: allowed, type: 'quiz', data: { question: 'Valid?', points: 1 }, x: 900, y: 900 });
  });
  await writer.saved();
  await eventually(() => objectsOf(watcher).has(allowed));
  await eventually(() => rejection(writer));
  return { secret, allowed };
}

/** Nothing of the refused write reached the watcher, REST, the events; the writer converged. */
async function expectRefused(board: CreatedBoard, writer: Client, watcher: Client, refusedId: string, secret: string) {
  expect(watcher.received.some((update) => text(update).includes(secret))).toBe(false);
  for (const snapshot of watcher.snapshots) expect(JSON.stringify(snapshot[refusedId] ?? null)).not.toContain(secret);
  await eventually(() => isDeepStrictEqual(objectsOf(writer).toJSON(), objectsOf(watcher).toJSON()));
  const rest = await restObjects(board);
  expect(JSON.stringify(rest)).not.toContain(secret);
  expect(JSON.stringify(server.events)).not.toContain(secret);
  return rest;
}

describe('an object of a registered type written over a socket', () => {
  it('with invalid data never reaches another client nor REST; the writer converges and receives write-rejected', async () => {
    const { board, writer, watcher } = await setUp();
    const id = marker('invalid');
    const { secret, allowed } = await writeInvalidAndValid(writer, watcher, (secret) =>
      addObject(writer.doc, { id, type: 'quiz', data: { question: secret, points: 'many' }, x: 10, y: 10 }),
    );

    expect(rejection(writer)).toEqual({
      type: 'write-rejected',
      reason: 'invalid-object',
      object_ids: [id],
      details: [{ object_id: id, field: 'data.points', message: 'must be integer' }],
    });
    const rest = await expectRefused(board, writer, watcher, id, secret);
    expect(objectsOf(writer).has(id)).toBe(false);
    expect(watcher.snapshots.some((snapshot) => id in snapshot)).toBe(false);
    expect(rest.map((object) => object.id)).toEqual([allowed]);
  });

  it('with valid data is seen by the other clients and by REST', async () => {
    const { board, writer, host, watcher } = await setUp();
    addObject(writer.doc, { id: 'good', type: 'quiz', data: { question: 'Capital of France?', points: 2 }, x: 5, y: 5 });
    await writer.saved();
    await eventually(() => objectsOf(watcher).has('good') && objectsOf(host).has('good'));
    expect((objectsOf(watcher).get('good') as Y.Map<unknown>).get('data')).toEqual({ question: 'Capital of France?', points: 2 });
    expect(rejection(writer)).toBeUndefined();
    expect((await restObjects(board)).map((object) => object.id)).toEqual(['good']);
  });

  it('is checked for the host too', async () => {
    const { board, host, watcher } = await setUp();
    const id = marker('host-invalid');
    const { secret } = await writeInvalidAndValid(host, watcher, (secret) =>
      addObject(host.doc, { id, type: 'quiz', data: { question: secret, points: 500 }, x: 10, y: 10 }),
    );
    expect(rejection(host)).toMatchObject({ object_ids: [id], details: [{ object_id: id, field: 'data.points' }] });
    await expectRefused(board, host, watcher, id, secret);
    expect(objectsOf(host).has(id)).toBe(false);
  });

  it('changed to invalid data is put back as it was, for everyone', async () => {
    const { board, writer, watcher } = await setUp();
    addObject(writer.doc, { id: 'quiz-1', type: 'quiz', data: { question: 'Original?', points: 3 }, x: 5, y: 5 });
    await writer.saved();
    await eventually(() => objectsOf(watcher).has('quiz-1'));

    const { secret } = await writeInvalidAndValid(writer, watcher, (secret) =>
      (objectsOf(writer).get('quiz-1') as Y.Map<unknown>).set('data', { question: secret, unexpected: true }),
    );
    expect(rejection(writer)).toMatchObject({ object_ids: ['quiz-1'], details: [{ object_id: 'quiz-1', field: 'data.unexpected' }] });
    const rest = await expectRefused(board, writer, watcher, 'quiz-1', secret);
    expect((objectsOf(writer).get('quiz-1') as Y.Map<unknown>).get('data')).toEqual({ question: 'Original?', points: 3 });
    expect(rest.find((object) => object.id === 'quiz-1')?.data).toEqual({ question: 'Original?', points: 3 });
  });

  it('sent ahead of the update it depends on is still checked when that update arrives', async () => {
    const { board, writer, watcher } = await setUp();
    // Two updates of one client, sent in reverse order: the first to arrive cannot be
    // integrated yet (it waits for the other), and the second releases it.
    const crafted = new Y.Doc();
    crafted.clientID = writer.doc.clientID + 1;
    Y.applyUpdate(crafted, Y.encodeStateAsUpdate(writer.doc));
    const updates: Uint8Array[] = [];
    crafted.on('update', (update: Uint8Array) => updates.push(update));
    const secret = marker('secret');
    addObject(crafted, { id: 'harmless', type: 'sticky', data: { text: 'hello' } });
    addObject(crafted, { id: 'smuggled', type: 'quiz', data: { question: secret, points: 'many' } });
    writer.provider.documentUpdateHandler(updates[1]!, 'test');
    writer.provider.documentUpdateHandler(updates[0]!, 'test');

    await eventually(() => objectsOf(watcher).has('harmless'));
    await eventually(() => rejection(writer));
    expect(watcher.received.some((update) => text(update).includes(secret))).toBe(false);
    expect(objectsOf(watcher).has('smuggled')).toBe(false);
    const rest = await restObjects(board);
    expect(rest.map((object) => object.id)).toEqual(['harmless']);
  });

  it('with __proto__ in its data is refused, whatever its type', async () => {
    const { board, writer, watcher } = await setUp();
    const id = marker('proto');
    const { secret } = await writeInvalidAndValid(writer, watcher, (secret) =>
      addObject(writer.doc, { id, type: 'sticky', data: JSON.parse(`{"note":"${secret}","__proto__":{"polluted":1}}`) }),
    );
    expect(rejection(writer)).toMatchObject({ object_ids: [id], details: [{ object_id: id, field: 'data.__proto__' }] });
    await expectRefused(board, writer, watcher, id, secret);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
