import { Worker } from 'node:worker_threads';

/** Bodies up to this size are parsed on the event loop (a few milliseconds); larger ones on the parse thread. */
export const INLINE_PARSE_BYTES = 1024 * 1024;

/** What JSON.parse made of a body's bytes: its value, or null when the text is not JSON. */
export type Parsed = { value: unknown } | null;

type Reply = { id: number; value: unknown } | { id: number; malformed: true };

/** The thread's code: decodes UTF-8 and parses, nothing else (no imports, so it needs no loader). */
const PARSER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, bytes }) => {
  let value;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return parentPort.postMessage({ id, malformed: true });
  }
  parentPort.postMessage({ id, value });
});
`;

/**
 * Parses large JSON bodies on a worker thread. Decoding and parsing ten megabytes take tens of
 * milliseconds, and several times that on a busy machine, in one piece the event loop cannot
 * interleave with anything; receiving the parsed value back costs it a copy of the strings.
 * The bytes are moved to the thread, not copied. One thread per process, started on first use
 * and never holding the process open; if it cannot start, or dies, bodies are parsed here.
 */
class ParseThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (parsed: Parsed) => void; reject: (error: Error) => void }>();

  parse(bytes: Buffer): Promise<Parsed> {
    const worker = bytes.length > INLINE_PARSE_BYTES ? (this.worker ?? this.start()) : null;
    if (!worker) return Promise.resolve(parseHere(bytes));
    const id = this.nextId++;
    // Buffer.concat gave these bytes an ArrayBuffer of their own (no pool above 4 KiB): it can be moved.
    const own = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, bytes: own }, [own as ArrayBuffer]);
    });
  }

  private start(): Worker | null {
    try {
      const worker = new Worker(PARSER, { eval: true });
      worker.unref();
      worker.on('message', (reply: Reply) => this.settle(reply));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', () => this.fail(new Error('JSON parse thread exited')));
      this.worker = worker;
      return worker;
    } catch {
      return null;
    }
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    waiting?.resolve('value' in reply ? { value: reply.value } : null);
  }

  /** The thread is gone: the bodies it had fail (500), the next large one starts a new thread. */
  private fail(error: Error): void {
    this.worker = null;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

function parseHere(bytes: Buffer): Parsed {
  try {
    return { value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return null;
  }
}

/** The process's parse thread. */
export const parseThread = new ParseThread();
