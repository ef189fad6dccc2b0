import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { DocumentStore } from '../../src/store/documentStore.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { killRunningServices, startServiceProcess, type ServiceProcess } from '../helpers/serviceProcess.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * An update is acknowledged (Hocuspocus SyncStatus) only once it is
 * durable, and a document that fails to load refuses connections. Failures are injected by
 * wrapping the real document store (`decorateStore`); everything else is the real service.
 */
const PROCESS_TEST_TIMEOUT_MS = 120_000;

type StoreMethods = Pick<DocumentStore, 'load' | 'append' | 'saveSnapshot'>;

/** Wraps the real store: `wrap` gets its real methods and returns the ones to replace. */
function decorateWith(wrap: (real: StoreMethods) => Partial<StoreMethods>) {
  return (store: DocumentStore): DocumentStore => {
    const real: StoreMethods = {
      load: store.load.bind(store),
      append: store.append.bind(store),
      saveSnapshot: store.saveSnapshot.bind(store),
    };
    return Object.assign(Object.create(store) as DocumentStore, wrap(real));
  };
}

/** Every latch handed out, released after each test so no held commit or load outlives it. */
const latches: Array<() => void> = [];

/** A promise the test resolves by hand. */
function latch(): { promise: Promise<void>; release(): void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  latches.push(release);
  return { promise, release };
}

const clients: BoardClient[] = [];
const servers: TestServer[] = [];
const databases: TestDatabase[] = [];

afterEach(async () => {
  latches.splice(0).forEach((release) => release());
  clients.splice(0).forEach((client) => client.destroy());
  await killRunningServices();
  await Promise.all(servers.splice(0).map((server) => server.stop().catch(() => undefined)));
  await Promise.all(databases.splice(0).map((database) => database.drop()));
});

afterAll(async () => {
  await killRunningServices();
});

async function newDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

async function serverOn(database: TestDatabase, decorateStore?: (store: DocumentStore) => DocumentStore): Promise<TestServer> {
  const server = await startTestServer({ database, decorateStore });
  servers.push(server);
  return server;
}

function connect(url: string, boardId: string): BoardClient {
  const client = connectBoardClient({ url, name: boardId });
  clients.push(client);
  return client;
}

/** The board's objects as a record by id, the way both a Y.Doc and REST can be compared. */
function objectsOf(doc: Y.Doc): Record<string, unknown> {
  return doc.getMap('objects').toJSON();
}

function byId(objects: Array<{ id: string }>): Record<string, unknown> {
  return Object.fromEntries(objects.map((object) => [object.id, object]));
}

interface SeededBoard {
  boardId: string;
  guestLink: string;
  socketUrl: string;
  objects: Record<string, unknown>;
}

/**
 * Creates a board whose objects are stored (snapshot and log) and whose document is no
 * longer loaded: a client adds `count` objects, is acknowledged, and leaves.
 */
async function seedBoard(server: TestServer, count: number): Promise<SeededBoard> {
  const created = await server.api('POST', '/boards', { title: 'Durable board' });
  expect(created.status).toBe(201);
  const boardId = created.body.board_uuid as string;
  const guestLink = created.body.access_links.guest as string;
  const socketUrl = server.socketUrl(guestLink);
  const writer = connect(socketUrl, boardId);
  await writer.synced();
  for (let index = 0; index < count; index += 1) addObject(writer.doc, { id: `seed-${index}`, data: { text: `seed ${index}` }, x: index });
  await writer.saved();
  const objects = objectsOf(writer.doc);
  writer.destroy();
  await eventually(() => server.app.documentsLoaded() === 0, 10_000);
  return { boardId, guestLink, socketUrl, objects };
}

/**
 * The durable state of a board as a second server on the same database sees it: it has
 * nothing in memory, so it reads the store, as the service would after a crash.
 */
async function storedObjects(database: TestDatabase, owner: TestServer, boardId: string): Promise<Record<string, unknown>> {
  const reader = await serverOn(database);
  const read = await reader.api('GET', `/boards/${boardId}`, undefined, { 'x-api-key': owner.apiKey });
  expect(read.status).toBe(200);
  return byId(read.body.state.objects);
}

