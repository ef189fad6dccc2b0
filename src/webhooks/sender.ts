import http from 'node:http';
import https from 'node:https';
import { publicOnlyLookup, webhookUrlProblem } from './egress.js';

/** A receiver must answer within 10 seconds; no answer by then is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Connections to receivers are kept alive and reused (a new connection still runs the egress lookup). */
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 32 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 32 }),
};
/** Bytes of a receiver's answer kept for the delivery log; the rest is not read. */
const RESPONSE_EXCERPT_BYTES = 4_096;

/** How one attempt ended. */
export type AttemptOutcome =
  | { kind: 'success'; statusCode: number; durationMs: number }
  | { kind: 'http-error'; statusCode: number; durationMs: number; excerpt: string }
  | { kind: 'network-error'; error: string; durationMs: number };

export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Allow loopback/private targets and plain http (development and tests). */
  allowPrivate: boolean;
}

/**
 * POSTs one delivery. A 2xx within the timeout is a success; any other status (redirects
 * are never followed), a timeout or a connection error is a failure. The whole attempt,
 * from connecting to the last byte read, is bounded by DELIVERY_TIMEOUT_MS.
 */
export function attemptDelivery(request: AttemptRequest): Promise<AttemptOutcome> {
  // The URL is checked again here: an IP-literal host is connected to without any lookup, so
  // the lookup's check never sees it (a URL registered while private targets were allowed).
  const refused = request.allowPrivate ? null : webhookUrlProblem(request.url, false);
  if (refused) return Promise.resolve({ kind: 'network-error', error: `webhook target refused: url ${refused}`, durationMs: 0 });
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let current: http.ClientRequest;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      current.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`));
    }, DELIVERY_TIMEOUT_MS);
    const send = () => {
      const req = post(request, (status, excerpt) => {
        if (status >= 200 && status < 300) finish({ kind: 'success', statusCode: status, durationMs: elapsed() });
        else finish({ kind: 'http-error', statusCode: status, durationMs: elapsed(), excerpt });
      });
      current = req;
      let responded = false;
      req.once('response', () => {
        responded = true;
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed as we reused it (Node's own servers close
        // idle ones after 5 s + 1 s, our second retry delay): the request never reached the
        // receiver's handler, and is sent again on a fresh connection (the `reusedSocket` case
        // of Node's http docs). Any other error ends the attempt.
        if (!settled && !responded && req.reusedSocket && STALE_CONNECTION_ERRORS.has(error.code ?? '')) send();
        else finish({ kind: 'network-error', error: error.message, durationMs: elapsed() });
      });
    };
    send();
  });
}

/** How writing to a connection the other end has just closed fails. */
const STALE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

/** One POST on a pooled connection; `answered` gets the status and the kept start of the body. */
function post(request: AttemptRequest, answered: (status: number, excerpt: string) => void): http.ClientRequest {
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const client = secure ? https : http;
  const req = client.request(
    url,
    {
      method: 'POST',
      headers: { ...request.headers, 'Content-Length': Buffer.byteLength(request.body) },
      agent: secure ? agents.https : agents.http,
      ...(request.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    },
    (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_EXCERPT_BYTES) chunks.push(chunk.subarray(0, RESPONSE_EXCERPT_BYTES - kept));
        kept += chunk.length;
        if (kept >= RESPONSE_EXCERPT_BYTES) res.destroy();
      });
      const done = () => answered(status, Buffer.concat(chunks).toString('utf8'));
      res.on('end', done);
      res.on('close', done);
    },
  );
  req.end(request.body);
  return req;
}
