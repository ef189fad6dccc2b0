/**
 * npm run bench:cluster [-- --clients 200 --seconds 20 --rate 2 --real 4 --rounds 1 --placement shared|spread --skip-build]
 *
 * The same clients and load, in one run, three ways:
 * - `one instance`: one board's clients on one instance;
 * - `two instances, a board each` (the control): two instances in multi-instance mode, half the
 *   clients on a board of the first, half on a board of the second. Nothing crosses between
 *   them, so it shows what running two processes instead of one costs on this machine;
 * - `two instances, one board`: the board's clients split over two instances, every change
 *   crossing to the other through Redis.
 * Needs DATABASE_URL=postgresql://… and REDIS_URL. Every layout runs the compiled service
 * (dist/main.js); the single instance is pinned to core 1 and this generator to core 0. With
 * `--placement shared` (the default) both instances of a two-instance layout share core 1, so
 * the figures compare at the same CPU; with `spread` the second instance runs on core 0 beside
 * the generator, closer to two machines on a machine that has two cores. Each client changes its
 * object `rate` times a second; `real` of them are real providers (spread over the instances)
 * that measure fan-out latency, split by whether the sender was on the same instance.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { cpuSeconds, percentile } from './agentsMeasure.js';
import { runBench } from './benchRun.js';
import { freshDatabase, POSTGRES_BASE } from './freshDatabase.js';
import { liteClient, realClient, type LoadClient } from './loadClients.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '20' },
    rate: { type: 'string', default: '2' },
    real: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '1' },
    placement: { type: 'string', default: 'shared' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
const REAL = Number(values.real);
const ROUNDS = Number(values.rounds);
const REDIS_URL = process.env.REDIS_URL;
const PIN = availableParallelism() > 1;
const PLACEMENT = values.placement === 'spread' ? 'spread' : 'shared';
const CONNECT_CONCURRENCY = 50;

interface Instance {
  child: ChildProcess;
  url: string;
}

/** How the clients are served: see the header. */
type Layout = 'one instance' | 'two instances, a board each' | 'two instances, one board';
const LAYOUTS: Layout[] = ['one instance', 'two instances, a board each', 'two instances, one board'];

interface LayoutResult {
  layout: Layout;
  connectMs: number;
  /** Fan-out latencies, ascending: every one, then those whose sender was on the receiver's instance, then the rest. */
  all: number[];
  same: number[];
  cross: number[];
  appliedPerSecond: number;
  cpuUsPerUpdate: number;
  /** Each instance's share of a core during the run. */
  coreShares: number[];
  /** The whole machine's CPU (instances, PostgreSQL, Redis, this generator) per update. */
  machineUsPerUpdate: number;
  loadavg: string;
}

/** Busy CPU seconds of the whole machine so far (every core, from /proc/stat). */
function machineCpuSeconds(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}

function startInstance(env: Record<string, string>, core: number): Promise<Instance> {
  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every instance, as in bench:realtime.
  const args = [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/main.js'];
  const [command, argv] = PIN ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}: ${output.slice(0, 2000)}`)));
  });
}

async function stopInstance({ child }: Instance): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function createBoard(instance: Instance, apiKey: string): Promise<{ id: string; token: string }> {
  const response = await fetch(`${instance.url}/api/v1/boards`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'cluster bench', config: { max_participants: 100_000 } }),
  });
  if (!response.ok) throw new Error(`POST /boards answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { board_uuid: string; access_links: { guest: string } };
  return { id: body.board_uuid, token: new URL(body.access_links.guest).searchParams.get('token')! };
}

/**
 * Client `i` goes to instance `i % n`, on that instance's board (`boards[i % boards.length]`);
 * the first REAL clients are real providers.
 */
async function connectClients(instances: Instance[], boards: Array<{ id: string; token: string }>, measured: { latencies: number[]; senders: string[]; receivers: number[] }): Promise<LoadClient[]> {
  const clients: LoadClient[] = [];
  for (let start = 0; start < CLIENTS; start += CONNECT_CONCURRENCY) {
    const batch: LoadClient[] = [];
    for (let i = start; i < Math.min(CLIENTS, start + CONNECT_CONCURRENCY); i += 1) {
      const instance = i % instances.length;
      const board = boards[i % boards.length]!;
      const url = `${instances[instance]!.url.replace(/^http/, 'ws')}/api/v1/realtime?token=${board.token}`;
      if (i < REAL) {
        const latencies: number[] = [];
        const senders: string[] = [];
        // Each real client's samples are copied out with the receiver's instance once the run is over.
        const client = realClient(url, board.id, board.token, `client-${i}`, latencies, undefined, senders);
        batch.push({ ...client, close: () => {
          measured.latencies.push(...latencies);
          measured.senders.push(...senders);
          measured.receivers.push(...latencies.map(() => instance));
          client.close();
        } });
      } else {
        batch.push(liteClient(url, board.id, board.token, `client-${i}`));
      }
    }
    clients.push(...batch);
    await Promise.all(batch.map((client) => client.ready));
  }
  return clients;
}

