/**
 * npm run bench:api [-- --seconds 10 --connections 8]
 *
 * Starts the service as its own process (a fresh SQLite file, or a throwaway database on the
 * PostgreSQL server DATABASE_URL names; enterprise plan, rate limits off, logging at info as in
 * production), pinned to one core with `taskset` when there is one, and
 * drives five routes in turn with autocannon from this process (on the other core):
 * `GET /health`, `POST /boards`, `POST /boards/<id>/objects`, `GET /quota`, and `GET /boards/<id>`
 * of a board holding 1,000 objects. Each route is warmed up, then loaded for `seconds` by
 * `connections` keep-alive connections; the table gives requests per second, latency p50/p99,
 * errors, and the server's CPU time per request (from /proc over the measured window).
 * BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { cpuSeconds, ms } from './agentsMeasure.js';
import { startService, type Service } from './agentsService.js';
import { printServerLog, runBench } from './benchRun.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    objects: { type: 'string', default: '1000' },
    // Only the route of this name, or else the routes whose name contains it (for profiling one route).
    only: { type: 'string', default: '' },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const OBJECTS = Number(values.objects);
const WARMUP_SECONDS = 2;

interface Route {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  status: number;
}

interface Measured {
  route: Route;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  cpuMsPerRequest: number;
}

/** Pins the server to the last core, so the load generator's work is not counted against it. */
function pinToOneCore(pid: number): string {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(pid)], { stdio: 'ignore' });
    return 'pinned to core 1';
  } catch {
    return 'not pinned (no taskset)';
  }
}

async function call(service: Service, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${service.url}/api/v1${path}`, {
    method,
    headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** A board of `count` sticky notes, added 100 at a time through the API. */
async function boardWithObjects(service: Service, count: number): Promise<string> {
  const board = (await call(service, 'POST', '/boards', { title: 'bench:api large board' })) as { board_uuid: string };
  for (let done = 0; done < count; done += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - done) }, (_, index) =>
        call(service, 'POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: `note ${done + index}` }, position: { x: (done + index) * 10, y: 0 } }),
      ),
    );
  }
  return board.board_uuid;
}

async function load(service: Service, route: Route, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${service.url}${route.path}`,
    method: route.method,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
    ...(route.body ? { body: route.body } : {}),
  });
}

async function measure(service: Service, route: Route): Promise<Measured> {
  await load(service, route, WARMUP_SECONDS);
  const pid = service.child.pid!;
  const cpuBefore = cpuSeconds(pid);
  const result = await load(service, route, SECONDS);
  const cpu = cpuSeconds(pid) - cpuBefore;
  const expected = result.statusCodeStats?.[String(route.status) as keyof typeof result.statusCodeStats]?.count ?? 0;
  const requests = result.requests.total;
  return {
    route,
    requests,
    perSecond: requests / SECONDS,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: requests - Number(expected) + result.errors + result.timeouts,
    cpuMsPerRequest: requests > 0 ? (cpu * 1000) / requests : NaN,
  };
}

void runBench('bench:api', 30 * 60_000, async (run) => {
  // The production default log level: one request line per request is part of a request's cost.
  const service = await startService((reason) => run.abort(reason), { LOG_LEVEL: 'info' });
  run.cleanup = () => service.stop();
  const pinning = pinToOneCore(service.child.pid!);
  const board = (await call(service, 'POST', '/boards', { title: 'bench:api objects' })) as { board_uuid: string };
  const large = await boardWithObjects(service, OBJECTS);
  const routes: Route[] = [
    { name: 'GET /health', method: 'GET', path: '/health', status: 200 },
    { name: 'POST /boards', method: 'POST', path: '/api/v1/boards', body: JSON.stringify({ title: 'bench:api board' }), status: 201 },
    {
      name: 'POST /boards/<id>/objects',
      method: 'POST',
      path: `/api/v1/boards/${board.board_uuid}/objects`,
      body: JSON.stringify({ type: 'sticky', data: { text: 'hello' }, position: { x: 10, y: 20 } }),
      status: 201,
    },
    { name: 'GET /quota', method: 'GET', path: '/api/v1/quota', status: 200 },
    { name: `GET /boards/<id> (${OBJECTS} objects)`, method: 'GET', path: `/api/v1/boards/${large}`, status: 200 },
  ];
  const database = process.env.DATABASE_URL?.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
  console.log(`bench:api on ${database}, server ${pinning}, ${CONNECTIONS} connections, ${SECONDS} s per route`);
  const rows: Measured[] = [];
  const exact = routes.filter((candidate) => candidate.name === values.only);
  const chosen = exact.length > 0 ? exact : routes.filter((candidate) => candidate.name.includes(values.only));
  for (const route of chosen) rows.push(await measure(service, route));
  console.log('| route | req/s | p50 ms | p99 ms | errors | server CPU per request |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.route.name} | ${Math.round(row.perSecond)} | ${ms(row.p50)} | ${ms(row.p99)} | ${row.errors} | ${row.cpuMsPerRequest.toFixed(2)} ms |`);
  }
  printServerLog(service.logged);
});
