import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/serviceProcess.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { eventually, request, type ApiResponse } from '../helpers/testServer.js';
import { HealthProbe, now, spread, type HealthSample } from './healthProbe.js';
import { bodyPlan, describePlan, fieldSlots, MALFORMED_SEGMENTS, renderBody, type BodyPlan, type RenderedBody } from './hostileArbitraries.js';
import { headersFor, ROUTES, type Arena, type Credential, type Fixtures, type HostileRoute, type RouteContext, type WrittenBoard } from './hostileRoutes.js';

/**
 * Generated hostile bodies (deep, wide, huge, odd strings and odd
 * numbers, wrong types, malformed JSON, odd content types) thrown at every create and patch
 * route of the service running as its own process (production mode). Each answer must be a
 * 2xx in JSON or a 4xx in the API's error body; `GET /health`, probed every 50 ms from a
 * thread of its own, must answer within 100 ms throughout; every board written to must still
 * read.
 *
 * Replay a run with HOSTILE_SEED=<seed> (HOSTILE_RUNS=<n> runs per route). A failure prints
 * its route's seed and path: pin it under "pinned seeds" (a pin replays the same body while
 * hostileArbitraries.ts and the route's valid body do not change).
 */
const SEED = process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS_PER_ROUTE = Number(process.env.HOSTILE_RUNS ?? 30);
const PROBE_INTERVAL_MS = 50;
/** Shrinking a failure replays requests; past this the smallest case found so far is reported. */
const ROUTE_TIME_LIMIT_MS = 60_000;
/** An arena that has stored this much accepted content is replaced, so reading it stays cheap. */
const ARENA_BYTES = 1_048_576;

/** Failures found by earlier runs (on main at a9d6f40), replayed on every run; `route` is a HostileRoute's name. */
const PINNED: Array<{ route: string; seed: number; path: string; found: string }> = [
  { route: 'POST /boards/:id/objects', seed: -1497985272, path: '23:0:1', found: 'content-encoding gzip with a plain body: 500' },
  { route: 'POST /boards/:id/objects', seed: 719772681, path: '12:0:1:0:0', found: 'data nested 5,000 levels: 500, then the board reads 500' },
  { route: 'POST /boards', seed: 1085210229, path: '56', found: 'external_data nested 10,000 levels: 500' },
  { route: 'PATCH /boards/:id', seed: 1745465800, path: '19:1:0', found: 'component props nested 5,000 levels: 500' },
  { route: 'POST /boards/:id/frames', seed: 1782955258, path: '45', found: 'order 2^100: 500' },
  { route: 'POST /boards/:id/frames', seed: -148387344, path: '17:0:1', found: 'parent_frame_id "\\ud800": 500' },
  { route: 'POST /boards/:id/frames/:frameId/clone', seed: -642789190, path: '17:1:0', found: 'name "\\ud800": 500' },
  { route: 'POST /webhooks/subscriptions', seed: -1248949517, path: '24', found: 'description "\\ud800": 500' },
  { route: 'POST /auth/login', seed: -1944997838, path: '3:2:0:6:4:1', found: 'email with a lone surrogate: 500' },
  { route: 'PATCH /boards/:id', seed: -37284239, path: '14', found: 'title with a NUL: 500 on PostgreSQL' },
  { route: 'POST /boards/:id/zones/bulk-assign', seed: -1595201170, path: '38', found: 'frame_id of NULs: 500 on PostgreSQL' },
  { route: 'POST /boards/:id/zones/bulk-assign', seed: -2001223409, path: '28', found: '10,000 empty assignments: /health stalls' },
  { route: 'POST /webhooks/subscriptions', seed: 137253877, path: '21', found: '10,001 events: /health stalls ~400 ms' },
  { route: 'PATCH /boards/:id', seed: -1552429143, path: '18:0', found: 'a body of 10,000 keys: /health stalls ~300 ms' },
];

let database: TestDatabase;
let service: ServiceProcess;
let probe: HealthProbe;
let fixtures: Fixtures;
let arena: Arena | undefined;
let counter = 0;
const unique = () => (counter += 1);
/** Time windows of the hostile calls, to name the call behind a slow probe. */
const windows: Array<{ from: number; to: number; label: string }> = [];
/** Every board a hostile call wrote to or created, with its expiry. */
const touchedBoards = new Map<string, number | undefined>();

