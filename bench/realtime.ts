/**
 * npm run bench:realtime [-- --clients 200 --boards 20 --rate 2 --seconds 20 --real-per-board 2 --target ours|plain|both]
 *
 * Starts the server as its own process, connects N clients over B boards (most of them
 * "lite" clients that send real Yjs updates and drop what they receive, a few real
 * providers per board that measure fan-out latency), has every client change an object
 * `rate` times a second, and prints connect time, fan-out latency p50/p95/p99, updates
 * applied per second and the server's RSS. `--target both` runs the same load against a
 * plain @hocuspocus/server with no hooks, so the cost of the service's hooks is a ratio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { liteClient, realClient, type LoadClient } from './loadClients.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    boards: { type: 'string', default: '20' },
    rate: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '20' },
    'real-per-board': { type: 'string', default: '2' },
    target: { type: 'string', default: 'both' },
    'connect-concurrency': { type: 'string', default: '50' },
  },
});
const N = Number(values.clients);
const B = Number(values.boards);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const REAL_PER_BOARD = Number(values['real-per-board']);
const CONNECT_CONCURRENCY = Number(values['connect-concurrency']);

interface Target {
  name: string;
  child: ChildProcess;
  /** Socket URL, document name and token of board `i`. */
  board(i: number): { url: string; name: string; token: string };
  stop(): Promise<void>;
}

function startProcess(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") apply to the server process only.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

async function startOurs(): Promise<Target> {
  const dbFile = join(tmpdir(), `wb-bench-${randomBytes(4).toString('hex')}.db`);
  const apiKey = `wb_bench_${randomBytes(8).toString('hex')}`;
  const { child, url } = await startProcess(['src/main.ts'], {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: process.env.DATABASE_URL ?? `file:${dbFile}`, BOOTSTRAP_API_KEY: apiKey, BOOTSTRAP_PLAN: 'enterprise', LOG_LEVEL: 'warn', NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0',
  });
  const boards: Array<{ id: string; token: string }> = [];
  for (let i = 0; i < B; i += 1) {
    const response = await fetch(`${url}/api/v1/boards`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `bench ${i}`, config: { max_participants: 100_000 } }),
    });
    const body = (await response.json()) as { board_uuid: string; access_links: { guest: string } };
    boards.push({ id: body.board_uuid, token: new URL(body.access_links.guest).searchParams.get('token')! });
  }
  const wsBase = url.replace(/^http/, 'ws');
  return {
    name: 'whiteboard service',
    child,
    board: (i) => ({ url: `${wsBase}/api/v1/realtime?token=${boards[i]!.token}`, name: boards[i]!.id, token: boards[i]!.token }),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
    },
  };
}

async function startPlain(): Promise<Target> {
  const { child, url } = await startProcess(['bench/plainHocuspocus.ts'], { PORT: '0' });
  const wsBase = url.replace(/^http/, 'ws');
  return {
    name: 'plain @hocuspocus/server',
    child,
    board: (i) => ({ url: wsBase, name: `bench-board-${i}`, token: 'none' }),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(target: Target) {
  const latencies: number[] = [];
  const clients: LoadClient[] = [];
  const connectStart = performance.now();
  for (let start = 0; start < N; start += CONNECT_CONCURRENCY) {
    const batch: LoadClient[] = [];
    for (let i = start; i < Math.min(N, start + CONNECT_CONCURRENCY); i += 1) {
      const boardIndex = i % B;
      const { url, name, token } = target.board(boardIndex);
      const real = Math.floor(i / B) < REAL_PER_BOARD;
      batch.push(real ? realClient(url, name, token, `client-${i}`, latencies) : liteClient(url, name, token, `client-${i}`));
    }
    await Promise.all(batch.map((client) => client.ready));
    clients.push(...batch);
  }
  const connectMs = performance.now() - connectStart;
  const cpuBefore = cpuSeconds(target.child.pid!);
  const acksBefore = clients.reduce((sum, client) => sum + client.acks(), 0);
  let peakRss = rssMiB(target.child.pid!);
  const started = performance.now();
  let sequence = 0;
  // Spread every client's sends evenly over each 1/RATE second.
  const tickMs = 10;
  const perTick = (N * RATE * tickMs) / 1000;
  let owed = 0;
  let next = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      owed += perTick;
      while (owed >= 1) {
        clients[next % N]!.sendUpdate(++sequence);
        next += 1;
        owed -= 1;
      }
      peakRss = Math.max(peakRss, rssMiB(target.child.pid!));
      if (performance.now() - started >= SECONDS * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, tickMs);
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const elapsed = (performance.now() - started) / 1000;
  const applied = clients.reduce((sum, client) => sum + client.acks(), 0) - acksBefore;
  const cpu = cpuSeconds(target.child.pid!) - cpuBefore;
  clients.forEach((client) => client.close());
  const sorted = latencies.sort((a, b) => a - b);
  return {
    target: target.name,
    clients: N,
    boards: B,
    'connect (ms)': Math.round(connectMs),
    'fan-out p50 (ms)': +percentile(sorted, 50).toFixed(2),
    'fan-out p95 (ms)': +percentile(sorted, 95).toFixed(2),
    'fan-out p99 (ms)': +percentile(sorted, 99).toFixed(2),
    'updates sent': sequence,
    'updates applied/s': Math.round(applied / elapsed),
    'server CPU (%)': Math.round((cpu / elapsed) * 100),
    'server RSS peak (MiB)': Math.round(peakRss),
    'latency samples': sorted.length,
  };
}

const rows = [];
for (const start of values.target === 'both' ? [startOurs, startPlain] : values.target === 'plain' ? [startPlain] : [startOurs]) {
  const target = await start();
  try {
    rows.push(await run(target));
  } finally {
    await target.stop();
  }
}
console.table(rows);
if (rows.length === 2) {
  const [ours, plain] = rows;
  const ratio = (key: 'updates applied/s' | 'fan-out p99 (ms)') => (ours![key] / plain![key]).toFixed(2);
  console.log(`throughput ours/plain: ${ratio('updates applied/s')}; p99 fan-out ours/plain: ${ratio('fan-out p99 (ms)')}`);
}
process.exit(0);
