import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { Logger } from '../../src/logger.js';
import { DocumentLoader } from '../../src/realtime/documentLoader.js';
import { openDatabase } from '../../src/store/database.js';
import { DocumentStore } from '../../src/store/documentStore.js';
import { connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { request, startTestServer, type TestServer } from '../helpers/testServer.js';
import { carriesDeepValue, deepUpdateOn, PLACEHOLDER, withDeepValue } from './socketDeepValues.js';

/**
 * Documents stored before values were bounded: a board document stored with a value nested
 * thousands of levels deep before values were bounded (lib0 cannot decode it on a normal
 * stack) still loads and serves. The deep value is removed on the first load, the repaired
 * document is stored, and the next load is plain.
 */

const INITIAL = [
  { type: 'note', data: { text: 'first', tags: ['a'] }, position: { x: 1, y: 2 } },
  { type: 'shape', data: { kind: 'circle', radius: 4 }, position: { x: 30, y: 40 } },
];

/** A deep value written into the store as the service did before the fix. */
interface StoredDeepValue {
  what: string;
  /** Where the stored document holds it: a row of the update log, or the snapshot itself. */
  layout: 'log' | 'snapshot';
  /** Levels of nested objects (a JSON value), or of nested Y.Maps (a chain of types). */
  depth: number;
  kind: 'value' | 'types';
  /** Who loads it first: a REST read of the unloaded document, or a provider (Hocuspocus' load). */
  firstReader: 'rest' | 'provider';
}

const CASES: StoredDeepValue[] = [
  { what: 'a value 5,000 levels deep in the update log', layout: 'log', depth: 5_000, kind: 'value', firstReader: 'rest' },
  { what: 'a value 5,000 levels deep in the snapshot', layout: 'snapshot', depth: 5_000, kind: 'value', firstReader: 'provider' },
  { what: 'a value 100,000 levels deep (no stack here decodes it)', layout: 'log', depth: 100_000, kind: 'value', firstReader: 'provider' },
  { what: 'a value 40 levels deep (decodable, beyond the bounds)', layout: 'snapshot', depth: 40, kind: 'value', firstReader: 'rest' },
  { what: 'a chain of 5,000 nested Y.Maps', layout: 'log', depth: 5_000, kind: 'types', firstReader: 'rest' },
];

const databases: TestDatabase[] = [];
const servers: TestServer[] = [];
const clients: BoardClient[] = [];

afterEach(async () => {
  clients.splice(0).forEach((client) => client.destroy());
  await Promise.all(servers.splice(0).map((server) => server.stop().catch(() => undefined)));
  await Promise.all(databases.splice(0).map((database) => database.drop()));
});

/** A server on `database` that counts the repaired snapshots it stores. */
async function serverOn(database: TestDatabase, repairs: string[] = []): Promise<TestServer> {
  const server = await startTestServer({
    database,
    decorateStore: (store) =>
      Object.assign(Object.create(store) as DocumentStore, {
        saveRepairedSnapshot: (name: string, state: Uint8Array, uptoSeq: number) => {
          repairs.push(name);
          return store.saveRepairedSnapshot(name, state, uptoSeq);
        },
      }),
  });
  servers.push(server);
  return server;
}

/** A board with INITIAL objects, stored and unloaded (its server stopped); returns what REST showed. */
async function storedBoard(database: TestDatabase) {
  const server = await serverOn(database);
  const created = await server.api('POST', '/boards', { title: 'Bricked before the fix', initial_objects: INITIAL });
  expect(created.status).toBe(201);
  const boardId = created.body.board_uuid as string;
  const read = await server.api('GET', `/boards/${boardId}`);
  expect(read.status).toBe(200);
  await server.stop();
  servers.splice(servers.indexOf(server), 1);
  return { boardId, apiKey: server.apiKey, hostLink: created.body.access_links.host as string, objects: byId(read.body.state.objects) };
}

/** Writes the deep value straight into the store, as an object `deep-object` of the board. */
async function storeDeepValue(database: TestDatabase, boardId: string, stored: StoredDeepValue): Promise<void> {
  const handle = await openDatabase(database.url);
  try {
    const store = new DocumentStore(handle);
    const { state, lastSeq } = await store.load(boardId);
    const doc = new Y.Doc();
    Y.applyUpdate(doc, state!);
    const addDeepObject = (target: Y.Doc) => {
      const object = new Y.Map<unknown>([['id', 'deep-object'], ['type', 'note'], ['position', { x: 5, y: 5 }], ['created_at', '2030-01-01T00:00:00.000Z']]);
      target.getMap('objects').set('deep-object', object);
      if (stored.kind === 'value') object.set('data', PLACEHOLDER);
      else nestMaps(object, 'data', stored.depth);
    };
    if (stored.kind === 'types') {
      const before = Y.encodeStateVector(doc);
      addDeepObject(doc);
      await store.append([{ name: boardId, updates: [Y.encodeStateAsUpdate(doc, before)] }]);
    } else if (stored.layout === 'log') {
      await store.append([{ name: boardId, updates: [deepUpdateOn(doc, stored.depth, addDeepObject)] }]);
    } else {
      addDeepObject(doc);
      await store.saveSnapshot(boardId, withDeepValue(Y.encodeStateAsUpdate(doc), stored.depth), lastSeq);
    }
  } finally {
    await handle.close();
  }
}

function nestMaps(map: Y.Map<unknown>, key: string, count: number): void {
  let parent = map;
  let name = key;
  for (let level = 0; level < count; level += 1) {
    const child = new Y.Map<unknown>();
    parent.set(name, child);
    parent = child;
    name = 'a';
  }
}

/** Whether the stored parts of a document still hold a deep value. */
async function storedHoldsDeepValue(database: TestDatabase, name: string): Promise<boolean> {
  const handle = await openDatabase(database.url);
  try {
    const { parts } = await new DocumentStore(handle).loadParts(name);
    return parts.some((part) => carriesDeepValue(part));
  } finally {
    await handle.close();
  }
}

/** Levels of `{a: {a: … {}}}`. */
function levelsOf(value: unknown): number {
  let levels = 0;
  for (let current = value; current && typeof current === 'object'; current = (current as { a?: unknown }).a) levels += 1;
  return levels;
}

function byId(objects: Array<Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(objects.map((object) => [object.id, object]));
}

async function readOver(server: TestServer, boardId: string, apiKey: string) {
  const read = await request(server.url, 'GET', `/api/v1/boards/${boardId}`, undefined, { 'x-api-key': apiKey });
  expect(read.status).toBe(200);
  return byId(read.body.state.objects);
}

async function syncOver(server: TestServer, boardId: string, hostLink: string): Promise<Record<string, Record<string, unknown>>> {
  const client = connectBoardClient({ url: server.socketUrl(hostLink, { user_id: 'teacher' }), name: boardId });
  clients.push(client);
  await client.synced();
  return client.doc.getMap('objects').toJSON();
}

describe('a board document stored with a value beyond the bounds', () => {
  for (const stored of CASES) {
    it(`${stored.what} loads (${stored.firstReader} first) without it, the other objects intact, and the next load is plain`, async () => {
      const database = await createTestDatabase();
      databases.push(database);
      const board = await storedBoard(database);
      await storeDeepValue(database, board.boardId, stored);

      const repairs: string[] = [];
      const server = await serverOn(database, repairs);
      const readers = {
        rest: () => readOver(server, board.boardId, board.apiKey),
        provider: () => syncOver(server, board.boardId, board.hostLink),
      };
      const seen = { [stored.firstReader]: await readers[stored.firstReader]() } as Record<'rest' | 'provider', Record<string, Record<string, unknown>>>;
      const secondReader = stored.firstReader === 'rest' ? 'provider' : 'rest';
      seen[secondReader] = await readers[secondReader]();
      for (const objects of Object.values(seen)) {
        const { 'deep-object': repaired, ...others } = objects;
        expect(Object.keys(others).sort()).toEqual(Object.keys(board.objects).sort());
        for (const [id, object] of Object.entries(others)) expect(object).toMatchObject({ data: board.objects[id]!.data, position: board.objects[id]!.position });
        expect(repaired).toMatchObject({ id: 'deep-object', type: 'note', position: { x: 5, y: 5 } });
        // A value goes whole; a chain of types is cut where it leaves the bounds (32 levels below the object).
        expect(stored.kind === 'value' ? repaired!.data : levelsOf(repaired!.data)).toEqual(stored.kind === 'value' ? undefined : 32);
      }
      expect(repairs.length).toBeGreaterThan(0);
      expect(await storedHoldsDeepValue(database, board.boardId)).toBe(false);

      await server.stop();
      servers.splice(servers.indexOf(server), 1);
      const again: string[] = [];
      const restarted = await serverOn(database, again);
      expect(await readOver(restarted, board.boardId, board.apiKey)).toEqual(seen.rest);
      expect(await syncOver(restarted, board.boardId, board.hostLink)).toEqual(seen.provider);
      expect(again).toEqual([]);
    });
  }

  it('logs one warning with the board and how many values were removed', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const board = await storedBoard(database);
    await storeDeepValue(database, board.boardId, { what: '', layout: 'log', depth: 100_000, kind: 'value', firstReader: 'rest' });
    const handle = await openDatabase(database.url);
    try {
      const warnings: unknown[][] = [];
      const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
      const doc = await new DocumentLoader(new DocumentStore(handle), logger).loadFresh(board.boardId);
      expect(doc.getMap('objects').has('deep-object')).toBe(true);
      expect(warnings).toEqual([[{ board_id: board.boardId, document: board.boardId, removed_values: 1 }, expect.stringContaining('removed')]]);
    } finally {
      await handle.close();
    }
  });
});
