import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { eventually } from './testServer.js';

/** One request a receiver got: raw bytes exactly as sent, headers, and when it arrived. */
export interface ReceivedRequest {
  method: string;
  /** Path and query of the request URL. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The raw body as UTF-8 text. */
  body: string;
  /** The body parsed as JSON, or null when it is not JSON. */
  json: any;
  /** Wall-clock milliseconds when the request line and headers arrived. */
  arrivedAt: number;
}

/** How a receiver answers one request. */
export interface ReceiverReply {
  /** @default 200 */
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Destroy the connection instead of answering (after reading the body). */
  close?: boolean;
}

/** Decides the reply to a request; `index` counts the requests this receiver got, from 0. */
export type Responder = (request: ReceivedRequest, index: number) => ReceiverReply | undefined;

/** A real HTTP server on 127.0.0.1 that records every request and answers as programmed. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook`; any other path on the port reaches the same receiver. */
  url: string;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  requests: ReceivedRequest[];
  /** Queues replies for the next requests, in order; afterwards the responder or default applies. */
  reply(...replies: ReceiverReply[]): void;
  /** Answers every request not covered by a queued reply with `fn` (undefined = the default). */
  respondWith(fn: Responder | null): void;
  /** The reply when nothing else applies. @default { status: 200 } */
  setDefault(reply: ReceiverReply): void;
  /** Requests whose path starts with `prefix`. */
  on(prefix: string): ReceivedRequest[];
  /** Waits until `count` requests matching `filter` arrived and returns them. */
  waitFor(count: number, filter?: (request: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const queued: ReceiverReply[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let responder: Responder | null = null;
  let fallback: ReceiverReply = { status: 200 };

  const server = createServer((req, res) => {
    const arrivedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const body = rawBody.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const request: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body, json, arrivedAt };
      const index = requests.length;
      requests.push(request);
      const reply = queued.shift() ?? responder?.(request, index) ?? fallback;
      const answer = () => {
        if (reply.close) return req.socket.destroy();
        res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'text/plain' }).end(reply.body ?? '');
      };
      if (!reply.delayMs) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: `${origin}/hook`,
    origin,
    requests,
    reply: (...replies) => void queued.push(...replies),
    respondWith: (fn) => void (responder = fn),
    setDefault: (reply) => void (fallback = reply),
    on: (prefix) => requests.filter((request) => request.path.startsWith(prefix)),
    async waitFor(count, filter = () => true, timeoutMs = 10_000) {
      await eventually(() => requests.filter(filter).length >= count, timeoutMs);
      return requests.filter(filter);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (connections are refused). */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

/** The signature a receiver expects, computed independently of the service (node:crypto). */
export function expectedSignature(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'ascii')).update(rawBody).digest('hex');
}
