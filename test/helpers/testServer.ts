import { randomBytes } from 'node:crypto';
import { startApp, type App, type AppOptions } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import type { BusEvent } from '../../src/events/types.js';
import type { Plan } from '../../src/organizations/plans.js';
import { createTestDatabase, type TestDatabase } from './testDatabase.js';

/** An HTTP answer: status, headers and the parsed JSON body (or null). */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A real server on a random port, with its own database and an organization to call it as. */
export interface TestServer {
  app: App;
  url: string;
  database: TestDatabase;
  apiKey: string;
  organizationId: string;
  /** Every event published on the bus since the server started. */
  events: BusEvent[];
  /** Calls the API as the test organization (override headers to call as someone else). */
  /** The WebSocket URL of a board access link (`?token=…`), plus extra query parameters. */
  socketUrl(accessLink: string, params?: Record<string, string>): string;
  api: <T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse<T>>;
  /** Creates another organization and returns its API key. */
  newOrganization(plan?: Plan): Promise<{ apiKey: string; organizationId: string }>;
  /**
   * The personal link of `userId` on a board (created, or the one it already has), as the
   * organization's API key: the only credential that owns the zones assigned to `userId`.
   */
  personalLink(boardId: string, userId: string, fields?: PersonalLinkFields): Promise<PersonalLink>;
  /** Stops the server (the database is kept, so a new server can reopen it). */
  stop(): Promise<void>;
  /** Stops the server and drops its database. */
  close(): Promise<void>;
}

/** Optional fields of a personal link (`POST /boards/<id>/participant-links`). */
export interface PersonalLinkFields {
  user_name?: string;
  external_user_id?: string;
  external_source?: string;
}

/** A personal link as the API answers it. */
export interface PersonalLink {
  user_id: string;
  user_name: string | null;
  user_type: 'verified-student' | 'authenticated';
  external_user_id: string | null;
  external_source: string | null;
  token: string;
  link: string;
  expires_at: string;
  created_at: string;
}

export interface TestServerOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** Reuse a database (restart tests); a new one is created otherwise. */
  database?: TestDatabase;
  /** Wraps the Yjs document store, to inject storage failures and delays. */
  decorateStore?: AppOptions['decorateStore'];
  /** Wraps the seat ledger, to lose its answers. */
  decorateSeats?: AppOptions['decorateSeats'];
  /**
   * `events` records every event published. By default the recorder counts as a listener that
   * wants every event (EventBus.isWanted), so every event is built; with `false` it wants none,
   * and events only nobody else (webhooks, agents) would act on are skipped, as in production.
   */
  eventsWantedByTest?: boolean;
}

/** Sends a request to a running server and parses the JSON answer. */
export async function request<T = any>(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${url}${path}`, init);
  const text = await response.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests call the API far faster than a client may; rate-limit tests pass their own limits.
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_PER_HOUR: '0',
    RATE_LIMIT_PER_HOUR_PREMIUM: '0',
    // With REDIS_URL, each server is its own deployment unless a test says which it shares.
    CLUSTER_KEY_PREFIX: `wb:test:${randomBytes(6).toString('hex')}:`,
    ...options.env,
  });
  const app = await startApp({ config, clock: options.clock, decorateStore: options.decorateStore, decorateSeats: options.decorateSeats });
  const events: BusEvent[] = [];
  app.bus.subscribe(
    (event) => {
      events.push(event);
    },
    options.eventsWantedByTest === false ? () => false : undefined,
  );
  const { organization, apiKey } = await app.organizations.create({ name: 'Test organization', plan: 'professional' });
  const server: TestServer = {
    app,
    url: app.url,
    database,
    apiKey,
    organizationId: organization.id,
    events,
    socketUrl(accessLink, params = {}) {
      const token = new URL(accessLink).searchParams.get('token') ?? '';
      const query = new URLSearchParams({ token, ...params });
      return `${app.url.replace(/^http/, 'ws')}/api/v1/realtime?${query}`;
    },
    api: (method, path, body, headers) =>
      request(app.url, method, `/api/v1${path}`, body, { 'x-api-key': apiKey, ...headers }),
    async newOrganization(plan = 'professional') {
      const created = await app.organizations.create({ name: 'Other organization', plan });
      return { apiKey: created.apiKey, organizationId: created.organization.id };
    },
    async personalLink(boardId, userId, fields = {}) {
      const issued = await server.api<PersonalLink>('POST', `/boards/${boardId}/participant-links`, { user_id: userId, ...fields });
      if (issued.status !== 201 && issued.status !== 200) {
        throw new Error(`personal link of ${userId} not issued: ${issued.status} ${JSON.stringify(issued.body)}`);
      }
      return issued.body;
    },
    stop: () => app.close(),
    async close() {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
  return server;
}

/** Polls `check` until it returns a truthy value or the deadline passes (no fixed sleeps). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw lastError instanceof Error ? lastError : new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
