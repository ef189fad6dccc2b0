import { Worker } from 'node:worker_threads';

/** A statement sent to the worker: values already in the form SQLite binds. */
export interface StatementRequest {
  id: number;
  sql: string;
  /** Bytes arrive as a Uint8Array (a Buffer loses its class in postMessage), which better-sqlite3 binds as a BLOB. */
  values: Array<string | number | Uint8Array | null>;
}

/** The worker's answer to one request. */
export type StatementReply = { id: number; rows: unknown[] } | { id: number; error: string };

interface Waiting {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

/**
 * SQLite statements run on a worker thread with a connection of its own. better-sqlite3 is
 * synchronous: writing a 9 MB value costs 20–70 ms of the calling thread, time in which no
 * other request is answered. The worker is started on first use and ends with the process.
 */
export class SqliteStatementThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  constructor(private readonly file: string) {}

  all<Row>(sql: string, values: StatementRequest['values']): Promise<Row[]> {
    const worker = this.worker ?? this.start();
    const id = (this.nextId += 1);
    return new Promise<unknown[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, sql, values } satisfies StatementRequest);
    }) as Promise<Row[]>;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = startStatementWorker(this.file);
    worker.unref();
    worker.on('message', (reply: StatementReply) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.rows);
    });
    // A worker that failed or ended fails what it was asked; the next statement starts another.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`SQLite statement worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * From sources (vitest, tsx) the worker is TypeScript: tsx is registered inside the worker
 * first, as Node 20 workers do not take `--import` loaders from `execArgv` (as in documentRepair.ts).
 */
function startStatementWorker(file: string): Worker {
  const options = { workerData: { file } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sqliteStatementWorker.js', import.meta.url), options);
  const worker = JSON.stringify(new URL('./sqliteStatementWorker.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${worker}); })`, { ...options, eval: true });
}
