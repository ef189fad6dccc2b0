import { Worker } from 'node:worker_threads';

/** Stack of the repair worker: deep enough for values and type chains tens of thousands of levels deep. */
const REPAIR_STACK_MB = 256;

/** A stored document with everything beyond the bounds removed. */
export interface RepairedState {
  state: Uint8Array;
  /** How many items (values or types) were removed. */
  removed: number;
}

/**
 * Repairs a stored document that the service's own stack cannot decode (a value nested
 * thousands of levels deep, stored before values were bounded): a worker thread with a
 * REPAIR_STACK_MB stack applies `parts`, removes every item beyond the bounds
 * (documentBounds.ts) and encodes the result, which then decodes anywhere.
 */
export function repairInWorker(parts: Uint8Array[]): Promise<RepairedState> {
  return new Promise((resolve, reject) => {
    const worker = startRepairWorker(parts);
    worker.once('message', (repaired: RepairedState) => resolve(repaired));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`document repair worker exited with code ${code}`)));
  });
}

/**
 * From sources (vitest, tsx) the worker is TypeScript: tsx is registered inside the worker
 * first, as Node 20 workers do not take `--import` loaders from `execArgv`. From `dist/` it
 * is the compiled JavaScript.
 */
function startRepairWorker(parts: Uint8Array[]): Worker {
  const options = { workerData: { parts }, resourceLimits: { stackSizeMb: REPAIR_STACK_MB } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./documentRepairWorker.js', import.meta.url), options);
  const worker = JSON.stringify(new URL('./documentRepairWorker.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${worker}); })`, { ...options, eval: true });
}
