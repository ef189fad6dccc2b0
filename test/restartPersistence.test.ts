import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BoardObject } from '../src/boards/boardObjects.js';
import { killRunningServices, startServiceProcess, type ServiceProcess } from './helpers/serviceProcess.js';
import { createTestDatabase, type TestDatabase } from './helpers/testDatabase.js';
import { request, type ApiResponse } from './helpers/testServer.js';

/**
 * Runs the service the way docker-compose does (the real entry point, its environment
 * variables, one process per start), only without Docker, and kills it mid-flight.
 */
const PROCESS_TEST_TIMEOUT_MS = 120_000;


const databases: TestDatabase[] = [];

/** Starts the service the way the container does (production mode), on `databaseUrl`. */
function startService(databaseUrl: string, apiKey: string): Promise<ServiceProcess> {
  return startServiceProcess({
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    BOOTSTRAP_API_KEY: apiKey,
    LOG_LEVEL: 'warn',
  });
}

function stopService(service: ServiceProcess, signal: NodeJS.Signals) {
  return service.stop(signal);
}

async function newDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

function api(service: ServiceProcess, apiKey: string, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  return request(service.url, method, `/api/v1${path}`, body, { 'x-api-key': apiKey });
}

const byId = (objects: BoardObject[]) => [...objects].sort((a, b) => a.id.localeCompare(b.id));

async function addObject(service: ServiceProcess, apiKey: string, boardId: string, index: number): Promise<BoardObject> {
  const response = await api(service, apiKey, 'POST', `/boards/${boardId}/objects`, {
    type: index % 2 === 0 ? 'sticky-note' : 'shape',
    data: { text: `note ${index}`, tags: ['a', `t${index}`], nested: { index, ok: true } },
    position: { x: index * 10.5, y: -index * 3 },
    ...(index % 3 === 0 ? { width: 120 + index, height: 80 } : {}),
  });
  expect(response.status).toBe(201);
  return response.body as BoardObject;
}

afterEach(async () => {
  // Never leave a service behind, whatever failed.
  await killRunningServices();
  await Promise.all(databases.splice(0).map((database) => database.drop()));
});

afterAll(async () => {
  await killRunningServices();
});

