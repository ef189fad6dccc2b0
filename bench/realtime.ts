/**
 * npm run bench:realtime [-- --scenario 1000x20|250x1[,…] --rounds 2 --target both|ours|plain
 *                           --seconds 20 --rate 2 --real-per-board 2 --skip-build --profile]
 * (the old `--clients N --boards B` still work and override a scenario's numbers).
 *
 * Starts the service (compiled dist/main.js, fresh SQLite file or a throwaway PostgreSQL
 * database when DATABASE_URL is a postgres URL; enterprise plan) and a plain
 * @hocuspocus/server with no hooks (bench/plainHocuspocus.ts), each as its own process pinned
 * to core 1, with this load generator pinned to core 0. Both run as JavaScript under bare node
 * (the two bench files are compiled with esbuild to dist/bench/*.mjs). Both servers preload
 * bench/eventLoopProbe.ts, which measures event-loop delay, stalls over 10 ms, CPU and GC per
 * phase. Clients (most "lite": real Yjs updates, received frames dropped; two real providers
 * per board measuring fan-out latency) change an object `rate` times a second. Rounds
 * alternate which server goes first. `--profile` CPU-profiles our server and attributes its
 * stalls (bench/cpuProfileStalls.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildSync } from 'esbuild';
import { percentile, rssMiB } from './agentsMeasure.js';
import { runBench } from './benchRun.js';
import { analyzeProfile, type PhaseReport } from './cpuProfileStalls.js';
import { freshDatabase, POSTGRES_BASE } from './freshDatabase.js';
import { liteClient, realClient, type LoadClient } from './loadClients.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: '' },
    clients: { type: 'string' },
    boards: { type: 'string' },
    rate: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
    'real-per-board': { type: 'string', default: '2' },
    target: { type: 'string', default: 'both' },
    'connect-concurrency': { type: 'string', default: '50' },
    'skip-build': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    timeline: { type: 'boolean', default: false },
  },
});
const SCENARIOS: Record<string, { clients: number; boards: number }> = { '1000x20': { clients: 1000, boards: 20 }, '250x1': { clients: 250, boards: 1 } };
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const REAL_PER_BOARD = Number(values['real-per-board']);
const CONNECT_CONCURRENCY = Number(values['connect-concurrency']);
const IDLE_MS = 2000;
/** Pinning needs a second core; on one core both would share it anyway. */
const PIN = availableParallelism() > 1;

interface Scenario { name: string; clients: number; boards: number }
type Kind = 'ours' | 'plain';

interface Server {
  kind: Kind;
  child: ChildProcess;
  url: string;
  /** Socket URL, document name and token of board `i`. */
  board(i: number): { url: string; name: string; token: string };
  setup(boards: number): Promise<void>;
  probe: ReturnType<typeof probeOf>;
  logLines: string[];
  stop(): Promise<void>;
}

/** The bench's side of bench/eventLoopProbe.mjs, over the child's IPC channel. */
function probeOf(child: ChildProcess) {
  let nextId = 0;
  return {
    phase(name: string) {
      child.send({ probe: 'phase', name });
    },
    report(): Promise<PhaseReport[]> {
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error('the probe did not report within 30 s')), 30_000);
        const onMessage = (message: { probe?: string; id?: number; phases?: PhaseReport[] }) => {
          if (message.probe !== 'report' || message.id !== id) return;
          clearTimeout(timeout);
          child.off('message', onMessage);
          resolve(message.phases ?? []);
        };
        child.on('message', onMessage);
        child.send({ probe: 'report', id });
      });
    },
  };
}

function spawnServer(script: string, nodeArgs: string[], env: NodeJS.ProcessEnv, logLines: string[]): Promise<{ child: ChildProcess; url: string }> {
  const extra = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const args = [...extra, ...nodeArgs, '--import', './dist/bench/eventLoopProbe.mjs', script];
  const [command, argv] = PIN ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (output.length < 20_000) output += text;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
      // LOG_LEVEL=warn: every JSON line is a warning or an error; keep a few to show.
      for (const line of text.split('\n')) if (line.startsWith('{') && logLines.length < 1000) logLines.push(line.slice(0, 200));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(force);
}

