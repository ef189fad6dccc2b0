/**
 * npm run bench:agents [-- --boards 100 --agents 3 --rate 50 --seconds 20 --warmup 3 --clients-per-board 2 --update-rate 2]
 *
 * Starts the service as its own process (fresh SQLite file, enterprise plan, rate limits off,
 * the built-in rule engine: no LLM env), puts `agents` agents on each of `boards` boards (a
 * notifier telling the hosts about every new object, a tutor evaluating answers, an organiser
 * marking sticky notes seen; beyond three the roles repeat), connects one host provider per
 * board that listens for `agent:notification`, and `clients-per-board` real providers that each
 * change their own object `update-rate` times a second. Then it creates objects over REST at
 * `rate` per second in all (round-robin over boards; sticky_note / answer / note in turn, so a
 * third reach the tutor, whose AI requests the plan caps at 1,000 a month) in two phases of the
 * same load: agents paused, then resumed. Printed per phase: trigger→action latency (REST
 * create sent → notification about that object on the host socket), realtime fan-out latency,
 * server CPU and RSS; then a sample of the agents' action logs.
 */
import { printServerLog, runBench, type BenchRun } from './benchRun.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { actionLogSample, cpuSeconds, ms, percentile, startSampling } from './agentsMeasure.js';
import { api, expectOk, startService, type Service } from './agentsService.js';
import { realClient, type LoadClient } from './loadClients.js';

const { values } = parseArgs({
  options: {
    boards: { type: 'string', default: '100' },
    agents: { type: 'string', default: '3' },
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    'clients-per-board': { type: 'string', default: '2' },
    'update-rate': { type: 'string', default: '2' },
  },
});
const BOARDS = Number(values.boards);
const AGENTS = Number(values.agents);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const CLIENTS_PER_BOARD = Number(values['clients-per-board']);
const UPDATE_RATE = Number(values['update-rate']);

const CONNECT_TIMEOUT_MS = 30_000;
/** REST creates in flight at most; past it an event is dropped (and counted) rather than queued. */
const MAX_IN_FLIGHT = 64;
/** How long a phase waits after its load for notifications still on their way. */
const DRAIN_MS = 5_000;
const SETUP_CONCURRENCY = 8;
const OBJECT_TYPES = ['sticky_note', 'answer', 'note'] as const;
const AI_REQUESTS_PER_MONTH = 1_000;

const ROLES = [
  { name: 'notifier', persona: 'custom', trigger: { event: 'object:created', action: 'send_notification', params: { message: 'New object on the board', to: 'hosts' } } },
  { name: 'tutor', persona: 'tutor', trigger: { event: 'object:created', condition: "object.type == 'answer'", action: 'evaluate_answer', params: { expected: '42', deliver: 'none' } } },
  { name: 'organiser', persona: 'custom', trigger: { event: 'object:created', condition: "object.type == 'sticky_note'", action: 'update_object', params: { data: { seen: true } } } },
] as const;

interface Board {
  id: string;
  hostToken: string;
  guestToken: string;
  agents: Array<{ id: string; role: string }>;
}
/** One REST create measured: when it was sent and answered, and the object it made. */
interface SentEvent {
  objectId: string;
  sent: number;
  answered: number;
}
interface Bench {
  service: Service;
  boards: Board[];
  writers: LoadClient[];
  watchers: Array<{ close(): void }>;
  /** Object id → first `agent:notification` about it on the board's host socket. */
  arrivals: Map<string, number>;
  fanOut: number[];
}

const sleep = (duration: number) => new Promise((resolve) => setTimeout(resolve, duration));

/** Runs `work` over the items, at most `concurrency` at a time. */
async function inParallel<T>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function createBoards(service: Service): Promise<Board[]> {
  const boards: Board[] = new Array<Board>(BOARDS);
  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
  await inParallel([...Array(BOARDS).keys()], SETUP_CONCURRENCY, async (i) => {
    const created = await expectOk<{ board_uuid: string; access_links: { host: string; guest: string } }>(service, 'POST', '/boards', {
      title: `agents bench ${i}`,
      config: { max_participants: 100_000 },
    });
    const board: Board = { id: created.board_uuid, hostToken: tokenOf(created.access_links.host), guestToken: tokenOf(created.access_links.guest), agents: [] };
    for (let a = 0; a < AGENTS; a += 1) {
      const role = ROLES[a % ROLES.length]!;
      const agent = await expectOk<{ id: string }>(service, 'POST', `/boards/${board.id}/agents`, {
        name: `${role.name} ${a}`,
        persona: role.persona,
        instructions: { triggers: [role.trigger] },
        maxActionsPerMinute: 60,
      });
      board.agents.push({ id: agent.id, role: role.name });
    }
    boards[i] = board;
  });
  return boards;
}

