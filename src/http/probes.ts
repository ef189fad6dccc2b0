import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { errors } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorBody } from './errorBody.js';
import { answerWhileDiscarding, hasUnreadBody } from './unreadBody.js';

/** What the probes look at. */
export interface ProbeChecks {
  /** What the instance needs to serve, by name (`database`, and `redis` with several instances): each rejects when unreachable. */
  dependencies: Record<string, () => Promise<void>>;
  /** True from the moment the instance begins to shut down (SIGTERM). */
  draining(): boolean;
  /** The service's clock, for error bodies' timestamps. */
  now(): Date;
}

/**
 * `GET /health` and `GET /ready`, answered before Express: an orchestrator probes every few
 * seconds, and Express's request setup and router walk were most of a probe's CPU. No
 * request id and no log line either; a failing `/ready` is logged. While the instance
 * drains, `/ready` answers 503 so the proxy sends no more, and any other request gets 503 and
 * its connection closed, so the client retries on another instance; `/health` still answers.
 */
export function answerProbesFirst(checks: ProbeChecks, logger: Logger, next: RequestListener): RequestListener {
  return (req, res) => {
    const path = pathOf(req);
    const probe = req.method === 'GET' || req.method === 'HEAD' ? path : null;
    if (checks.draining() && probe !== '/health') return refuseWhileDraining(req, res, path, probe === '/ready', checks.now());
    switch (probe) {
      case '/health':
        return sendJson(res, 200, { status: 'ok' });
      case '/ready':
        return void readiness(checks.dependencies, logger).then(({ ready, body }) => sendJson(res, ready ? 200 : 503, body));
      default:
        return next(req, res);
    }
  };
}

/** How long `/ready` waits for a dependency before calling it unreachable. */
const DEPENDENCY_TIMEOUT_MS = 2_000;

/** Checks every dependency at once: ready when all answer, each named `ok` or `unreachable` in the body. */
async function readiness(dependencies: ProbeChecks['dependencies'], logger: Logger): Promise<{ ready: boolean; body: Record<string, string> }> {
  const names = Object.keys(dependencies);
  const outcomes = await Promise.allSettled(names.map((name) => withTimeout(dependencies[name]!())));
  const body: Record<string, string> = { status: 'ok' };
  outcomes.forEach((outcome, index) => {
    body[names[index]!] = outcome.status === 'fulfilled' ? 'ok' : 'unreachable';
    if (outcome.status === 'rejected') logger.error({ err: outcome.reason, dependency: names[index] }, 'readiness check failed');
  });
  const ready = outcomes.every((outcome) => outcome.status === 'fulfilled');
  if (!ready) body.status = 'unavailable';
  return { ready, body };
}

function withTimeout(check: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${DEPENDENCY_TIMEOUT_MS} ms`)), DEPENDENCY_TIMEOUT_MS)));
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

function refuseWhileDraining(req: IncomingMessage, res: ServerResponse, path: string, isProbe: boolean, now: Date): void {
  res.setHeader('Connection', 'close');
  if (isProbe) return sendJson(res, 503, { status: 'draining' });
  const body = errorBody(errors.unavailable('This instance is shutting down; retry the request'), path, now);
  // A body still arriving is thrown away before the connection closes, so the client gets the 503, not a reset.
  if (hasUnreadBody(req)) return answerWhileDiscarding(req, res, 503, JSON.stringify(body));
  sendJson(res, 503, body);
}

/** The request's path, its query left out. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Answers with a JSON body, before Express (no body for HEAD). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(bytes) });
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}