async function startOurs(profileDir: string | null): Promise<Server> {
  const database = await freshDatabase();
  const apiKey = `wb_bench_${randomBytes(8).toString('hex')}`;
  const logLines: string[] = [];
  const { child, url } = await spawnServer('dist/main.js', profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [], {
    PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, BOOTSTRAP_API_KEY: apiKey, BOOTSTRAP_PLAN: 'enterprise', LOG_LEVEL: 'warn', NODE_ENV: 'production',
    RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0',
  }, logLines).catch(async (error: Error) => {
    await database.drop();
    throw error;
  });
  const boards: Array<{ id: string; token: string }> = [];
  const wsBase = url.replace(/^http/, 'ws');
  return {
    kind: 'ours', child, url, logLines, probe: probeOf(child),
    board: (i) => ({ url: `${wsBase}/api/v1/realtime?token=${boards[i]!.token}`, name: boards[i]!.id, token: boards[i]!.token }),
    async setup(count) {
      for (let i = 0; i < count; i += 1) {
        const response = await fetch(`${url}/api/v1/boards`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          // Enterprise plan, participants raised: 250 on one board is past the business plan's limit.
          body: JSON.stringify({ title: `bench ${i}`, config: { max_participants: 100_000 } }),
        });
        if (!response.ok) throw new Error(`POST /boards answered ${response.status}: ${await response.text()}`);
        const body = (await response.json()) as { board_uuid: string; access_links: { guest: string } };
        boards.push({ id: body.board_uuid, token: new URL(body.access_links.guest).searchParams.get('token')! });
      }
    },
    async stop() {
      await stopChild(child);
      await database.drop();
    },
  };
}

async function startPlain(): Promise<Server> {
  const logLines: string[] = [];
  const { child, url } = await spawnServer('dist/bench/plainHocuspocus.mjs', [], { PORT: '0' }, logLines);
  const wsBase = url.replace(/^http/, 'ws');
  return {
    kind: 'plain', child, url, logLines, probe: probeOf(child),
    board: (i) => ({ url: wsBase, name: `bench-board-${i}`, token: 'none' }),
    setup: async () => undefined,
    stop: () => stopChild(child),
  };
}