const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-api-key': fixtures.apiKey }): Promise<ApiResponse> =>
  request(service.url, method, `/api/v1${path}`, body, headers);

async function created(response: Promise<ApiResponse>, what: string): Promise<any> {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`setup: ${what} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function openFixtures(apiKey: string, adminToken: string): Promise<Fixtures> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const call = (path: string, body: unknown, headers: Record<string, string>, what: string) => created(request(service.url, 'POST', `/api/v1${path}`, body, headers), what);
  const other = await call('/admin/organizations', { name: 'Hostile side', plan: 'enterprise' }, admin, 'create an organization');
  const spare = await call('/admin/organizations', { name: 'Hostile spare', plan: 'starter' }, admin, 'create an organization');
  const subscription = await call('/webhooks/subscriptions', { url: 'https://hooks.invalid/subscription' }, { 'x-api-key': other.apiKey }, 'subscribe');
  const userEmail = 'hostile-user@example.com';
  const userPassword = 'correct horse battery staple';
  await call('/admin/users', { email: userEmail, password: userPassword, organizationId: spare.id }, admin, 'create a user');
  const login = await call('/auth/login', { email: userEmail, password: userPassword }, {}, 'log in');
  return { apiKey, adminToken, otherKey: other.apiKey, subscriptionId: subscription.id, spareOrganizationId: spare.id, userEmail, userPassword, refreshToken: login.refresh_token };
}

async function openArena(): Promise<Arena> {
  const board = await created(api('POST', '/boards', { title: 'Hostile arena' }), 'create the arena board');
  const boardId = board.board_uuid as string;
  const frameAt = async (x: number, name: string) =>
    (await created(api('POST', `/boards/${boardId}/frames`, { name, bounds_x: x, bounds_y: -50_000, bounds_width: 300, bounds_height: 300 }), `create ${name}`)).id as string;
  const token = (link: string) => new URL(link).searchParams.get('token')!;
  const expiresAt = Date.parse(board.expires_at);
  touchedBoards.set(boardId, expiresAt);
  return {
    boardId,
    hostToken: token(board.access_links.host),
    guestToken: token(board.access_links.guest),
    frames: {
      patch: await frameAt(-100_000, 'Patch target'),
      clone: await frameAt(-90_000, 'Clone source'),
      assign: await frameAt(-80_000, 'Assign target'),
      bulk: [await frameAt(-70_000, 'Bulk target 1'), await frameAt(-60_000, 'Bulk target 2')],
    },
    expiresAt,
    storedBytes: 0,
    retired: false,
  };
}

async function context(): Promise<RouteContext> {
  if (!arena || arena.retired || arena.storedBytes > ARENA_BYTES) arena = await openArena();
  return { board: arena, fixtures, unique };
}

// ---------------------------------------------------------------------------------------
// One hostile call, and what must hold after it.

interface Answer {
  status: number;
  contentType: string;
  text: string;
  requestId: string;
  /** The path the service saw (what the error body's `path` must repeat). */
  path: string;
}

let requests = 0;
async function send(method: string, path: string, rendered: Partial<RenderedBody>, headers: Record<string, string>): Promise<Answer> {
  const requestId = `hostile-${(requests += 1)}`;
  const url = `${service.url}/api/v1${path}`;
  const response = await fetch(url, { method, body: rendered.body as BodyInit | undefined, headers: { ...rendered.headers, ...headers, 'x-request-id': requestId } });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, requestId, path: new URL(url).pathname };
}

const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The service's log line about one request: an unexpected error, logged with its stack. */
async function serverLog(requestId: string): Promise<string> {
  const lines = () => service.output().split('\n').filter((line) => line.includes(`"request_id":"${requestId}"`) && line.includes('"err":'));
  await eventually(() => lines().length > 0, 1_000).catch(() => undefined);
  return lines()
    .map((line) => {
      const entry = parse(line) as { msg?: string; err?: { type?: string; message?: string; stack?: string } } | undefined;
      if (!entry) return line;
      const message = entry.err?.message?.replace(/\s+/g, ' ').trim() ?? '';
      const stack = entry.err?.stack?.split('\n').slice(1, 3).map((frame) => frame.trim()).join(' ← ') ?? '';
      return `${entry.msg}: ${entry.err?.type ?? ''} ${message} (${stack})`;
    })
    .join('\n')
    .slice(0, 600);
}

/** Why `body` is not the API's error body for an answer with `status` to `path`, or null. */
function errorBodyProblem(body: any, status: number, path: string): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is not a JSON object';
  if (body.statusCode !== status) return `statusCode is ${JSON.stringify(body.statusCode)}`;
  if (typeof body.error !== 'string') return 'error is not a string';
  const lines: unknown[] = Array.isArray(body.message) ? body.message : [body.message];
  if (lines.length === 0 || lines.some((line) => typeof line !== 'string')) return 'message is neither a string nor an array of strings';
  const details: unknown = body.details ?? [];
  if (!Array.isArray(details) || details.some((d) => typeof d?.field !== 'string' || typeof d?.message !== 'string')) return 'details is not a list of {field, message}';
  if (typeof body.timestamp !== 'string' || !ISO_TIMESTAMP.test(body.timestamp)) return `timestamp is ${JSON.stringify(body.timestamp)}`;
  if (body.path !== path) return `path is ${JSON.stringify(body.path)}, not ${JSON.stringify(path)}`;
  return null;
}

/** What is wrong with an answer: a 5xx (with the service's log line), or a body not in the error body's shape. */
async function answerProblems(answer: Answer): Promise<string[]> {
  const { status, text } = answer;
  if (status >= 500) return [`answered ${status}\n  service log: ${await serverLog(answer.requestId)}`];
  if (status === 204) return text ? ['answered 204 with a body'] : [];
  const body = parse(text);
  if (status < 300) return body !== null && typeof body === 'object' && answer.contentType.startsWith('application/json') ? [] : [`answered ${status} without a JSON body`];
  if (status < 400) return [`answered ${status}`];
  const problem = errorBodyProblem(body, status, answer.path);
  return problem ? [`answered ${status} outside the API's error body (${problem}): ${text.slice(0, 200)}`] : [];
}