/** The board's host: a real provider that records when each object's first notification arrives. */
function hostWatcher(url: string, board: Board, arrivals: Map<string, number>) {
  const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket });
  const provider = new HocuspocusProvider({
    websocketProvider: socket,
    name: board.id,
    document: new Y.Doc(),
    token: board.hostToken,
    onStateless: ({ payload }) => {
      const message = JSON.parse(payload) as { type?: string; objectId?: unknown };
      if (message.type === 'agent:notification' && typeof message.objectId === 'string' && !arrivals.has(message.objectId)) {
        arrivals.set(message.objectId, performance.now());
      }
    },
  });
  provider.attach();
  return {
    ready: new Promise<void>((resolve) => provider.on('synced', () => resolve())),
    close() {
      provider.destroy();
      socket.destroy();
    },
  };
}

async function connectClients(bench: Bench): Promise<void> {
  const wsBase = `${bench.service.url.replace(/^http/, 'ws')}/api/v1/realtime`;
  await inParallel(bench.boards, 20, async (board, i) => {
    const watcher = hostWatcher(`${wsBase}?token=${board.hostToken}`, board, bench.arrivals);
    bench.watchers.push(watcher);
    const writers = Array.from({ length: CLIENTS_PER_BOARD }, (_, c) =>
      realClient(`${wsBase}?token=${board.guestToken}`, board.id, board.guestToken, `writer-${i}-${c}`, bench.fanOut),
    );
    bench.writers.push(...writers);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`board ${i}: providers not synced after ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS)));
    await Promise.race([Promise.all([watcher.ready, ...writers.map((writer) => writer.ready)]), timedOut]).finally(() => clearTimeout(timer));
  });
}

async function setAgents(bench: Bench, action: 'pause' | 'resume'): Promise<void> {
  const started = performance.now();
  const agents = bench.boards.flatMap((board) => board.agents.map((agent) => ({ board: board.id, agent: agent.id })));
  await inParallel(agents, SETUP_CONCURRENCY, async ({ board, agent }) => {
    await expectOk(bench.service, 'POST', `/boards/${board}/agents/${agent}/${action}`);
  });
  console.log(`${new Date().toISOString()} ${action}d ${agents.length} agents in ${Math.round(performance.now() - started)} ms`);
}

/** The load of one phase: REST creates at RATE and socket updates at UPDATE_RATE per writer, until stopped. */
function startLoad(bench: Bench) {
  const state = { sent: null as SentEvent[] | null, inFlight: 0, failed: 0, dropped: 0, sequence: 0, update: 0, failures: new Map<string, number>() };
  const fail = (reason: string) => {
    state.failed += 1;
    state.failures.set(reason, (state.failures.get(reason) ?? 0) + 1);
  };
  // Owed from the clock, not from the ticks: a late tick still sends what its time asked for.
  let last = performance.now();
  let owedEvents = 0;
  let owedUpdates = 0;
  const sendEvent = () => {
    const sequence = state.sequence++;
    const board = bench.boards[sequence % BOARDS]!;
    // Each board sees the three types in turn, and at any moment the boards hold a mix of them.
    const type = OBJECT_TYPES[(sequence + Math.floor(sequence / BOARDS)) % OBJECT_TYPES.length]!;
    const record = state.sent;
    const sent = performance.now();
    state.inFlight += 1;
    const body = { type, data: { text: type === 'answer' ? '42' : `note ${sequence}` }, position: { x: (sequence % 40) * 30, y: (Math.floor(sequence / 40) % 40) * 30 } };
    void api(bench.service, 'POST', `/boards/${board.id}/objects`, body)
      .then((answer) => {
        if (answer.status !== 201) fail(`${answer.status} ${String((answer.body as { message?: unknown } | null)?.message).slice(0, 80)}`);
        else record?.push({ objectId: (answer.body as { id: string }).id, sent, answered: performance.now() });
      })
      .catch((error: Error) => fail(error.name))
      .finally(() => (state.inFlight -= 1));
  };
  const timer = setInterval(() => {
    const now = performance.now();
    owedEvents += (RATE * (now - last)) / 1000;
    owedUpdates += (bench.writers.length * UPDATE_RATE * (now - last)) / 1000;
    last = now;
    for (; owedEvents >= 1; owedEvents -= 1) {
      if (state.inFlight < MAX_IN_FLIGHT) sendEvent();
      else state.dropped += 1;
    }
    for (; owedUpdates >= 1; owedUpdates -= 1) bench.writers[state.update % bench.writers.length]!.sendUpdate(++state.update);
  }, 10);
  return { state, stop: () => clearInterval(timer) };
}

async function runPhase(bench: Bench, phase: string, agentsOn: boolean) {
  const pid = bench.service.child.pid!;
  const load = startLoad(bench);
  await sleep(WARMUP * 1000);
  const sent: SentEvent[] = [];
  load.state.sent = sent;
  bench.fanOut.length = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const sampling = startSampling(bench.service);
  const cpuBefore = cpuSeconds(pid);
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  console.log(`${new Date().toISOString()} ${phase}: measuring for ${SECONDS} s`);
  await sleep(SECONDS * 1000);
  load.stop();
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  sampling.stop();
  loop.disable();
  const fanOut = bench.fanOut.slice().sort((a, b) => a - b);
  const drainUntil = performance.now() + DRAIN_MS;
  while (performance.now() < drainUntil && (load.state.inFlight > 0 || (agentsOn && sent.some((event) => !bench.arrivals.has(event.objectId))))) await sleep(50);
  const notified = sent.filter((event) => bench.arrivals.has(event.objectId));
  const triggerToAction = notified.map((event) => bench.arrivals.get(event.objectId)! - event.sent).sort((a, b) => a - b);
  const creates = sent.map((event) => event.answered - event.sent).sort((a, b) => a - b);
  const probes = sampling.samples.probes.sort((a, b) => a - b);
  for (const [reason, count] of load.state.failures) console.log(`${phase}: ${count} REST creates failed: ${reason}`);
  return {
    phase,
    'events sent': sent.length + (load.state.failed || load.state.dropped ? ` (+${load.state.failed} failed, ${load.state.dropped} dropped)` : ''),
    'REST create p50/p99': `${ms(percentile(creates, 50))} / ${ms(percentile(creates, 99))}`,
    notifications: agentsOn ? notified.length : '-',
    'trigger→action p50': ms(percentile(triggerToAction, 50)),
    p95: ms(percentile(triggerToAction, 95)),
    p99: ms(percentile(triggerToAction, 99)),
    'fan-out p50': ms(percentile(fanOut, 50)),
    'fan-out p99': ms(percentile(fanOut, 99)),
    'fan-out n': fanOut.length,
    'server CPU %': Math.round((cpu / elapsed) * 100),
    'RSS peak MiB': Math.round(sampling.samples.peakRss),
    '/health p99/max': `${ms(percentile(probes, 99))} / ${ms(probes.at(-1) ?? NaN)}`,
    'bench CPU %': Math.round(((benchCpu.user + benchCpu.system) / 1e6 / elapsed) * 100),
    'bench loop p99': ms(loop.percentile(99) / 1e6),
    fanOutP99: percentile(fanOut, 99),
  };
}

async function main(run: BenchRun): Promise<void> {
  const tutorsPerBoard = [...Array(AGENTS).keys()].filter((a) => ROLES[a % ROLES.length]!.name === 'tutor').length;
  const expectedAnswers = (RATE / OBJECT_TYPES.length) * (WARMUP + SECONDS) * tutorsPerBoard;
  if (expectedAnswers > AI_REQUESTS_PER_MONTH * 0.9) console.warn(`~${Math.round(expectedAnswers)} answers may exceed the plan's ${AI_REQUESTS_PER_MONTH} AI requests a month: the rest are logged refused`);
  const service = await startService(run.abort);
  const bench: Bench = { service, boards: [], writers: [], watchers: [], arrivals: new Map(), fanOut: [] };
  run.cleanup = async () => {
    for (const client of [...bench.writers, ...bench.watchers]) client.close();
    await service.stop();
  };
  const setupStarted = performance.now();
  bench.boards = await createBoards(service);
  await connectClients(bench);
  // Each writer's first change creates its object; done here, so no phase pays for those creations.
  bench.writers.forEach((writer) => writer.sendUpdate(0));
  await sleep(2_000);
  await setAgents(bench, 'pause');
  console.log(`set up ${BOARDS} boards, ${BOARDS * AGENTS} agents, ${bench.writers.length + bench.watchers.length} providers in ${Math.round(performance.now() - setupStarted)} ms`);
  const off = await runPhase(bench, 'agents off', false);
  await setAgents(bench, 'resume');
  const on = await runPhase(bench, 'agents on', true);
  const rows = [off, on].map(({ fanOutP99: _p99, ...row }) => row);
  console.table(rows);
  console.log(`fan-out p99 on/off: ${(on.fanOutP99 / off.fanOutP99).toFixed(2)}`);
  console.table(await actionLogSample(bench.service, bench.boards));
  printServerLog(service.logged);
}

const budgetMs = (60 + 2 * (WARMUP + SECONDS + DRAIN_MS / 1000) + BOARDS * 1.5) * 1000 + 120_000;
await runBench('bench:agents', budgetMs, main);
