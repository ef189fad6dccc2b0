import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError, errors } from '../errors.js';
import { errorBody } from '../http/errorBody.js';
import { pathOf, sendJson } from '../http/probes.js';
import type { Logger } from '../logger.js';

export const METRICS_PATH = '/metrics';

export interface MetricsEndpointOptions {
  /** The Prometheus text of every metric, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>;
  /** `METRICS_TOKEN`: when set, a scrape must carry `Authorization: Bearer <token>`. */
  token?: string;
  now(): Date;
  logger: Logger;
}

/**
 * `GET /metrics`, answered before Express like the probes (http/probes.ts): no request id, no
 * log line, no API rate limit; served while the instance drains too, so its shutdown can be
 * watched. Everything else goes to `next`.
 */
export function answerMetricsFirst(options: MetricsEndpointOptions, next: RequestListener): RequestListener {
  const expected = options.token === undefined ? null : digest(options.token);
  return (req, res) => {
    if (!isScrape(req)) return next(req, res);
    if (expected && !carries(req, expected)) return refuse(res, options.now());
    options.scrape().then(
      ({ contentType, text }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'metrics could not be collected');
        sendJson(res, 500, errorBody(new AppError('internal', 'Metrics could not be collected'), METRICS_PATH, options.now()));
      },
    );
  };
}

function isScrape(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && pathOf(req) === METRICS_PATH;
}

/** Compared as digests, in constant time: the answer tells nothing of how much of a guess was right. */
function carries(req: IncomingMessage, expected: Buffer): boolean {
  const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function refuse(res: ServerResponse, now: Date): void {
  res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
  sendJson(res, 401, errorBody(errors.unauthorized('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>'), METRICS_PATH, now));
}