/**
 * Why a board does not read (board with objects and participants, frame list), or nothing.
 * An arena that does not read is retired, so the next call starts on a board of its own.
 */
async function boardProblems({ id, expiresAt }: WrittenBoard): Promise<string[]> {
  const problems: string[] = [];
  for (const path of [`/boards/${id}?includeObjects=true&includeParticipants=true`, `/boards/${id}/frames?includeArchived=true`]) {
    const requestId = `read-${(requests += 1)}`;
    const read = await api('GET', path, undefined, { 'x-api-key': fixtures.apiKey, 'x-request-id': requestId });
    // A board asked to expire now (expires_in_hours: 1e-320) is gone, as it should be.
    const expired = read.status === 410 && expiresAt !== undefined && expiresAt <= Date.now();
    if (read.status !== 200 && !expired) {
      const log = read.status >= 500 ? `\n  service log: ${await serverLog(requestId)}` : '';
      problems.push(`then GET ${path} answered ${read.status} ${JSON.stringify(read.body).slice(0, 120)}${log}`);
    }
    if ((expired || problems.length > 0) && arena?.boardId === id) arena.retired = true;
  }
  return problems;
}

/** A failed or over-budget `/health` probe since `from`. */
async function healthProblems(from: number): Promise<string[]> {
  const problem = await probe.stallSince(from);
  return problem ? [problem] : [];
}

/** Stalls seen once but not when the same request was repeated (counted in the run's /health figures). */
let unconfirmedStalls = 0;

/**
 * A `/health` stall while a call was served, confirmed by sending the same request again: on
 * a shared machine one slow probe alone may be someone else's work, or the service's own
 * background work (the run's overall figure still counts every probe).
 */
async function stallProblems(from: number, resend: () => Promise<unknown>): Promise<string[]> {
  const first = await healthProblems(from);
  if (first.length === 0) return [];
  const again = now();
  await resend();
  const second = await healthProblems(again);
  if (second.length === 0) unconfirmedStalls += 1;
  return second.length === 0 ? [] : [...first, `and again when the same request was repeated: ${second.join('; ')}`];
}

interface HostileCall {
  credential: Credential;
  plan: BodyPlan;
}

