import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { openDatabase } from '../../src/store/database.js';
import { connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';
import { carriesDeepValue, deepUpdateOn, deepValue, PLACEHOLDER } from './socketDeepValues.js';

/**
 * Value bounds over the socket: every value a Yjs update writes into a board document
 * is bounded like any free-form JSON value before anything is stored or relayed. A value
 * nested too deep is refused (`write-rejected`, or the socket closed with 4400 when the
 * update is too deep to even decode); no other client receives it, and the board keeps
 * being read, synced and reloaded.
 */

interface Board {
  id: string;
  guestLink: string;
  hostLink: string;
  /** An object created over REST before any test write. */
  noteId: string;
  /** The owning organization's key (a restarted test server creates another organization). */
  apiKey: string;
}

/** A client that also keeps every update the server sent it. */
interface Watcher extends BoardClient {
  received: Uint8Array[];
}

const NOTE_DATA = { text: 'before' };

/** Where a test writes a value: each change writes `value` into a copy of the board document. */
const TARGETS: Array<{ what: string; objectId: (board: Board) => string | null; field: string; write: (doc: Y.Doc, board: Board, value: unknown) => void }> = [
  {
    what: 'an object’s data',
    objectId: (board) => board.noteId,
    field: 'data',
    write: (doc, board, value) => (doc.getMap('objects').get(board.noteId) as Y.Map<unknown>).set('data', value),
  },
  {
    what: 'a new object',
    objectId: () => 'deep-new',
    field: 'data',
    write: (doc, _board, value) =>
      doc.getMap('objects').set('deep-new', new Y.Map<unknown>([['id', 'deep-new'], ['type', 'note'], ['data', value], ['position', { x: 10, y: 10 }]])),
  },
  {
    what: 'a root map other than objects',
    objectId: () => null,
    field: 'meta.deep',
    write: (doc, _board, value) => doc.getMap('meta').set('deep', value),
  },
];

/** Depths written, and how the write must be refused. */
const DEPTHS = [
  // Decodes anywhere: applied and undone in one transaction, the sender told why.
  { depth: 40, refusal: 'write-rejected' },
  // The issue's value: decodable or not depending on how warm lib0's reader is.
  { depth: 5_000, refusal: 'either' },
  // Too deep for any normal stack: refused whole, the socket closed.
  { depth: 100_000, refusal: 'close' },
] as const;

let database: TestDatabase;
let server: TestServer;
const clients: BoardClient[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer({ database });
});
afterEach(() => {
  clients.splice(0).forEach((client) => client.destroy());
});
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

async function createBoard(): Promise<Board> {
  const created = await server.api('POST', '/boards', { title: `Bounds ${randomUUID().slice(0, 8)}` });
  expect(created.status).toBe(201);
  const note = await server.api('POST', `/boards/${created.body.board_uuid}/objects`, { type: 'note', data: NOTE_DATA, position: { x: 500, y: 500 } });
  expect(note.status).toBe(201);
  return { id: created.body.board_uuid, guestLink: created.body.access_links.guest, hostLink: created.body.access_links.host, noteId: note.body.id, apiKey: server.apiKey };
}

async function join(link: string, board: Board, userId: string): Promise<Watcher> {
  const client = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name: board.id });
  clients.push(client);
  const watcher: Watcher = { ...client, received: [] };
  client.doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin === client.provider) watcher.received.push(update);
  });
  await client.saved();
  return watcher;
}

/**
 * Writes a value `depth` levels deep through the sender's provider: a shallow one through its
 * document, as an app would; a deeper one, which lib0 cannot encode on this stack either, as
 * an update made by hand and sent by the provider as its own.
 */
function writeDeep(sender: BoardClient, board: Board, target: (typeof TARGETS)[number], depth: number): void {
  if (depth <= 1_000) {
    target.write(sender.doc, board, deepValue(depth));
    return;
  }
  const update = deepUpdateOn(sender.doc, depth, (copy) => target.write(copy, board, PLACEHOLDER));
  sender.provider.documentUpdateHandler(update, null);
}

/** Resolves once everything the server relayed before now has reached `watcher`. */
async function drained(board: Board, watcher: BoardClient): Promise<void> {
  const barrier = await server.api('POST', `/boards/${board.id}/objects`, { type: 'barrier', data: {}, position: { x: 0, y: 0 } });
  expect(barrier.status).toBe(201);
  await eventually(() => watcher.doc.getMap('objects').has(barrier.body.id));
}

async function restObjects(board: Board): Promise<Record<string, Record<string, unknown>>> {
  const read = await server.api('GET', `/boards/${board.id}`, undefined, { 'x-api-key': board.apiKey });
  expect(read.status).toBe(200);
  return Object.fromEntries((read.body.state.objects as Array<Record<string, unknown>>).map((object) => [object.id, object]));
}

/** The board as a client sees it: the note's data, whether the new object exists, the meta map. */
function seen(doc: Y.Doc, board: Board) {
  const note = doc.getMap('objects').get(board.noteId) as Y.Map<unknown> | undefined;
  return { noteData: note?.get('data'), newObject: doc.getMap('objects').has('deep-new'), meta: doc.getMap('meta').toJSON() };
}

