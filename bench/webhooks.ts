/**
 * npm run bench:webhooks [-- --events 1200 --subscriptions 5 --rate 120]
 *
 * Starts the service as its own process with a local receiver on 127.0.0.1, subscribes
 * `subscriptions` endpoints to every event, creates boards at `rate` per second to raise
 * `events` events (each fanned out to every subscription, so rate × subscriptions
 * deliveries per second are offered), and prints the deliveries per second received and
 * the enqueue→delivered latency (event time in the signed envelope → arrival) p50/p99.
 * `--rate 0` creates boards as fast as the API allows.
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
    events: { type: 'string', default: '1200' },
    subscriptions: { type: 'string', default: '5' },
    rate: { type: 'string', default: '120' },
    concurrency: { type: 'string', default: '20' },
  },
});
const EVENTS = Number(values.events);
const SUBSCRIPTIONS = Number(values.subscriptions);
const CONCURRENCY = Number(values.concurrency);
const RATE = Number(values.rate);
const expected = EVENTS * SUBSCRIPTIONS;

const latencies: number[] = [];
let firstEnqueue = Infinity;
let lastArrival = 0;
let done: () => void = () => undefined;
const finished = new Promise<void>((resolve) => (done = resolve));
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const arrival = Date.now();
    const sent = Date.parse((JSON.parse(body) as { timestamp: string }).timestamp);
    latencies.push(arrival - sent);
    firstEnqueue = Math.min(firstEnqueue, sent);
    lastArrival = Math.max(lastArrival, arrival);
    res.writeHead(204).end();
    if (latencies.length >= expected) done();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dbFile = join(tmpdir(), `wb-bench-webhooks-${randomBytes(4).toString('hex')}.db`);
const apiKey = `wb_bench_${randomBytes(8).toString('hex')}`;
const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/main.ts'], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: process.env.DATABASE_URL ?? `file:${dbFile}`, BOOTSTRAP_API_KEY: apiKey, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match?.[1]) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const api = (path: string, body: unknown) =>
  fetch(`${url}/api/v1${path}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });

for (let i = 0; i < SUBSCRIPTIONS; i += 1) await api('/webhooks/subscriptions', { url: receiverUrl, events: ['*'] });
const started = Date.now();
let next = 0;
const slot = (index: number) => (RATE > 0 ? started + (index * 1000) / RATE : 0);
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < EVENTS) {
      const index = next;
      next += 1;
      const wait = slot(index) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await api('/boards', { title: `bench ${index}` });
    }
  }),
);
const timeout = setTimeout(done, 120_000);
await finished;
clearTimeout(timeout);
const elapsedS = (lastArrival - Math.min(firstEnqueue, started)) / 1000;
const sorted = latencies.sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
console.table([
  {
    events: EVENTS,
    subscriptions: SUBSCRIPTIONS,
    'offered deliveries/s': RATE > 0 ? RATE * SUBSCRIPTIONS : 'max',
    'deliveries received': sorted.length,
    'deliveries/s': Math.round(sorted.length / elapsedS),
    'enqueue→delivered p50 (ms)': pct(50),
    'enqueue→delivered p99 (ms)': pct(99),
  },
]);
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
receiver.close();
for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
process.exit(sorted.length >= expected ? 0 : 1);
