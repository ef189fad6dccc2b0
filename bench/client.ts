/**
 * npm run bench:client [-- --runs 5 --skip-build]
 *
 * The client's target (docs/performance.md): a board with 1,000 objects renders in a real browser
 * within 1.5 s of navigation.
 * Builds the client (client/build.mjs; `--skip-build` reuses dist/client), starts the service as
 * its own process (fresh SQLite file, see agentsService.ts), creates a board with 1,000 objects
 * (bench/clientPeer.ts) and opens its host link in Chromium (playwright-core), `runs` times:
 *  - cold: a new browser context (no cache, no service worker, no IndexedDB), page.goto;
 *  - warm: once the service worker controls that page and the board is stored on the device, reload.
 * Each open is timed by the page itself (performance.now(), 0 = navigation start), from an init
 * script that runs before the page's own: when body[data-ready] was set, the first animation
 * frame that found all 1,000 `#scene g.object` in the DOM, and the next frame's start (so the
 * frame holding them has been laid out and painted). In the same run, interleaved, a static
 * peer page draws the same objects as plain SVG (clientPeer.ts): the browser's own floor, so
 * the client's cost reads as a ratio on a machine whose speed drifts.
 */
import { printServerLog, runBench, type BenchRun } from './benchRun.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildClient } from '../client/build.mjs';
import { ms, percentile } from './agentsMeasure.js';
import { expectOk, startService, type Service } from './agentsService.js';
import { boardObjects, OBJECT_COUNT, startPeer, type ObjectInput } from './clientPeer.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be a whole number of at least 1, not ${values.runs}`);
const BUDGET_MS = 1_500;
const CHROMIUM_PATH = '/usr/bin/chromium';
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const VIEWPORT = { width: 1280, height: 800 };
/** One open's wait: far above the budget, so a slow open is measured rather than cut off. */
const OPEN_TIMEOUT_MS = 30_000;

/** What the page recorded of one open, in its own milliseconds from navigation start. */
interface Marks {
  ready: number | null;
  /** The first frame that found any object in the scene. */
  first: number;
  drawn: number;
  painted: number;
  /** The page itself came from the service worker (navigation timing's workerStart is set). */
  viaWorker: boolean;
}

/**
 * Runs in every document before its own scripts. A string, not a function: tsx's transform
 * adds helpers (`__name`) to functions that would not exist in the page.
 */