describe('values written over a socket are bounded', () => {
  for (const { depth, refusal } of DEPTHS) {
    for (const target of TARGETS) {
      it(`a value ${depth} levels deep written into ${target.what} is refused, reaches no other client, and the board keeps answering`, async () => {
        const board = await createBoard();
        const watcher = await join(board.hostLink, board, 'watcher');
        const sender = await join(board.guestLink, board, 'sender');
        writeDeep(sender, board, target, depth);

        const rejection = () => sender.messages.find((message) => message.type === 'write-rejected');
        await eventually(() => rejection() || sender.closes.length > 0, 10_000);
        if (refusal === 'close' || (refusal === 'either' && !rejection())) {
          expect(sender.closes.at(-1)).toEqual({ code: 4400, reason: 'invalid-update' });
        } else {
          const objectId = target.objectId(board);
          expect(rejection()).toEqual({
            type: 'write-rejected',
            object_ids: objectId ? [objectId] : [],
            reason: 'invalid-value',
            details: [{ ...(objectId ? { object_id: objectId } : {}), field: target.field, message: 'nests deeper than 32 levels' }],
          });
        }

        await drained(board, watcher);
        expect(watcher.received.some((update) => carriesDeepValue(update))).toBe(false);
        expect(seen(watcher.doc, board)).toEqual({ noteData: NOTE_DATA, newObject: false, meta: {} });
        if (refusal === 'write-rejected') {
          // The sender got the undo and is back on the server's state.
          await eventually(() => JSON.stringify(seen(sender.doc, board)) === JSON.stringify(seen(watcher.doc, board)));
        }
        const objects = await restObjects(board);
        expect(objects[board.noteId]?.data).toEqual(NOTE_DATA);
        expect(objects['deep-new']).toBeUndefined();
      });
    }
  }

  it('a value at the bounds passes unchanged, into an object and into another root map', async () => {
    const board = await createBoard();
    const watcher = await join(board.hostLink, board, 'watcher');
    const sender = await join(board.guestLink, board, 'sender');
    const value = { ...deepValue(32), note: 'ü 🎉' };
    sender.doc.transact(() => {
      (sender.doc.getMap('objects').get(board.noteId) as Y.Map<unknown>).set('data', value);
      sender.doc.getMap('meta').set('deep', value);
    });
    await sender.saved();
    await eventually(() => JSON.stringify(watcher.doc.getMap('meta').get('deep')) === JSON.stringify(value));
    expect(seen(watcher.doc, board).noteData).toEqual(value);
    expect((await restObjects(board))[board.noteId]?.data).toEqual(value);
    expect(sender.messages.filter((message) => message.type === 'write-rejected')).toEqual([]);
    expect(sender.closes).toEqual([]);
  });

  it('a board sent deep values stores none of them, loads again after a restart, and a provider syncs it', async () => {
    const board = await createBoard();
    const watcher = await join(board.hostLink, board, 'watcher');
    for (const { depth } of DEPTHS) {
      for (const target of TARGETS) {
        const sender = await join(board.guestLink, board, `sender-${depth}`);
        writeDeep(sender, board, target, depth);
        await drained(board, watcher);
        sender.destroy();
      }
    }
    const before = await restObjects(board);
    await server.stop();
    const handle = await openDatabase(database.url);
    try {
      const updates = await handle.prisma.documentUpdate.findMany({ where: { name: board.id } });
      const snapshots = await handle.prisma.documentSnapshot.findMany({ where: { name: board.id } });
      const parts = [...updates.map((row) => new Uint8Array(row.update)), ...snapshots.map((row) => new Uint8Array(row.state))];
      expect(parts.length).toBeGreaterThan(0);
      expect(parts.some((part) => carriesDeepValue(part))).toBe(false);
    } finally {
      await handle.close();
    }
    server = await startTestServer({ database });

    expect(await restObjects(board)).toEqual(before);
    const reader = await join(board.hostLink, board, 'reader');
    expect(seen(reader.doc, board)).toEqual({ noteData: NOTE_DATA, newObject: false, meta: {} });
    expect(Object.keys(reader.doc.getMap('objects').toJSON()).sort()).toEqual(Object.keys(before).sort());
  });

  it('updates held back by the rate limit and merged, one of them too deep to decode, close the socket and leave the server answering', async () => {
    const board = await createBoard();
    const watcher = await join(board.hostLink, board, 'watcher');
    const sender = await join(board.guestLink, board, 'sender');
    const notes = sender.doc.getMap('notes');
    // Beyond the 10 messages a second a connection may send, updates are held and merged.
    for (let index = 0; index < 15; index += 1) notes.set(`n${index}`, index);
    writeDeep(sender, board, TARGETS[2]!, 100_000);
    await eventually(() => sender.closes.length > 0, 10_000);
    expect(sender.closes.at(-1)).toEqual({ code: 4400, reason: 'invalid-update' });
    expect((await request(server.url, 'GET', '/health')).status).toBe(200);
    await drained(board, watcher);
    expect(watcher.received.some((update) => carriesDeepValue(update))).toBe(false);
  });
});
