import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { Plan } from '../../src/organizations/plans.js';
import { connectBoardClient, type BoardClient } from './realtimeClient.js';
import { createTestDatabase, type TestDatabase } from './testDatabase.js';
import { request, startTestServer, type TestServer, type TestServerOptions } from './testServer.js';

/** A board as `POST /boards` answers it (the fields the tests read). */
export interface CreatedBoard {
  board_uuid: string;
  title: string;
  external_id: string | null;
  created_at: string;
  expires_at: string;
  access_links: { host: string; guest: string };
  /** Answered once, when the board was created with a `webhook_url`. */
  webhook_secret?: string;
}

/** The schema of the `quiz` object type the object-type tests register. */
export const QUIZ_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['question'],
  properties: {
    question: { type: 'string', minLength: 1, maxLength: 200 },
    points: { type: 'integer', minimum: 0, maximum: 100 },
  },
};

/** The token of an access link (`…?token=…`). */
export const tokenOf = (link: string): string => new URL(link).searchParams.get('token')!;

/** Creates a board as the server's organization (title `<prefix> <random>`), expecting 201. */
export async function createBoard(server: TestServer, titlePrefix: string, body: Record<string, unknown> = {}): Promise<CreatedBoard> {
  const created = await server.api('POST', '/boards', { title: `${titlePrefix} ${randomUUID().slice(0, 8)}`, ...body });
  expect(created.status).toBe(201);
  return created.body as CreatedBoard;
}

/** One suite's server (a file's or a `describe` block's) and the socket clients its tests connected. */
export interface SuiteServer {
  /**
   * The suite's server. It starts in `beforeAll`: until then this stands in for it, and
   * reading any of its properties throws.
   */
  server: TestServer;
  /** Clients destroyed after each test: push every client a test connects. */
  clients: BoardClient[];
  /**
   * Connects a client with a token in its socket URL to a document (not awaited: it may be
   * refused; `refusals` collects the server's reasons), destroyed after the test.
   */
  connect: (token: string, name: string, params?: Record<string, string>) => BoardClient & { refusals: string[] };
}

/**
 * Registers the lifecycle most test files share: a server started before the suite's tests
 * (`beforeAll`), the clients of each test destroyed after it (`afterEach`), the server
 * closed after the suite (`afterAll`). Call it at the top of the file (or of a `describe`),
 * before other hooks.
 */
export function serverForSuite(options: TestServerOptions = {}): SuiteServer {
  let started: TestServer | undefined;
  const clients: BoardClient[] = [];
  const server = standIn('the test server', () => started);
  beforeAll(async () => {
    started = await startTestServer(options);
  });
  afterEach(() => {
    clients.splice(0).forEach((client) => client.destroy());
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    server,
    clients,
    connect(token, name, params = {}) {
      const client = Object.assign(connectBoardClient({ url: server.socketUrl(`${server.url}/?token=${token}`, params), name }), { refusals: [] as string[] });
      client.provider.on('authenticationFailed', ({ reason }: { reason: string }) => client.refusals.push(reason));
      clients.push(client);
      return client;
    },
  };
}

/** A call to the API with an access token (a board link's, a personal link's, a session credential) as the bearer. */
export function requestWithToken(server: TestServer, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${token}`, ...headers });
}

/** Stands in for what `beforeAll` creates: reading any of its properties before then throws. */
function standIn<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_stand_in, property) {
      const value = current();
      if (!value) throw new Error(`${what} is read (.${String(property)}) before beforeAll started it`);
      return Reflect.get(value, property);
    },
  });
}

/** Two instances of one deployment (multi-instance mode) and the socket clients a suite's tests connected. */
export interface SuiteInstances {
  first: TestServer;
  second: TestServer;
  /** Their shared PostgreSQL database. */
  database: TestDatabase;
  /** Clients destroyed after each test. */
  clients: BoardClient[];
  /** Connects a client through `server` with an access link (not awaited), destroyed after the test. */
  connect: (server: TestServer, link: string, name: string, params?: Record<string, string>) => BoardClient;
}

/**
 * The lifecycle of a suite that runs two instances on one PostgreSQL database and Redis
 * (`REDIS_URL`): started in `beforeAll` with a key prefix of their own (other runs may share the
 * Redis), stopped and the database dropped in `afterAll`. `env` adds variables, given that prefix;
 * `clock`, when given, is both instances' clock.
 */
export function instancesForSuite(env: (prefix: string) => Record<string, string> = () => ({}), clock?: Clock): SuiteInstances {
  let database: TestDatabase | undefined;
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  const clients: BoardClient[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const prefix = `wb:test:${randomBytes(6).toString('hex')}:`;
    const shared = { REDIS_URL: process.env.REDIS_URL ?? '', CLUSTER_KEY_PREFIX: prefix, ...env(prefix) };
    first = await startTestServer({ database, env: shared, clock });
    second = await startTestServer({ database, env: shared, clock });
  });
  afterEach(() => {
    clients.splice(0).forEach((client) => client.destroy());
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await database?.drop();
  });
  return {
    first: standIn('the first instance', () => first),
    second: standIn('the second instance', () => second),
    database: standIn('the database', () => database),
    clients,
    connect(server, link, name, params = {}) {
      const client = connectBoardClient({ url: server.socketUrl(link, params), name });
      clients.push(client);
      return client;
    },
  };
}

/** A new organization on `plan` and a caller of the API as it: what the quota tests start from. */
export async function organizationCaller(server: TestServer, plan: Plan) {
  const { apiKey, organizationId } = await server.newOrganization(plan);
  const api = <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    server.api<T>(method, path, body, { 'x-api-key': apiKey, ...headers });
  return { apiKey, organizationId, api };
}

/** Creates a frame on a board as the server's organization (`name` 'Frame' unless given), expecting 201. */
export async function postFrame(server: TestServer, boardId: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const created = await server.api('POST', `/boards/${boardId}/frames`, { name: 'Frame', ...body });
  expect(created.status).toBe(201);
  return created.body;
}

/** Calls the API as the server's organization, expecting 200; answers the body. */
export async function expectOk(server: TestServer, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const response = await server.api(method, path, body);
  expect(response.status).toBe(200);
  return response.body;
}

/** Servers a suite starts one after another on one database it keeps, as restarts would. */
export interface RestartedServers {
  /** Stops the running server, if any, and starts a new one on the suite's database. */
  restart(options?: Omit<TestServerOptions, 'database'>): Promise<TestServer>;
  /** Stops the running server, if any. */
  stop(): Promise<void>;
}

/**
 * A database created before the suite's tests and dropped after them (the running server
 * stopped first), for tests that restart the service on it.
 */
export function restartsForSuite(): RestartedServers {
  let database: TestDatabase | undefined;
  let running: TestServer | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await running?.stop();
    await database?.drop();
  });
  const stop = async () => {
    await running?.stop();
    running = undefined;
  };
  return {
    stop,
    async restart(options = {}) {
      await stop();
      running = await startTestServer({ ...options, database });
      return running;
    },
  };
}