async function drive(clients: LoadClient[]): Promise<number> {
  const started = performance.now();
  const perMs = (clients.length * RATE) / 1000;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const owed = Math.min(clients.length * RATE * SECONDS, Math.floor((now - started) * perMs));
      while (sent < owed) clients[sent % clients.length]!.sendUpdate(++sent);
      if (now - started >= SECONDS * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  return sent;
}

async function runLayout(layout: Layout, onCleanup: (stop: () => Promise<void>) => void): Promise<LayoutResult> {
  const count = layout === 'one instance' ? 1 : 2;
  const database = await freshDatabase('wb_cluster_bench');
  const apiKey = `wb_bench_${randomBytes(8).toString('hex')}`;
  const env: Record<string, string> = {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, BOOTSTRAP_API_KEY: apiKey, BOOTSTRAP_PLAN: 'enterprise', LOG_LEVEL: 'warn', NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0',
    // One instance runs alone (no REDIS_URL), as a single-instance deployment does.
    ...(count === 2 ? { REDIS_URL: REDIS_URL!, CLUSTER_KEY_PREFIX: `wb:bench:${randomBytes(5).toString('hex')}:` } : { REDIS_URL: '' }),
  };
  const instances: Instance[] = [];
  const stop = async () => {
    await Promise.all(instances.map(stopInstance));
    await database.drop();
  };
  onCleanup(stop);
  for (let i = 0; i < count; i += 1) instances.push(await startInstance(env, i === 1 && PLACEMENT === 'spread' ? 0 : 1));
  const boards = layout === 'two instances, a board each' ? await Promise.all(instances.map((instance) => createBoard(instance, apiKey))) : [await createBoard(instances[0]!, apiKey)];
  const measured = { latencies: [] as number[], senders: [] as string[], receivers: [] as number[] };
  const connectStart = performance.now();
  const clients = await connectClients(instances, boards, measured);
  const connectMs = performance.now() - connectStart;
  const cpuBefore = instances.map((instance) => cpuSeconds(instance.child.pid!));
  const machineBefore = machineCpuSeconds();
  const acksBefore = clients.reduce((sum, client) => sum + client.acks(), 0);
  const started = performance.now();
  await drive(clients);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const elapsed = (performance.now() - started) / 1000;
  const applied = clients.reduce((sum, client) => sum + client.acks(), 0) - acksBefore;
  const cpuPerInstance = instances.map((instance, index) => cpuSeconds(instance.child.pid!) - cpuBefore[index]!);
  const cpu = cpuPerInstance.reduce((sum, seconds) => sum + seconds, 0);
  const machineCpu = machineCpuSeconds() - machineBefore;
  for (const client of clients) client.close();
  const same: number[] = [];
  const cross: number[] = [];
  measured.latencies.forEach((latency, index) => {
    const sender = Number(measured.senders[index]!.replace('client-', '')) % count;
    (sender === measured.receivers[index] ? same : cross).push(latency);
  });
  await stop();
  const sort = (list: number[]) => list.sort((a, b) => a - b);
  return {
    layout,
    connectMs,
    all: sort([...measured.latencies]),
    same: sort(same),
    cross: sort(cross),
    appliedPerSecond: applied / elapsed,
    cpuUsPerUpdate: (cpu * 1e6) / applied,
    coreShares: cpuPerInstance.map((seconds) => seconds / elapsed),
    machineUsPerUpdate: (machineCpu * 1e6) / applied,
    loadavg: loadavg().map((value) => value.toFixed(2)).join(' '),
  };
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const triple = (list: number[]) => `${fixed(percentile(list, 50))} / ${fixed(percentile(list, 95))} / ${fixed(percentile(list, 99))}`;

const p99 = (list: number[]) => percentile(list, 99);

function print(rounds: LayoutResult[][]): void {
  const placement = PLACEMENT === 'shared' ? 'every instance on core 1' : 'the first instance on core 1, the second on core 0 with the generator';
  console.log(`\n### ${CLIENTS} clients, ${RATE}/s each, ${SECONDS} s, PostgreSQL${PIN ? `, ${placement}, generator on core 0` : ''}\n`);
  console.log('| round | layout | connect ms | fan-out p50 / p95 / p99 ms (all) | same instance p50 / p95 / p99 | cross-instance p50 / p95 / p99 | applied per s | CPU µs per update (instances) | each instance, share of a core | machine CPU µs per update | load avg |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  rounds.forEach((results, round) => {
    for (const r of results) {
      const shares = r.coreShares.map((share) => `${Math.round(share * 100)} %`).join(', ');
      console.log(`| ${round + 1} | ${r.layout} | ${Math.round(r.connectMs)} | ${triple(r.all)} | ${triple(r.same)} | ${r.cross.length > 0 ? triple(r.cross) : '-'} | ${Math.round(r.appliedPerSecond)} | ${fixed(r.cpuUsPerUpdate, 0)} | ${shares} | ${fixed(r.machineUsPerUpdate, 0)} | ${r.loadavg} |`);
    }
  });
  rounds.forEach(([one, apart, shared], round) => {
    if (!one || !apart || !shared) return;
    console.log(
      `\nround ${round + 1}: cross-instance p99 ${fixed(p99(shared.cross) / p99(one.all), 2)}× of one instance (target: within 2×), ` +
        `${fixed(p99(shared.cross) / p99(apart.all), 2)}× of two instances a board each; ` +
        `two instances a board each: p99 ${fixed(p99(apart.all) / p99(one.all), 2)}× and CPU per update ${fixed(apart.cpuUsPerUpdate / one.cpuUsPerUpdate, 2)}× of one; ` +
        `one board: CPU per update ${fixed(shared.cpuUsPerUpdate / one.cpuUsPerUpdate, 2)}× of one`,
    );
  });
}

await runBench('bench:cluster', (10 + ROUNDS * 5) * 60_000, async (run) => {
  if (!POSTGRES_BASE || !REDIS_URL) throw new Error('bench:cluster needs DATABASE_URL=postgresql://… and REDIS_URL=redis://…');
  if (!values['skip-build']) execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
  if (PIN) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const rounds: LayoutResult[][] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const results: LayoutResult[] = [];
    for (const layout of LAYOUTS) results.push(await runLayout(layout, (stop) => (run.cleanup = stop)));
    rounds.push(results);
  }
  print(rounds);
});