/** Write system calls the process made so far (`syscw` counts write, writev and sendmsg alike). */
function writeCalls(pid: number): number {
  return Number(/syscw:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

/** Times the kernel took the core from the server's main thread (the event loop) while it could run. */
function preemptions(pid: number): number {
  return Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** RSS of the idle server before any client: after a short idle and one HTTP request. */
async function emptyRss(server: Server): Promise<number> {
  server.probe.phase('empty');
  await sleep(IDLE_MS);
  const response = await fetch(server.kind === 'ours' ? `${server.url}/health` : server.url);
  await response.arrayBuffer();
  await sleep(200);
  return rssMiB(server.child.pid!);
}

async function connectAll(server: Server, scenario: Scenario, latencies: number[], arrivals: number[]): Promise<LoadClient[]> {
  const clients: LoadClient[] = [];
  for (let start = 0; start < scenario.clients; start += CONNECT_CONCURRENCY) {
    const batch: LoadClient[] = [];
    for (let i = start; i < Math.min(scenario.clients, start + CONNECT_CONCURRENCY); i += 1) {
      const { url, name, token } = server.board(i % scenario.boards);
      const real = Math.floor(i / scenario.boards) < REAL_PER_BOARD;
      batch.push(real ? realClient(url, name, token, `client-${i}`, latencies, arrivals) : liteClient(url, name, token, `client-${i}`));
    }
    clients.push(...batch);
    await Promise.all(batch.map((client) => client.ready));
  }
  return clients;
}

/**
 * Every client changes its object RATE times a second, spread evenly; returns the sends and
 * the peak RSS. What is owed follows the clock, not the tick count, so a late tick (a busy
 * generator) sends what it missed and both servers get the same offered load.
 */
async function drive(server: Server, clients: LoadClient[], peakRss: number): Promise<{ sent: number; peakRss: number }> {
  const started = performance.now();
  const perMs = (clients.length * RATE) / 1000;
  let sent = 0;
  let lastRss = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const owed = Math.min(clients.length * RATE * SECONDS, Math.floor((now - started) * perMs));
      while (sent < owed) clients[sent % clients.length]!.sendUpdate(++sent);
      if (now - lastRss >= 250) {
        lastRss = now;
        peakRss = Math.max(peakRss, rssMiB(server.child.pid!));
      }
      if (now - started >= SECONDS * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  return { sent, peakRss };
}

interface RunResult {
  kind: Kind;
  round: number;
  connectMs: number;
  latencies: number[];
  /** Fan-out p50 and p99 per TIMELINE_WINDOW_S of the load, from its start. */
  timeline: Array<{ p50: number; p99: number; count: number }>;
  sentPerSecond: number;
  appliedPerSecond: number;
  cpuUsPerUpdate: number;
  serverCpuPercent: number;
  generatorCpuPercent: number;
  loadPreemptions: number;
  /** Write system calls (write, writev, sendmsg) of the server per applied update during the load. */
  writesPerUpdate: number;
  emptyRss: number;
  peakRss: number;
  phases: PhaseReport[];
  loadavg: string;
}

async function run(server: Server, scenario: Scenario, round: number): Promise<RunResult> {
  const empty = await emptyRss(server);
  server.probe.phase('setup');
  await server.setup(scenario.boards);
  const latencies: number[] = [];
  const arrivals: number[] = [];
  server.probe.phase('connect');
  const connectStart = performance.now();
  const clients = await connectAll(server, scenario, latencies, arrivals);
  const connectMs = performance.now() - connectStart;
  // Only fan-out under load counts.
  latencies.length = 0;
  arrivals.length = 0;
  const acksBefore = clients.reduce((sum, client) => sum + client.acks(), 0);
  server.probe.phase('load');
  const generatorCpu = process.cpuUsage();
  const preemptedBefore = preemptions(server.child.pid!);
  const writesBefore = writeCalls(server.child.pid!);
  const started = performance.now();
  const { sent, peakRss } = await drive(server, clients, rssMiB(server.child.pid!));
  const generator = process.cpuUsage(generatorCpu);
  const loadPreemptions = preemptions(server.child.pid!) - preemptedBefore;
  const loadWrites = writeCalls(server.child.pid!) - writesBefore;
  const generatorCpuPercent = ((generator.user + generator.system) / 10 / (performance.now() - started));
  server.probe.phase('settle');
  await sleep(1000);
  const elapsed = (performance.now() - started) / 1000;
  const applied = clients.reduce((sum, client) => sum + client.acks(), 0) - acksBefore;
  const phases = await server.probe.report();
  clients.forEach((client) => client.close());
  const phase = (name: string) => phases.find((entry) => entry.name === name)!;
  const cpuMs = phase('load').cpuMs + phase('settle').cpuMs;
  return {
    kind: server.kind, round, connectMs, timeline: timelineOf(latencies, arrivals, started), latencies: latencies.sort((a, b) => a - b), sentPerSecond: sent / SECONDS, appliedPerSecond: applied / elapsed,
    cpuUsPerUpdate: (cpuMs * 1000) / applied, serverCpuPercent: (phase('load').cpuMs / phase('load').durationMs) * 100,
    generatorCpuPercent, loadPreemptions, writesPerUpdate: loadWrites / applied, emptyRss: empty, peakRss, phases, loadavg: loadavg().map((value) => value.toFixed(2)).join(' '),
  };
}

const TIMELINE_WINDOW_S = 2;

/** Fan-out percentiles per window of the load: whether the tail is the start or the whole run. */
function timelineOf(latencies: number[], arrivals: number[], started: number): RunResult['timeline'] {
  const windows: number[][] = [];
  latencies.forEach((latency, index) => {
    const window = Math.floor((arrivals[index]! - started) / 1000 / TIMELINE_WINDOW_S);
    (windows[window] ??= []).push(latency);
  });
  return [...windows].map((values = []) => {
    values.sort((a, b) => a - b);
    return { p50: percentile(values, 50), p99: percentile(values, 99), count: values.length };
  });
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function printTable(scenario: Scenario, results: RunResult[]): void {
  const database = POSTGRES_BASE ? 'PostgreSQL' : 'SQLite';
  console.log(`\n### ${scenario.clients} clients on ${scenario.boards} board(s), ${RATE}/s each, ${SECONDS} s, ours on ${database}${PIN ? ', servers on core 1, generator on core 0' : ', not pinned (one core)'}\n`);
  console.log('| target | round | connect ms | fan-out p50 / p95 / p99 ms | sent / applied per s | CPU µs/update | server CPU % | empty RSS MiB | peak RSS MiB | loop delay p99 / max ms (load) | stalls >10 ms conn / load | stalls >50 ms conn / load | GC ms (load) | generator CPU % | server preempted (load) | writes per update (load) | load avg |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const phase = (name: string) => r.phases.find((entry) => entry.name === name)!;
    const [connect, load] = [phase('connect'), phase('load')];
    const p = (q: number) => fixed(percentile(r.latencies, q), 2);
    console.log(`| ${r.kind} | ${r.round} | ${Math.round(r.connectMs)} | ${p(50)} / ${p(95)} / ${p(99)} | ${Math.round(r.sentPerSecond)} / ${Math.round(r.appliedPerSecond)} | ${fixed(r.cpuUsPerUpdate, 0)} | ${Math.round(r.serverCpuPercent)} | ${fixed(r.emptyRss)} | ${fixed(r.peakRss)} | ${load.delayP99Ms} / ${load.delayMaxMs} | ${connect.stallsOver10} / ${load.stallsOver10} | ${connect.stallsOver50} / ${load.stallsOver50} | ${load.gcMs} | ${Math.round(r.generatorCpuPercent)} | ${r.loadPreemptions} | ${fixed(r.writesPerUpdate)} | ${r.loadavg} |`);
  }
  printRatios(scenario, results);
  printStalls(results);
  if (values.timeline) printTimeline(results);
}

function printTimeline(results: RunResult[]): void {
  console.log(`\nfan-out p50 / p99 ms per ${TIMELINE_WINDOW_S} s of load (by arrival):`);
  for (const r of results) {
    console.log(`- ${r.kind} round ${r.round}: ${r.timeline.map((w) => `${fixed(w.p50, 0)}/${fixed(w.p99, 0)}`).join('  ')}`);
  }
}

/** The ratios the realtime targets bound (docs/performance.md), per round and over the rounds' means. */
function printRatios(scenario: Scenario, results: RunResult[]): void {
  const mean = (kind: Kind, pick: (r: RunResult) => number) => {
    const picked = results.filter((r) => r.kind === kind).map(pick);
    return picked.reduce((sum, value) => sum + value, 0) / picked.length;
  };
  const metrics: Array<[string, (r: RunResult) => number, number]> = [
    ['fan-out p99', (r) => percentile(r.latencies, 99), 1.3],
    ['CPU per update', (r) => r.cpuUsPerUpdate, 1.15],
    ['connect', (r) => r.connectMs, 1.5],
  ];
  if (!results.some((r) => r.kind === 'ours') || !results.some((r) => r.kind === 'plain')) return;
  console.log('');
  for (const [label, pick, limit] of metrics) {
    const perRound = [...new Set(results.map((r) => r.round))].map((round) => {
      const of = (kind: Kind) => pick(results.find((r) => r.kind === kind && r.round === round)!);
      return fixed(of('ours') / of('plain'), 2);
    });
    const overall = mean('ours', pick) / mean('plain', pick);
    console.log(`${label} ours/plain: ${fixed(overall, 2)} over the rounds' means (rounds: ${perRound.join(', ')}; target ≤ ${limit})`);
  }
  const ours = results.filter((r) => r.kind === 'ours');
  const worstP99 = Math.max(...ours.map((r) => percentile(r.latencies, 99)));
  const over50 = ours.reduce((sum, r) => sum + r.phases.reduce((count, phase) => count + (['connect', 'load', 'settle'].includes(phase.name) ? phase.stallsOver50 : 0), 0), 0);
  console.log(`ours: worst fan-out p99 ${fixed(worstP99, 2)} ms${scenario.boards === 1 ? ' (target < 100 ms)' : ''}; empty RSS ${ours.map((r) => fixed(r.emptyRss)).join(', ')} MiB (≤ 120); stalls > 50 ms in connect+load+settle: ${over50} (0)`);
}

/** Every stall over 10 ms during connect, load and settle: offset into its phase and length. */
function printStalls(results: RunResult[]): void {
  for (const r of results) {
    const stalls = r.phases.filter((phase) => ['connect', 'load', 'settle'].includes(phase.name))
      .flatMap((phase) => phase.stalls.map((stall) => `${phase.name}+${((stall.startMono - phase.startMono) / 1e6).toFixed(2)}s ${stall.ms}ms`));
    if (stalls.length === 0) continue;
    console.log(`stalls > 10 ms, ${r.kind} round ${r.round} (${stalls.length}): ${stalls.slice(0, 60).join(', ')}${stalls.length > 60 ? ', …' : ''}`);
  }
}

function scenarios(): Scenario[] {
  const names = values.scenario ? values.scenario.split(',') : [''];
  return names.map((name) => {
    const preset = SCENARIOS[name];
    if (name && !preset) throw new Error(`unknown scenario ${name}: one of ${Object.keys(SCENARIOS).join(', ')}`);
    const clients = Number(values.clients ?? preset?.clients ?? 200);
    const boards = Number(values.boards ?? preset?.boards ?? 20);
    return { name: name || `${clients}x${boards}`, clients, boards };
  });
}

/** Ours only: attributes the stalls of a profiled run to functions (bench/cpuProfileStalls.ts). */
function attributeStalls(result: RunResult, pid: number, profileDir: string): void {
  const file = readdirSync(profileDir).find((name) => name.includes(`.${pid}.`) && name.endsWith('.cpuprofile'));
  if (!file) return console.log(`no CPU profile of pid ${pid} in ${profileDir}`);
  writeFileSync(join(profileDir, `probe-${pid}.json`), JSON.stringify(result.phases));
  console.log(`\n#### Stall attribution, ours round ${result.round} (profile ${join(profileDir, file)}; the profiler's own cost is in this run's figures)`);
  analyzeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as Parameters<typeof analyzeProfile>[0], result.phases);
}

void runBench('bench:realtime', 60 * 60_000, async (bench) => {
  // The load generator stays on core 0; the servers get core 1 (taskset in spawnServer).
  if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  if (!values['skip-build']) execFileSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
  // The probe and the plain server as plain JavaScript (imports stay imports, resolved from dist/).
  buildSync({ entryPoints: ['bench/eventLoopProbe.ts', 'bench/plainHocuspocus.ts'], outdir: 'dist/bench', outExtension: { '.js': '.mjs' }, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  const profileDir = values.profile ? mkdtempSync(join(tmpdir(), 'wb-realtime-prof-')) : null;
  const kinds: Kind[] = values.target === 'both' ? ['ours', 'plain'] : [values.target as Kind];
  for (const scenario of scenarios()) {
    const results: RunResult[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      // Alternating who goes first spreads the drift of a shared machine over both.
      for (const kind of round % 2 === 1 ? kinds : [...kinds].reverse()) {
        const server = kind === 'ours' ? await startOurs(profileDir) : await startPlain();
        bench.cleanup = () => server.stop();
        const result = await run(server, scenario, round);
        await sleep(500);
        await server.stop();
        results.push(result);
        if (server.logLines.length > 0) console.log(`${kind} round ${round} logged ${server.logLines.length} warnings/errors, first: ${server.logLines[0]}`);
        if (profileDir && kind === 'ours') attributeStalls(result, server.child.pid!, profileDir);
      }
    }
    printTable(scenario, results);
  }
  if (profileDir) console.log(`\nprofiles and probe reports kept in ${profileDir}`);
});
