import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/**
 * Probes `GET /health` from a worker thread, so neither the test's own work nor the
 * service's event loop can hide a slow answer: a probe sent while the service is blocked is
 * answered when it unblocks, and its latency is the stall. Each probe is paired with one to a
 * bare HTTP server inside the worker: when both are slow, the machine was busy, not the service.
 */

/** One probe: when it was sent (epoch ms), how long the service took, and the bare server. */
export interface HealthSample {
  at: number;
  ms: number;
  ok: boolean;
  controlMs: number;
}

/** The longest `/health` may wait while hostile or large requests are served. */
export const HEALTH_BUDGET_MS = 100;

/** Now, in epoch milliseconds comparable with HealthSample.at across threads. */
export const now = () => performance.timeOrigin + performance.now();

const PROBE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const samples = [];
let inFlight = Promise.resolve();
let stopped = false;
const control = http.createServer((req, res) => res.end('ok'));
function get(url) {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (ok) => resolve({ ms: performance.now() - started, ok });
    const req = http.get(url, { agent: false }, (res) => { res.resume(); res.on('end', () => done(res.statusCode === 200)); });
    req.on('error', () => done(false));
  });
}
async function probeOnce() {
  const at = performance.timeOrigin + performance.now();
  const [health, bare] = await Promise.all([get(workerData.url + '/health'), get('http://127.0.0.1:' + control.address().port + '/')]);
  samples.push({ at, ms: health.ms, ok: health.ok, controlMs: bare.ms });
}
function loop() {
  if (stopped) return control.close();
  inFlight = probeOnce().then(() => { setTimeout(loop, workerData.intervalMs); });
}
parentPort.on('message', ({ id, stop }) => {
  if (stop) stopped = true;
  inFlight.then(() => parentPort.postMessage({ id, samples: samples.splice(0) }));
});
control.listen(0, '127.0.0.1', loop);
`;

export class HealthProbe {
  /** Every sample collected so far. */
  readonly samples: HealthSample[] = [];
  private readonly waiting = new Map<number, () => void>();
  private nextId = 0;

  private constructor(private readonly worker: Worker) {
    worker.on('message', ({ id, samples }: { id: number; samples: HealthSample[] }) => {
      this.samples.push(...samples);
      this.waiting.get(id)?.();
      this.waiting.delete(id);
    });
  }

  /** Probes `${serviceUrl}/health` every `intervalMs` (after the previous answer). */
  static start(serviceUrl: string, intervalMs: number): HealthProbe {
    return new HealthProbe(new Worker(PROBE_WORKER, { eval: true, workerData: { url: serviceUrl, intervalMs } }));
  }

  /** Brings in every sample so far, once the probe in flight (if any) has its answer. */
  collect(stop = false): Promise<void> {
    const id = (this.nextId += 1);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ id, stop });
    });
  }

  /** A failed probe answered after `from`, else the slowest one, once the probe in flight has its answer. */
  async worstSince(from: number): Promise<HealthSample | undefined> {
    await this.collect();
    const recent = this.samples.filter((sample) => sample.at + sample.ms >= from);
    return recent.find((sample) => !sample.ok) ?? recent.reduce<HealthSample | undefined>((worst, sample) => (!worst || sample.ms > worst.ms ? sample : worst), undefined);
  }

  /** What went wrong with `/health` since `from` (a failed probe, or one slower than `budgetMs`), or null. */
  async stallSince(from: number, budgetMs = HEALTH_BUDGET_MS): Promise<string | null> {
    const worst = await this.worstSince(from);
    if (worst && !worst.ok) return 'GET /health failed while this call was served';
    if (!worst || worst.ms <= budgetMs) return null;
    return `GET /health took ${worst.ms.toFixed(0)} ms (budget ${budgetMs} ms) while this call was served; a bare HTTP server probed alongside took ${worst.controlMs.toFixed(0)} ms`;
  }

  async stop(): Promise<void> {
    await this.collect(true);
    await this.worker.terminate();
  }
}

/** Median, p99 and max of latencies, in ms. */
export function spread(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
  return `median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
}