describe('restart persistence of the service process', () => {
  it(
    'keeps every acknowledged object when the process is killed with SIGKILL right after the last 201',
    async () => {
      const database = await newDatabase();
      const apiKey = `wb_${randomBytes(24).toString('base64url')}`;
      const first = await startService(database.url, apiKey);

      const created = await api(first, apiKey, 'POST', '/boards', {
        title: 'Durable board',
        initial_objects: [
          { type: 'sticky-note', data: { text: 'initial 1' }, position: { x: 0, y: 0 } },
          { type: 'shape', data: { kind: 'circle', radius: 4 }, position: { x: 100, y: 50 } },
          { type: 'sticky-note', data: { text: 'initial 3', list: [1, 2, 3] }, position: { x: -20.25, y: 7 } },
        ],
      });
      expect(created.status).toBe(201);
      const boardId = created.body.board_uuid as string;
      const initial = await api(first, apiKey, 'GET', `/boards/${boardId}`);
      expect(initial.body.state.objects).toHaveLength(3);
      const versionAfterCreate = initial.body.state.version as number;

      const added: BoardObject[] = [];
      for (let index = 0; index < 6; index += 1) added.push(await addObject(first, apiKey, boardId, index));
      // A burst of concurrent writes lands in shared group commits; each is still acknowledged on its own.
      added.push(...(await Promise.all([6, 7, 8, 9, 10].map((index) => addObject(first, apiKey, boardId, index)))));
      const killed = await stopService(first, 'SIGKILL');
      expect(killed.signal).toBe('SIGKILL');

      const expected = byId([...(initial.body.state.objects as BoardObject[]), ...added]);
      expect(expected).toHaveLength(14);

      const second = await startService(database.url, apiKey);
      const afterKill = await api(second, apiKey, 'GET', `/boards/${boardId}`);
      expect(afterKill.status).toBe(200);
      expect(byId(afterKill.body.state.objects)).toEqual(expected);
      expect(afterKill.body.objects_count).toBe(14);
      expect(afterKill.body.state.version).toBeGreaterThan(versionAfterCreate);
      const listed = await api(second, apiKey, 'GET', '/boards');
      expect(listed.body).toEqual([expect.objectContaining({ board_uuid: boardId, objects_count: 14, status: 'active' })]);

      // Killed again with no writes in between: nothing changes, not even the version.
      const version = afterKill.body.state.version as number;
      await stopService(second, 'SIGKILL');
      const third = await startService(database.url, apiKey);
      const again = await api(third, apiKey, 'GET', `/boards/${boardId}`);
      expect(byId(again.body.state.objects)).toEqual(expected);
      expect(again.body.state.version).toBe(version);
      expect(again.body.objects_count).toBe(14);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'keeps objects, state.version and objects_count across a graceful SIGTERM restart, and accepts writes afterwards',
    async () => {
      const database = await newDatabase();
      const apiKey = `wb_${randomBytes(24).toString('base64url')}`;
      const first = await startService(database.url, apiKey);

      const created = await api(first, apiKey, 'POST', '/boards', {
        title: 'Graceful board',
        initial_objects: [{ type: 'frame-label', data: { text: 'start' }, position: { x: 5, y: 5 } }],
      });
      expect(created.status).toBe(201);
      const boardId = created.body.board_uuid as string;
      for (let index = 0; index < 4; index += 1) await addObject(first, apiKey, boardId, index);
      const before = await api(first, apiKey, 'GET', `/boards/${boardId}`);
      expect(before.body.state.objects).toHaveLength(5);

      const stopped = await stopService(first, 'SIGTERM');
      expect(stopped).toEqual({ code: 0, signal: null });

      const second = await startService(database.url, apiKey);
      const after = await api(second, apiKey, 'GET', `/boards/${boardId}`);
      expect(after.status).toBe(200);
      expect(byId(after.body.state.objects)).toEqual(byId(before.body.state.objects));
      expect(after.body.state.version).toBe(before.body.state.version);
      expect(after.body.objects_count).toBe(5);
      const listed = await api(second, apiKey, 'GET', '/boards');
      expect(listed.body).toEqual([expect.objectContaining({ board_uuid: boardId, objects_count: 5 })]);

      // The reloaded board takes new writes on top of the old state, and those survive a kill too.
      const later = await addObject(second, apiKey, boardId, 99);
      const grown = await api(second, apiKey, 'GET', `/boards/${boardId}`);
      expect(grown.body.state.version).toBeGreaterThan(before.body.state.version);
      await stopService(second, 'SIGKILL');

      const third = await startService(database.url, apiKey);
      const final = await api(third, apiKey, 'GET', `/boards/${boardId}`);
      expect(byId(final.body.state.objects)).toEqual(byId([...before.body.state.objects, later]));
      expect(final.body.state.version).toBe(grown.body.state.version);
      expect(final.body.objects_count).toBe(6);
      expect((await stopService(third, 'SIGTERM')).code).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'keeps every board intact when killed right after a burst of concurrent writes to several boards',
    async () => {
      const database = await newDatabase();
      const apiKey = `wb_${randomBytes(24).toString('base64url')}`;
      const first = await startService(database.url, apiKey);

      const boardIds: string[] = [];
      for (const title of ['Board A', 'Board B', 'Board C']) {
        const created = await api(first, apiKey, 'POST', '/boards', { title });
        expect(created.status).toBe(201);
        boardIds.push(created.body.board_uuid);
      }
      const writes = boardIds.flatMap((boardId, board) =>
        [0, 1, 2, 3].map((index) => addObject(first, apiKey, boardId, board * 10 + index).then((object) => ({ boardId, object }))),
      );
      const acknowledged = await Promise.all(writes);
      await stopService(first, 'SIGKILL');

      const second = await startService(database.url, apiKey);
      for (const boardId of boardIds) {
        const read = await api(second, apiKey, 'GET', `/boards/${boardId}`);
        expect(read.status).toBe(200);
        const mine = acknowledged.filter((write) => write.boardId === boardId).map((write) => write.object);
        expect(byId(read.body.state.objects)).toEqual(byId(mine));
        expect(read.body.objects_count).toBe(4);
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
