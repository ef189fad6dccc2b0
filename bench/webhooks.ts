/**
 * npm run bench:webhooks [-- --events 600 --subscriptions 20 --rate 30 --warmup 90]
 *
 * Starts the service as its own process with a local receiver on 127.0.0.1, subscribes
 * `subscriptions` endpoints to every event, creates boards at `rate` per second to raise
 * `events` events (each fanned out to every subscription, so rate × subscriptions
 * deliveries per second are offered), and prints the deliveries per second received and
 * the enqueue→delivered latency (event time in the signed envelope → arrival) p50/p99.
 * The first `warmup` events (a cold process: JIT, first queries, connection setup) are
 * raised first and reported on their own row; the measured events start once all of their
 * deliveries arrived. `--rate 0` creates boards as fast as the API allows.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '600' },
    subscriptions: { type: 'string', default: '20' },
    rate: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '90' },
    concurrency: { type: 'string', default: '20' },
  },
});
const EVENTS = Number(values.events);
const SUBSCRIPTIONS = Number(values.subscriptions);
const CONCURRENCY = Number(values.concurrency);
const RATE = Number(values.rate);
const WARMUP = Number(values.warmup);
const expected = (WARMUP + EVENTS) * SUBSCRIPTIONS;

/** Per delivery: event time (enqueue) and arrival. */
const received: Array<{ sent: number; arrival: number }> = [];
let done: () => void = () => undefined;
const finished = new Promise<void>((resolve) => (done = resolve));
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const arrival = Date.now();
    received.push({ sent: Date.parse((JSON.parse(body) as { timestamp: string }).timestamp), arrival });
    res.writeHead(204).end();
    if (received.length >= expected) done();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dbFile = join(tmpdir(), `wb-bench-webhooks-${randomBytes(4).toString('hex')}.db`);
const apiKey = `wb_bench_${randomBytes(8).toString('hex')}`;
const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/main.ts'], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: process.env.DATABASE_URL ?? `file:${dbFile}`, BOOTSTRAP_API_KEY: apiKey, BOOTSTRAP_PLAN: 'enterprise', LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match?.[1]) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const api = (path: string, body: unknown) =>
  fetch(`${url}/api/v1${path}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });

for (let i = 0; i < SUBSCRIPTIONS; i += 1) await api('/webhooks/subscriptions', { url: receiverUrl, events: ['*'] });
/** Creates boards `from`..`to`-1 at RATE per second (as fast as allowed with --rate 0). */
async function raiseEvents(from: number, to: number): Promise<void> {
  const started = Date.now();
  let next = from;
  const slot = (index: number) => (RATE > 0 ? started + ((index - from) * 1000) / RATE : 0);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < to) {
        const index = next;
        next += 1;
        const wait = slot(index) - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        await api('/boards', { title: `bench ${index}` });
      }
    }),
  );
}

/** Resolves once `count` deliveries have arrived (or after two minutes). */
async function receivedAtLeast(count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

// Warm-up: a cold process (JIT, first queries, connections) until its deliveries are all in,
// then the measured phase at the same rate.
await raiseEvents(0, WARMUP);
await receivedAtLeast(WARMUP * SUBSCRIPTIONS);
const measuredFrom = Date.now();
await raiseEvents(WARMUP, WARMUP + EVENTS);
const timeout = setTimeout(done, 120_000);
await finished;
clearTimeout(timeout);

function row(phase: string, deliveries: typeof received, events: number) {
  const latencies = deliveries.map((d) => d.arrival - d.sent).sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const from = Math.min(...deliveries.map((d) => d.sent));
  const to = Math.max(...deliveries.map((d) => d.arrival));
  return {
    phase,
    events,
    subscriptions: SUBSCRIPTIONS,
    'offered deliveries/s': RATE > 0 ? RATE * SUBSCRIPTIONS : 'max',
    'deliveries received': latencies.length,
    'deliveries/s': Math.round(latencies.length / ((to - from) / 1000)),
    'enqueue→delivered p50 (ms)': pct(50),
    'enqueue→delivered p99 (ms)': pct(99),
  };
}
const warmup = received.filter((d) => d.sent < measuredFrom);
const measured = received.filter((d) => d.sent >= measuredFrom);
console.table([...(warmup.length > 0 ? [row('warm-up (not counted)', warmup, WARMUP)] : []), row('measured', measured, EVENTS)]);
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
receiver.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
process.exit(received.length >= expected ? 0 : 1);
