/**
 * npm run bench:components [-- --publishes 100 --seconds 10 --concurrency 200]
 *
 * Starts the service as its own process (fresh SQLite file, enterprise plan, rate limits off)
 * and measures the component registry:
 * - publishing: `publishes` distinct packages (manifest.json, index.html, a ~20 KB app.js,
 *   style.css; versions 1.0.<i>, most of one name and the rest of three others) sent one at a
 *   time, then as many more four at a time, as the stated multipart form (`bundle` + `apiKey`);
 *   publishes per second, latency p50/p99 and the server's CPU time per publish;
 * - serving: after a warm-up that fills the file cache, `concurrency` keep-alive clients in a
 *   closed loop for `seconds` on one exact-version file (index.html, then app.js), on app.js
 *   `@latest` (the version resolved per request), and on app.js with a matching If-None-Match
 *   (304); requests per second, latency p50/p95/p99/max, errors and the server's CPU.
 * Each serving load is repeated on a peer, a plain node:http process answering the same bytes
 * with the same headers from memory, right after the registry's, so the machine's drift hits
 * both alike; the p99 ratio registry/peer is printed per load.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { cpuSeconds, ms, percentile } from './agentsMeasure.js';
import { REQUEST_TIMEOUT_MS, startService, type Service } from './agentsService.js';
import { printServerLog, runBench, type BenchRun } from './benchRun.js';
import { closedLoop, fileHeaders, loadColumns, servePeer, startPeer, type LoadTarget, type PeerFile } from './componentsMeasure.js';

const { values } = parseArgs({
  options: {
    publishes: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '200' },
    // The peer process's own mode (bench/componentsMeasure.ts startPeer), not an option for people.
    peer: { type: 'boolean', default: false },
  },
});
const PUBLISHES = Number(values.publishes);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);

/** Publishes before the measured ones (a cold process: JIT, first queries), not counted. */
const WARMUP_PUBLISHES = 5;
const PUBLISH_CONCURRENCY = 4;
/** Load before each measured one: the cache filled, connections open, the JIT warm. */
const WARMUP_SECONDS = 2;
const APP_JS_BYTES = 20_000;
const MAIN_NAME = 'bench-widget';
const OTHER_NAMES = ['bench-chart', 'bench-timer', 'bench-list'];

interface BuiltPackage {
  name: string;
  version: string;
  zip: Buffer;
  files: Record<string, string>;
}

/** A named load on one file: the target relative to a server's root. */
interface Scenario {
  name: string;
  path: string;
  headers?: Record<string, string>;
  status: number;
  bytes: number;
}

/** Script-like text of about APP_JS_BYTES, random enough to compress as real code does, different per package. */
function appScript(name: string, version: string): string {
  const lines = [`// ${name}@${version}`, 'const state = { v0: 0 };'];
  let length = 0;
  for (let k = 1; length < APP_JS_BYTES; k += 1) {
    const line = `export function step${k}(s) { return { ...s, v${k}: s.v${k - 1} * ${k % 97} + ${JSON.stringify(randomBytes(6).toString('hex'))}.length }; }`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function packageFiles(name: string, version: string): Record<string, string> {
  return {
    'manifest.json': JSON.stringify({ name, version, title: `Bench ${name}`, description: 'A component of bench:components', entry: 'index.html', author: 'bench' }),
    'index.html': `<!doctype html><html><head><meta charset="utf-8"><title>${name}</title><link rel="stylesheet" href="style.css"></head><body><div id="app" data-version="${version}"></div><script src="app.js"></script></body></html>\n`,
    'app.js': appScript(name, version),
    // The same in every version, as an unchanged file is: its blob is stored once.
    'style.css': '#app { font: 14px system-ui, sans-serif; display: grid; place-items: center; height: 100%; }\n',
  };
}

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [path, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), path, { mtime: new Date('2024-01-01T00:00:00Z') });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
  zip.end();
  return done;
}

