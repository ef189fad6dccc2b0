import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';

/**
 * `GET /health` and `GET /ready`, answered before Express: an orchestrator probes every few
 * seconds, and Express's request setup and router walk were most of a probe's CPU. No
 * request id and no log line either; a failing `/ready` is logged.
 */
export function answerProbesFirst(checkDatabase: () => Promise<void>, logger: Logger, next: RequestListener): RequestListener {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next(req, res);
    switch (pathOf(req)) {
      case '/health':
        return sendJson(res, 200, { status: 'ok' });
      case '/ready':
        return void checkDatabase().then(
          () => sendJson(res, 200, { status: 'ok', database: 'ok' }),
          (error: unknown) => {
            logger.error({ err: error }, 'readiness check failed');
            sendJson(res, 503, { status: 'unavailable', database: 'unreachable' });
          },
        );
      default:
        return next(req, res);
    }
  };
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(bytes) });
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}