const RECORD_MARKS = `(() => {
  const marks = { ready: null, first: null, drawn: null, painted: null };
  window.__benchMarks = marks;
  new MutationObserver(() => {
    if (marks.ready === null && document.body && document.body.dataset.ready === 'true') marks.ready = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
  const tick = () => {
    if (marks.drawn !== null) {
      marks.painted = performance.now();
      return;
    }
    const count = document.querySelectorAll('#scene g.object').length;
    if (marks.first === null && count > 0) marks.first = performance.now();
    if (count >= ${OBJECT_COUNT}) marks.drawn = performance.now();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

/** Navigates (goto or reload) and waits until the page has painted all the objects; answers its marks. */
async function measureOpen(page: Page, navigate: () => Promise<unknown>): Promise<Marks> {
  await navigate();
  // Polled from here, timed in the page: how often this looks does not change the figure.
  await page.waitForFunction(() => (window as unknown as { __benchMarks?: { painted: number | null } }).__benchMarks?.painted != null, undefined, {
    polling: 50,
    timeout: OPEN_TIMEOUT_MS,
  });
  return page.evaluate(() => {
    const marks = (window as unknown as { __benchMarks: Omit<Marks, 'viaWorker'> }).__benchMarks;
    const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    return { ...marks, viaWorker: (navigation?.workerStart ?? 0) > 0 };
  });
}

interface Opened {
  cold: Marks;
  warm: Marks;
}

/**
 * A cold open in a fresh context, then a reload in it. `beforeReload` brings the context to what
 * a returning device has (for the client: the service worker in control, the board stored).
 */
async function openTwice(browser: Browser, url: string, errors: string[], beforeReload: (page: Page) => Promise<void>): Promise<Opened> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    context.setDefaultTimeout(OPEN_TIMEOUT_MS);
    await context.addInitScript({ content: RECORD_MARKS });
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
    });
    // The console names no address for a failed load; the response does.
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
    });
    // 'commit': the wait is for the page's own marks, not for the load event.
    const cold = await measureOpen(page, () => page.goto(url, { waitUntil: 'commit' }));
    await beforeReload(page);
    const warm = await measureOpen(page, () => page.reload({ waitUntil: 'commit' }));
    return { cold, warm };
  } finally {
    await context.close().catch(() => undefined);
  }
}

async function clientReturning(page: Page): Promise<void> {
  const stored = await page.evaluate(async () => {
    const hooks = (window as unknown as { whiteboard: { serviceWorkerReady(): Promise<boolean>; flushed(): Promise<void> } }).whiteboard;
    const controlled = await hooks.serviceWorkerReady();
    await hooks.flushed();
    return controlled;
  });
  if (!stored) throw new Error('the service worker never took control of the board page');
}

async function createBoard(service: Service, objects: ObjectInput[]): Promise<string> {
  const created = await expectOk<{ board_uuid: string; access_links: { host: string } }>(service, 'POST', '/boards', {
    title: 'bench:client 1,000 objects',
    initial_objects: objects,
  });
  return created.access_links.host;
}

/** One table row: the page's figures over its runs. */
function row(open: string, marks: Marks[]) {
  const sorted = (pick: (m: Marks) => number | null) =>
    marks
      .map(pick)
      .filter((value): value is number => value !== null)
      .sort((a, b) => a - b);
  const ready = sorted((m) => m.ready);
  const first = sorted((m) => m.first);
  const drawn = sorted((m) => m.drawn);
  const painted = sorted((m) => m.painted);
  return {
    open,
    runs: marks.length,
    'ready p50': ms(percentile(ready, 50)),
    'first object p50': ms(percentile(first, 50)),
    'all in DOM p50': ms(percentile(drawn, 50)),
    'painted p50': ms(percentile(painted, 50)),
    'painted max': ms(painted.at(-1) ?? NaN),
    [`≤ ${BUDGET_MS} ms`]: `${painted.filter((value) => value <= BUDGET_MS).length}/${marks.length}`,
    'page via SW': `${marks.filter((m) => m.viaWorker).length}/${marks.length}`,
    paintedP50: percentile(painted, 50),
  };
}

async function builtClient(): Promise<{ script: string; scriptBytes: number; scriptGzipBytes: number }> {
  if (!values['skip-build']) return buildClient({ quiet: true });
  return JSON.parse(readFileSync(new URL('../dist/client/manifest.json', import.meta.url), 'utf8')) as { script: string; scriptBytes: number; scriptGzipBytes: number };
}

async function main(run: BenchRun): Promise<void> {
  const setupStarted = performance.now();
  const built = await builtClient();
  const service = await startService(run.abort);
  const objects = boardObjects();
  const peer = await startPeer(objects);
  const launched: { browser?: Browser } = {};
  run.cleanup = async () => {
    await launched.browser?.close().catch(() => undefined);
    await peer.close();
    await service.stop();
  };
  const hostLink = await createBoard(service, objects);
  const browser = (launched.browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS }));
  const mix = new Map<string, number>();
  for (const object of objects) mix.set(object.type, (mix.get(object.type) ?? 0) + 1);
  console.log(`board: ${objects.length} objects (${[...mix].map(([type, count]) => `${count} ${type}`).join(', ')})`);
  console.log(`${new Date().toISOString()} set up in ${Math.round(performance.now() - setupStarted)} ms (Chromium ${browser.version()}); ${RUNS} runs`);
  const client: Opened[] = [];
  const floor: Opened[] = [];
  const errors: string[] = [];
  // Interleaved, so drift in the machine's speed reaches both pages alike.
  for (let run = 0; run < RUNS; run += 1) {
    client.push(await openTwice(browser, hostLink, errors, clientReturning));
    floor.push(await openTwice(browser, peer.url, errors, async () => undefined));
    const last = client.at(-1)!;
    console.log(`run ${run + 1}: client cold ${ms(last.cold.painted)} ms, warm ${ms(last.warm.painted)} ms; peer cold ${ms(floor.at(-1)!.cold.painted)} ms`);
  }
  const rows = [row('client cold', client.map((o) => o.cold)), row('client warm', client.map((o) => o.warm)), row('peer cold', floor.map((o) => o.cold)), row('peer warm', floor.map((o) => o.warm))];
  console.table(rows.map(({ paintedP50: _p50, ...cells }) => cells));
  const [clientCold, clientWarm, peerCold, peerWarm] = rows.map((r) => r.paintedP50) as [number, number, number, number];
  console.log(`client/peer (painted p50): cold ${(clientCold / peerCold).toFixed(2)}×, warm ${(clientWarm / peerWarm).toFixed(2)}×`);
  console.log(`board script ${built.script}: ${(built.scriptGzipBytes / 1024).toFixed(1)} KB gzipped (${(built.scriptBytes / 1024).toFixed(1)} KB)`);
  if (errors.length > 0) console.log(`page errors (${errors.length}):\n  ${[...new Set(errors)].slice(0, 10).join('\n  ')}`);
  printServerLog(service.logged);
}

const budgetMs = 180_000 + RUNS * 4 * OPEN_TIMEOUT_MS;
await runBench('bench:client', budgetMs, main);