/** Package `index` of the run: a version of its own; every fifth is of one of the other names. */
async function buildPackage(index: number): Promise<BuiltPackage> {
  const name = index % 5 === 4 ? OTHER_NAMES[Math.floor(index / 5) % OTHER_NAMES.length]! : MAIN_NAME;
  const version = `1.0.${index}`;
  const files = packageFiles(name, version);
  return { name, version, zip: await zipOf(files), files };
}

/** Runs `work` over the items, at most `concurrency` at a time. */
async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** `POST /api/v1/components/publish` in the stated form: the ZIP as `bundle`, the key as `apiKey`. */
async function publish(service: Service, pkg: BuiltPackage): Promise<string | null> {
  const form = new FormData();
  form.append('bundle', new Blob([new Uint8Array(pkg.zip)]), `${pkg.name}-${pkg.version}.zip`);
  form.append('apiKey', service.apiKey);
  const response = await fetch(`${service.url}/api/v1/components/publish`, { method: 'POST', body: form, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  return response.status === 200 ? null : `${response.status} ${text.slice(0, 120)}`;
}

async function publishPhase(service: Service, phase: string, packages: BuiltPackage[], concurrency: number) {
  const pid = service.child.pid!;
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await inParallel(packages, concurrency, async (pkg) => {
    const sent = performance.now();
    const failure = await publish(service, pkg).catch((error: Error) => error.name);
    if (failure === null) latencies.push(performance.now() - sent);
    else failures.set(failure, (failures.get(failure) ?? 0) + 1);
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  for (const [reason, count] of failures) console.log(`${phase}: ${count} publishes failed: ${reason}`);
  return {
    phase,
    publishes: latencies.length + (failures.size > 0 ? ` (+${packages.length - latencies.length} failed)` : ''),
    'publishes/s': +(latencies.length / elapsed).toFixed(1),
    'p50 ms': ms(percentile(latencies, 50)),
    'p99 ms': ms(percentile(latencies, 99)),
    'max ms': ms(latencies.at(-1) ?? NaN),
    'server CPU ms/publish': +((cpu * 1000) / packages.length).toFixed(1),
    'server CPU %': Math.round((cpu / elapsed) * 100),
  };
}

/** Asks for each scenario's file once (filling the cache), checks the bytes, and keeps what the peer must answer. */
async function prepareServing(service: Service, exact: BuiltPackage, latest: BuiltPackage) {
  const base = '/components/files';
  const expected = [
    { name: 'exact index.html', path: `${base}/${exact.name}@${exact.version}/index.html`, content: exact.files['index.html']! },
    { name: 'exact app.js', path: `${base}/${exact.name}@${exact.version}/app.js`, content: exact.files['app.js']! },
    { name: '@latest app.js', path: `${base}/${latest.name}@latest/app.js`, content: latest.files['app.js']! },
  ];
  const scenarios: Scenario[] = [];
  const peerFiles: PeerFile[] = [];
  for (const { name, path, content } of expected) {
    const response = await fetch(`${service.url}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 || !body.equals(Buffer.from(content))) throw new Error(`${path} answered ${response.status} with ${body.length} bytes, not the package's ${content.length}`);
    scenarios.push({ name, path, status: 200, bytes: body.length });
    peerFiles.push({ path, headers: fileHeaders(response.headers), body: body.toString('base64') });
  }
  const appJs = peerFiles[1]!;
  scenarios.push({ name: '304 app.js', path: appJs.path, headers: { 'if-none-match': appJs.headers.etag! }, status: 304, bytes: 0 });
  return { scenarios, peerFiles };
}

/** One load on one server: a warm-up, then the measured run with the server's and the bench's CPU. */
async function loadPhase(target: string, pid: number, root: string, scenario: Scenario) {
  const load: LoadTarget = { url: `${root}${scenario.path}`, headers: scenario.headers, status: scenario.status, bytes: scenario.bytes };
  await closedLoop(load, CONCURRENCY, WARMUP_SECONDS * 1000);
  const cpuBefore = cpuSeconds(pid);
  const benchBefore = process.cpuUsage();
  const result = await closedLoop(load, CONCURRENCY, SECONDS * 1000);
  const cpu = cpuSeconds(pid) - cpuBefore;
  const bench = process.cpuUsage(benchBefore);
  for (const [reason, count] of result.errors) console.log(`${target} ${scenario.name}: ${count} requests failed: ${reason}`);
  return {
    target,
    load: scenario.name,
    ...loadColumns(result),
    'server CPU %': Math.round((cpu / result.elapsedS) * 100),
    'bench CPU %': Math.round(((bench.user + bench.system) / 1e6 / result.elapsedS) * 100),
  };
}

async function countVersions(service: Service): Promise<number> {
  const response = await fetch(`${service.url}/api/v1/components`, { headers: { 'x-api-key': service.apiKey }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const body = (await response.json()) as { components: Array<{ versions: string[] }> };
  return body.components.reduce((sum, component) => sum + component.versions.length, 0);
}

async function runPublishing(service: Service) {
  const started = performance.now();
  const packages = await Promise.all(Array.from({ length: 2 * PUBLISHES }, (_, index) => buildPackage(index)));
  const warmups = await Promise.all(Array.from({ length: WARMUP_PUBLISHES }, async (_, index) => {
    const files = packageFiles('bench-warmup', `0.0.${index}`);
    return { name: 'bench-warmup', version: `0.0.${index}`, zip: await zipOf(files), files };
  }));
  const zipBytes = packages.reduce((sum, pkg) => sum + pkg.zip.length, 0) / packages.length;
  console.log(`built ${packages.length} packages (ZIP ${(zipBytes / 1024).toFixed(1)} KiB on average) in ${Math.round(performance.now() - started)} ms`);
  for (const pkg of warmups) {
    const failure = await publish(service, pkg);
    if (failure) throw new Error(`warm-up publish of ${pkg.name}@${pkg.version} failed: ${failure}`);
  }
  const rows = [
    await publishPhase(service, 'sequential', packages.slice(0, PUBLISHES), 1),
    await publishPhase(service, `concurrency ${PUBLISH_CONCURRENCY}`, packages.slice(PUBLISHES), PUBLISH_CONCURRENCY),
  ];
  console.table(rows);
  console.log(`the registry lists ${await countVersions(service)} versions (${packages.length} measured + ${WARMUP_PUBLISHES} warm-up published)`);
  return packages;
}

async function main(run: BenchRun): Promise<void> {
  const service = await startService(run.abort);
  let stopPeer = async (): Promise<void> => undefined;
  run.cleanup = async () => {
    await stopPeer();
    await service.stop();
  };
  const packages = await runPublishing(service);
  const main = packages.filter((pkg) => pkg.name === MAIN_NAME);
  const { scenarios, peerFiles } = await prepareServing(service, main[0]!, main.at(-1)!);
  const peer = await startPeer(fileURLToPath(import.meta.url), peerFiles, run.abort);
  stopPeer = () => peer.stop();
  console.log(`serving: ${CONCURRENCY} clients, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per load; registry then peer`);
  const rows = [];
  for (const scenario of scenarios) {
    rows.push(await loadPhase('registry', service.child.pid!, service.url, scenario));
    rows.push(await loadPhase('peer', peer.child.pid!, peer.url, scenario));
  }
  console.table(rows);
  for (let index = 0; index < rows.length; index += 2) {
    const [registry, plain] = [rows[index]!, rows[index + 1]!];
    console.log(`${registry.load}: p99 registry/peer ${(Number(registry['p99 ms']) / Number(plain['p99 ms'])).toFixed(2)}, req/s registry/peer ${(registry['req/s'] / plain['req/s']).toFixed(2)}`);
  }
  printServerLog(service.logged);
}

if (values.peer) {
  await servePeer();
} else {
  const budgetMs = (60 + (2 * PUBLISHES + WARMUP_PUBLISHES) * 1 + 8 * (WARMUP_SECONDS + SECONDS + 5)) * 1000 + 120_000;
  await runBench('bench:components', budgetMs, main);
}
