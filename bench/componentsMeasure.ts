import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ms, percentile } from './agentsMeasure.js';

/**
 * bench:components' load and its peer: a closed loop of clients on one URL (each sends its next
 * request when its last is answered), and a plain node:http server answering the same bytes
 * with the same headers from memory, as the floor the registry's file route is compared with.
 */

/** One URL under load, and what a right answer is. */
export interface LoadTarget {
  url: string;
  headers?: Record<string, string>;
  status: number;
  /** Body length of a right answer (0 for a 304). */
  bytes: number;
}

export interface LoadResult {
  /** Latencies of the right answers, ascending, in ms. */
  latencies: number[];
  elapsedS: number;
  errors: Map<string, number>;
}

/**
 * `concurrency` clients on `target` for `durationMs`; connections are kept alive (undici's default
 * agent). No abort signal: a timer per request would be load of the bench's own, and one shared
 * signal collects a listener per request on Node 20; a request that hangs meets runBench's watchdog.
 */
export async function closedLoop(target: LoadTarget, concurrency: number, durationMs: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  const fail = (reason: string) => errors.set(reason, (errors.get(reason) ?? 0) + 1);
  const deadline = performance.now() + durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        const response = await fetch(target.url, { headers: target.headers });
        const body = await response.arrayBuffer();
        if (response.status === target.status && body.byteLength === target.bytes) latencies.push(performance.now() - sent);
        else fail(`${response.status} with ${body.byteLength} bytes`);
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        fail(`${(error as Error).name}${cause?.code ? ` (${cause.code})` : ''}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, client));
  return { latencies: latencies.sort((a, b) => a - b), elapsedS: (performance.now() - started) / 1000, errors };
}

/** A table row's load columns. */
export function loadColumns(result: LoadResult) {
  const { latencies } = result;
  const errors = [...result.errors.values()].reduce((sum, count) => sum + count, 0);
  return {
    'req/s': Math.round(latencies.length / result.elapsedS),
    'p50 ms': ms(percentile(latencies, 50)),
    'p95 ms': ms(percentile(latencies, 95)),
    'p99 ms': ms(percentile(latencies, 99)),
    'max ms': ms(latencies.at(-1) ?? NaN),
    errors,
  };
}

/** A response the peer gives for a path: the registry's own headers and bytes. */
export interface PeerFile {
  path: string;
  headers: Record<string, string>;
  /** Base64. */
  body: string;
}

/** Headers the peer's node:http sets itself (or that describe one connection, not the file). */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The headers of a registry response worth repeating on the peer. */
export function fileHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!OWN_HEADERS.has(name)) kept[name] = value;
  });
  return kept;
}

/** The peer process's body: reads its files as JSON on stdin, then serves them on 127.0.0.1. */
export async function servePeer(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const files = new Map((JSON.parse(input) as PeerFile[]).map((file) => [file.path, { headers: file.headers, body: Buffer.from(file.body, 'base64') }]));
  const server = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    if (req.headers['if-none-match'] === file.headers.etag) return void res.writeHead(304, file.headers).end();
    res.writeHead(200, { ...file.headers, 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  console.log(`peer listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

export interface Peer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the peer as its own process (`script --peer`), as the service is: neither shares the load's event loop. */
export async function startPeer(script: string, files: PeerFile[], onUnexpectedExit: (reason: string) => void): Promise<Peer> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--peer'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let stopping = false;
  child.stdin.end(JSON.stringify(files));
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => {
      reject(new Error(`peer exited with ${code}: ${output}`));
      if (!stopping) onUnexpectedExit(`the peer exited during the run (code ${code})`);
    });
  });
  return {
    url,
    child,
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
