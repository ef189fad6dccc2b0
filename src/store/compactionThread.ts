import { Worker } from 'node:worker_threads';
import * as Y from 'yjs';

export interface CompactionRequest {
  id: number;
  /** A snapshot, then log rows, in order. */
  parts: Uint8Array[];
}

export type CompactionReply = { id: number; state: Uint8Array } | { id: number; error: string };

/**
 * Merges a document's stored snapshot and log rows into one state on a worker thread.
 * Compacting from the store (several instances) applies every row since the last snapshot:
 * thousands of updates on a busy board, 100–340 ms of Yjs work that held every socket of the
 * instance up while it ran. One worker per process, started on first use and never holding the
 * process open; if it cannot start, the merge runs here.
 */
class CompactionThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (state: Uint8Array) => void; reject: (error: Error) => void }>();

  /** The state of a fresh document given `parts` (a snapshot, then log rows, in order). */
  merge(parts: Uint8Array[]): Promise<Uint8Array> {
    const worker = this.worker ?? this.start();
    if (!worker) return Promise.resolve(mergeParts(parts));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, parts } satisfies CompactionRequest);
    });
  }

  private start(): Worker | null {
    try {
      const worker = startWorker(new URL(`./compactionWorker.${FROM_SOURCES ? 'ts' : 'js'}`, import.meta.url));
      worker.unref();
      worker.on('message', (reply: CompactionReply) => this.settle(reply));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', () => this.fail(new Error('compaction worker exited')));
      this.worker = worker;
      return worker;
    } catch {
      return null;
    }
  }

  private settle(reply: CompactionReply): void {
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if ('state' in reply) waiting?.resolve(reply.state);
    else waiting?.reject(new Error(reply.error));
  }

  /** The worker is gone: what it had is retried by the next compaction, which starts a new one. */
  private fail(error: Error): void {
    this.worker = null;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** Run from the sources (tests, `npm run dev`): the worker is TypeScript too. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** A worker on `file`; from the sources, tsx is registered in it first (a worker does not inherit the process's loaders). */
function startWorker(file: URL): Worker {
  if (!FROM_SOURCES) return new Worker(file);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(boot, { eval: true });
}

/** Applies every part to a fresh document, so deleted content is garbage-collected, and encodes it. */
export function mergeParts(parts: Uint8Array[]): Uint8Array {
  const doc = new Y.Doc();
  for (const part of parts) Y.applyUpdate(doc, part);
  const state = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  return state;
}

export const compactionThread = new CompactionThread();