async function hostileCall(route: HostileRoute, { credential, plan }: HostileCall): Promise<void> {
  const routeContext = await context();
  const from = now();
  const rendered = renderBody(plan, route.body(routeContext));
  const sendIt = () => send(route.method, route.path(routeContext), rendered, headersFor(credential, routeContext));
  const answer = await sendIt();
  const problems = await answerProblems(answer);
  const success = answer.status < 300 ? parse(answer.text) : undefined;
  if (success) route.learn?.(routeContext, success);
  const written = route.boardOf?.(routeContext, success);
  if (written) {
    touchedBoards.set(written.id, written.expiresAt);
    if (success && written.id === routeContext.board.boardId) routeContext.board.storedBytes += rendered.body.length;
    problems.push(...(await boardProblems(written)));
  }
  problems.push(...(await stallProblems(from, sendIt)));
  windows.push({ from, to: now(), label: `${route.name} as ${credential}: ${describePlan(plan)}` });
  if (problems.length > 0) throw new Error(`${route.name} as ${credential}, ${describePlan(plan)}:\n${problems.join('\n')}`);
}

/** Each route draws its own sequence from the run's seed (one seed for all would give every route the same kinds of bodies in the same order). */
function routeSeed(route: HostileRoute): number {
  let hash = SEED;
  for (const char of route.name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** Runs a route's property on an arena of its own, so one route's damage does not fail the next. */
async function assertRoute(route: HostileRoute, replay: Partial<fc.Parameters<[HostileCall]>> = {}): Promise<void> {
  if (arena) arena.retired = true;
  const calls = fc
    .record({ credential: fc.constantFrom(...route.credentials), plan: bodyPlan(fieldSlots(route.body(await context()))) })
    .map((call) => Object.assign(call, { [fc.toStringMethod]: () => `${call.credential}: ${describePlan(call.plan)}` }));
  await fc.assert(fc.asyncProperty(calls, (call) => hostileCall(route, call)), {
    seed: routeSeed(route),
    numRuns: RUNS_PER_ROUTE,
    plugins: [fc.interruptAfterTimeLimit(ROUTE_TIME_LIMIT_MS) as fc.Plugin<[HostileCall]>],
    ...replay,
  });
}

/** A route being added right now (participant links) is skipped until it answers. */
async function routeExists(route: HostileRoute): Promise<boolean> {
  const routeContext = await context();
  const answer = await api(route.method, route.path(routeContext), route.body(routeContext), headersFor(route.credentials[0]!, routeContext));
  return !(answer.status === 404 && /^Route /.test(String(answer.body?.message)));
}

// ---------------------------------------------------------------------------------------

beforeAll(async () => {
  console.log(`hostile input: seed ${SEED}, ${RUNS_PER_ROUTE} runs per route (replay with HOSTILE_SEED=${SEED})`);
  const apiKey = `hostile-${randomBytes(24).toString('hex')}`;
  const adminToken = `admin-${randomBytes(24).toString('hex')}`;
  database = await createTestDatabase();
  service = await startServiceProcess({
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    BOOTSTRAP_API_KEY: apiKey,
    BOOTSTRAP_PLAN: 'enterprise',
    ADMIN_TOKEN: adminToken,
    JWT_SECRET: randomBytes(32).toString('hex'),
    // Errors only: an unexpected error is logged with the request id the test sent.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
  });
  fixtures = await openFixtures(apiKey, adminToken);
  probe = HealthProbe.start(service.url, PROBE_INTERVAL_MS);
}, 60_000);

afterAll(async () => {
  await probe?.stop();
  await service?.stop();
  await database?.drop();
});

describe('hostile bodies on every create and patch route', () => {
  for (const route of ROUTES) {
    it(`${route.name}: never a 5xx, always the API's error body, /health fast, the board still reads`, async ({ skip }) => {
      if (!(await routeExists(route))) skip(`${route.name} does not exist yet`);
      await assertRoute(route);
    }, ROUTE_TIME_LIMIT_MS + 30_000);
  }
});

describe('pinned seeds', () => {
  it.each(PINNED)('$route, seed $seed, path $path ($found)', async ({ route, seed, path }) => {
    // One run: a pin replays its one body, not the runs that followed it.
    await assertRoute(ROUTES.find((candidate) => candidate.name === route)!, { seed, path, numRuns: 1, endOnFailure: true });
  }, ROUTE_TIME_LIMIT_MS);
});

describe('hostile paths', () => {
  it('answers malformed percent-encodings in path parameters with 400 in the API error body', async () => {
    const routeContext = await context();
    const { boardId } = routeContext.board;
    const templates: Array<[string, string, Credential]> = [
      ['GET', '/boards/{}', 'api key'],
      ['PATCH', '/boards/{}', 'api key'],
      ['POST', '/boards/{}/objects', 'guest token'],
      ['POST', '/boards/{}/frames', 'api key'],
      ['GET', '/boards/{}/frames', 'guest token'],
      ['PATCH', `/boards/${boardId}/frames/{}`, 'api key'],
      ['POST', `/boards/${boardId}/frames/{}/clone`, 'host token'],
      ['POST', `/boards/${boardId}/frames/{}/assign`, 'api key'],
      ['POST', '/boards/{}/zones/bulk-assign', 'api key'],
      ['POST', '/boards/{}/participant-links', 'api key'],
      ['GET', '/quota/{}', 'api key'],
      ['GET', '/object-types/{}', 'other organization key'],
      ['PATCH', '/webhooks/subscriptions/{}', 'other organization key'],
      ['PATCH', '/admin/organizations/{}', 'admin token'],
    ];
    const problems: string[] = [];
    const serviceLog = new Set<string>();
    for (const [method, template, credential] of templates) {
      for (const segment of MALFORMED_SEGMENTS) {
        const from = now();
        const path = template.replace('{}', segment);
        const body = method === 'GET' ? undefined : '{}';
        const sendIt = () => send(method, path, { body, headers: body ? { 'content-type': 'application/json' } : {} }, headersFor(credential, routeContext));
        const answer = await sendIt();
        const issues = await stallProblems(from, sendIt);
        if (answer.status >= 500) serviceLog.add((await serverLog(answer.requestId)).replace(/'[^']*'/g, "'…'"));
        else issues.push(...(await answerProblems(answer)));
        if (!isDecodable(segment) && answer.status !== 400) issues.push(`answered ${answer.status}, not 400`);
        windows.push({ from, to: now(), label: `${method} ${path.slice(0, 80)}` });
        if (issues.length > 0) problems.push(`${method} ${path.slice(0, 80)}: ${issues.join('; ')}`);
      }
    }
    expect({ problems, serviceLog: [...serviceLog] }).toEqual({ problems: [], serviceLog: [] });
  }, 60_000);
});

function isDecodable(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

describe('after the run', () => {
  it('every board a hostile call wrote to or created still reads', async () => {
    const problems: string[] = [];
    for (const [id, expiresAt] of touchedBoards) problems.push(...(await boardProblems({ id, expiresAt })).map((problem) => `${id}: ${problem}`));
    expect(problems).toEqual([]);
  }, 60_000);

  /**
   * Every probe answered; the slowest ones are printed with what ran at the time. A stall a
   * hostile request causes fails that request's own test (confirmed by sending it again); the
   * run's overall maximum also counts the service's background work (compaction, GC) and the
   * machine's, so it is a figure to read, not a timed assertion (it was 135–200 ms "between
   * hostile calls" on a loaded 2-core runner, at commits before and after the agents).
   */
  it('GET /health answered throughout the run (the slowest probes printed)', async () => {
    await probe.collect();
    const { samples } = probe;
    const during = (s: HealthSample) => windows.find((w) => w.from <= s.at + s.ms && s.at <= w.to)?.label ?? 'between hostile calls';
    const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, 5);
    const culprits = slowest.map((s) => `${s.ms.toFixed(0)} ms (bare server ${s.controlMs.toFixed(0)} ms) during ${during(s)}`);
    console.log(
      `/health probes: ${samples.length}; service ${spread(samples.map((s) => s.ms))}; bare server ${spread(samples.map((s) => s.controlMs))}; ` +
        `${unconfirmedStalls} stalls not seen again when their request was repeated\n  ${culprits.join('\n  ')}`,
    );
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.every((sample) => sample.ok)).toBe(true);
  });
});