describe('acknowledged updates survive kill -9 of the service process', () => {
  it(
    'keeps every update three clients had acknowledged when the process is SIGKILLed right after the last acknowledgement',
    async () => {
      const database = await newDatabase();
      const apiKey = `wb_${randomBytes(24).toString('base64url')}`;
      const env = { NODE_ENV: 'production', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, BOOTSTRAP_API_KEY: apiKey, LOG_LEVEL: 'warn' };
      const api = (service: ServiceProcess, method: string, path: string, body?: unknown) =>
        request(service.url, method, `/api/v1${path}`, body, { 'x-api-key': apiKey });
      const first = await startServiceProcess(env);

      const created = await api(first, 'POST', '/boards', { title: 'Burst board' });
      expect(created.status).toBe(201);
      const boardId = created.body.board_uuid as string;
      const token = new URL(created.body.access_links.guest).searchParams.get('token')!;
      const socketUrl = (service: ServiceProcess) => `${service.url.replace('http', 'ws')}/api/v1/realtime?token=${encodeURIComponent(token)}`;

      const writers = [0, 1, 2].map(() => connect(socketUrl(first), boardId));
      await Promise.all(writers.map((writer) => writer.synced()));
      // Each client: 150 objects added, then 50 of them changed, each its own update (200 per client).
      writers.forEach((writer, c) => {
        for (let i = 0; i < 150; i += 1) addObject(writer.doc, { id: `c${c}-o${i}`, data: { text: `client ${c} note ${i}` }, x: i, y: c });
        for (let i = 0; i < 50; i += 1) {
          (writer.doc.getMap('objects').get(`c${c}-o${i}`) as Y.Map<unknown>).set('data', { text: `client ${c} changed ${i}`, revision: 2 });
        }
      });
      await Promise.all(writers.map((writer) => writer.saved()));
      const killed = await first.stop('SIGKILL');
      expect(killed.signal).toBe('SIGKILL');

      // What each client was told is saved: its own 150 objects, in their latest state.
      const acknowledged = Object.fromEntries(
        writers.flatMap((writer, c) => Object.entries(objectsOf(writer.doc)).filter(([id]) => id.startsWith(`c${c}-`))),
      );
      expect(Object.keys(acknowledged)).toHaveLength(450);
      writers.forEach((writer) => writer.destroy());

      const second = await startServiceProcess(env);
      const read = await api(second, 'GET', `/boards/${boardId}`);
      expect(read.status).toBe(200);
      expect(byId(read.body.state.objects)).toEqual(acknowledged);
      expect(read.body.objects_count).toBe(450);

      const fresh = connect(socketUrl(second), boardId);
      await fresh.synced();
      expect(objectsOf(fresh.doc)).toEqual(acknowledged);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('acknowledgements wait for durability', () => {
  /** A server whose commits wait while held, and a writer and another client synced on a new board. */
  async function boardWithHeldCommits(title: string) {
    let held: ReturnType<typeof latch> | null = null;
    let commitsWaiting = 0;
    const server = await serverOn(
      await newDatabase(),
      decorateWith((real) => ({
        append: async (batch) => {
          const hold = held;
          if (hold) {
            commitsWaiting += 1;
            await hold.promise;
          }
          return real.append(batch);
        },
      })),
    );
    const created = await server.api('POST', '/boards', { title });
    const boardId = created.body.board_uuid as string;
    const url = server.socketUrl(created.body.access_links.guest);
    const [writer, other] = [connect(url, boardId), connect(url, boardId)];
    await Promise.all([writer.saved(), other.saved()]);
    return {
      server,
      boardId,
      writer,
      other,
      holdCommits: () => void (held = latch()),
      releaseCommits: () => {
        const hold = held;
        held = null;
        hold?.release();
      },
      commitsWaiting: () => commitsWaiting,
    };
  }

  it('broadcasts an update at once but acknowledges it only after its commit is released', async () => {
    const { server, boardId, writer, other: reader, holdCommits, releaseCommits, commitsWaiting } = await boardWithHeldCommits('Held commits');

    holdCommits();
    const acks: Array<{ unsynced: number; released: boolean }> = [];
    let released = false;
    writer.provider.on('unsyncedChanges', ({ number }: { number: number }) => acks.push({ unsynced: number, released }));
    addObject(writer.doc, { id: 'held', data: { text: 'waiting for its commit' } });

    await eventually(() => reader.doc.getMap('objects').has('held'));
    await eventually(() => commitsWaiting() > 0);
    const live = await server.api('GET', `/boards/${boardId}`);
    expect(live.body.state.objects.map((object: { id: string }) => object.id)).toEqual(['held']);
    expect(writer.provider.unsyncedChanges).toBeGreaterThan(0);

    released = true;
    releaseCommits();
    await writer.saved();
    expect(acks.filter((ack) => ack.unsynced === 0)).toEqual([{ unsynced: 0, released: true }]);
  });

  it("delivers other people's updates to a client whose own acknowledgement is still held", async () => {
    const { writer, other, holdCommits, releaseCommits } = await boardWithHeldCommits('Fan-out past held acknowledgements');

    holdCommits();
    addObject(writer.doc, { id: 'mine', data: { text: 'not yet committed' } });
    await eventually(() => other.doc.getMap('objects').has('mine'));
    addObject(other.doc, { id: 'theirs', data: { text: 'sent while mine waits' } });

    // The writer's acknowledgement is held, yet the other's update reaches it.
    await eventually(() => writer.doc.getMap('objects').has('theirs'));
    expect(writer.provider.unsyncedChanges).toBeGreaterThan(0);

    releaseCommits();
    await Promise.all([writer.saved(), other.saved()]);
  });
});

describe('Hocuspocus data-loss traps', () => {
  it('refuses clients while the document fails to load and never stores an empty document over the saved objects', async () => {
    let failLoads = false;
    let snapshots = 0;
    const database = await newDatabase();
    const server = await serverOn(
      database,
      decorateWith((real) => ({
        load: async (name) => {
          if (failLoads) throw new Error('injected: database read failed');
          return real.load(name);
        },
        saveSnapshot: async (...args) => {
          snapshots += 1;
          return real.saveSnapshot(...args);
        },
      })),
    );
    const board = await seedBoard(server, 5);
    // The objects sit in a snapshot, the row an empty document stored by mistake would replace.
    expect(snapshots).toBeGreaterThan(0);

    failLoads = true;
    const refused = connect(board.socketUrl, board.boardId);
    const failures: string[] = [];
    refused.provider.on('authenticationFailed', ({ reason }: { reason: string }) => failures.push(reason));
    // An edit the refused client holds: stored into an empty document, it would replace the board.
    addObject(refused.doc, { id: 'from-refused-client', data: { text: 'must not replace the board' } });
    await eventually(() => failures.length > 0 || refused.closes.length > 0);
    expect(refused.provider.isSynced).toBe(false);
    expect(Object.keys(objectsOf(refused.doc))).toEqual(['from-refused-client']);
    await eventually(() => server.app.documentsLoaded() === 0);
    refused.destroy();

    failLoads = false;
    const read = await server.api('GET', `/boards/${board.boardId}`);
    expect(byId(read.body.state.objects)).toEqual(board.objects);
    const fresh = connect(board.socketUrl, board.boardId);
    await fresh.synced();
    expect(objectsOf(fresh.doc)).toEqual(board.objects);
    expect(await storedObjects(database, server, board.boardId)).toEqual(board.objects);
  });

  it('gives five clients that join during a slow load the whole document and loses none of their edits', async () => {
    let slowLoad: ReturnType<typeof latch> | null = null;
    let loads = 0;
    const database = await newDatabase();
    const server = await serverOn(
      database,
      decorateWith((real) => ({
        load: async (name) => {
          loads += 1;
          const hold = slowLoad;
          slowLoad = null;
          if (hold) await hold.promise;
          return real.load(name);
        },
      })),
    );
    const board = await seedBoard(server, 10);

    const load = latch();
    slowLoad = load;
    const loadsBefore = loads;
    const joiners = [0, 1, 2, 3, 4].map(() => connect(board.socketUrl, board.boardId));
    // Authenticated before the load finishes: every one of them waits on the same slow load.
    await eventually(() => joiners.every((joiner) => joiner.provider.isAuthenticated));
    expect(loads).toBe(loadsBefore + 1);
    expect(joiners.some((joiner) => joiner.provider.isSynced)).toBe(false);
    joiners.forEach((joiner, j) => {
      for (let i = 0; i < 3; i += 1) addObject(joiner.doc, { id: `joiner-${j}-${i}`, data: { text: `edit made while loading ${i}` } });
    });
    load.release();

    await Promise.all(joiners.map((joiner) => joiner.saved()));
    expect(loads).toBe(loadsBefore + 1);
    const expected = { ...board.objects };
    joiners.forEach((joiner, j) => {
      for (let i = 0; i < 3; i += 1) expected[`joiner-${j}-${i}`] = objectsOf(joiner.doc)[`joiner-${j}-${i}`];
    });
    expect(Object.keys(expected)).toHaveLength(25);
    for (const joiner of joiners) await eventually(() => Object.keys(objectsOf(joiner.doc)).length === 25);
    for (const joiner of joiners) expect(objectsOf(joiner.doc)).toEqual(expected);
    expect(await storedObjects(database, server, board.boardId)).toEqual(expected);
  });

  it('keeps edits through a restart when snapshots fail, and unloads the document after the last client leaves', async () => {
    let snapshotAttempts = 0;
    const database = await newDatabase();
    const failingSnapshots = decorateWith(() => ({
      saveSnapshot: async () => {
        snapshotAttempts += 1;
        throw new Error('injected: snapshot write failed');
      },
    }));
    const server = await serverOn(database, failingSnapshots);
    const board = await seedBoard(server, 20);
    // seedBoard waited for the unload: the failed snapshot did not pin the document in memory.
    expect(snapshotAttempts).toBeGreaterThan(0);
    expect(server.app.documentsLoaded()).toBe(0);

    const second = connect(board.socketUrl, board.boardId);
    await second.synced();
    expect(objectsOf(second.doc)).toEqual(board.objects);
    addObject(second.doc, { id: 'after-failed-snapshot', data: { text: 'still in the log' } });
    await second.saved();
    const expected = objectsOf(second.doc);
    const attemptsBefore = snapshotAttempts;
    second.destroy();
    await eventually(() => snapshotAttempts > attemptsBefore && server.app.documentsLoaded() === 0);

    await server.stop();
    const restarted = await serverOn(database);
    const read = await restarted.api('GET', `/boards/${board.boardId}`, undefined, { 'x-api-key': server.apiKey });
    expect(byId(read.body.state.objects)).toEqual(expected);
    const fresh = connect(restarted.socketUrl(board.guestLink), board.boardId);
    await fresh.synced();
    expect(objectsOf(fresh.doc)).toEqual(expected);
  });

  it('retries a failing commit until it is durable and acknowledges the update only after the successful commit', async () => {
    let failuresLeft = 0;
    const log: string[] = [];
    let writer: BoardClient | null = null;
    const database = await newDatabase();
    const server = await serverOn(
      database,
      decorateWith((real) => ({
        append: async (batch) => {
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            log.push('commit failed');
            throw new Error('injected: commit failed');
          }
          if (writer && writer.provider.unsyncedChanges === 0) log.push('acknowledged before the commit');
          const results = await real.append(batch);
          log.push('committed');
          return results;
        },
      })),
    );
    const created = await server.api('POST', '/boards', { title: 'Flaky database' });
    const boardId = created.body.board_uuid as string;
    const url = server.socketUrl(created.body.access_links.guest);
    writer = connect(url, boardId);
    const reader = connect(url, boardId);
    await Promise.all([writer.synced(), reader.synced()]);
    log.length = 0;

    failuresLeft = 3;
    writer.provider.on('unsyncedChanges', ({ number }: { number: number }) => number === 0 && log.push('acknowledged'));
    addObject(writer.doc, { id: 'retried', data: { text: 'survives three failed commits' } });
    await eventually(() => reader.doc.getMap('objects').has('retried'));
    await writer.saved();

    expect(log).toEqual(['commit failed', 'commit failed', 'commit failed', 'committed', 'acknowledged']);
    const expected = objectsOf(writer.doc);
    expect(await storedObjects(database, server, boardId)).toEqual(expected);
  });
});
