import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { redactUrl, type Logger } from '../logger.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Gives each request an id (the caller's `X-Request-Id` if sane) and writes one JSON
 * log line when it finishes, with the board id when the path names one.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.header('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const boardId = /\/boards\/([0-9a-f-]{36})/i.exec(req.originalUrl)?.[1];
      logger.info(
        {
          request_id: requestId,
          method: req.method,
          url: redactUrl(req.originalUrl),
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          ...(boardId ? { board_id: boardId } : {}),
          ...(res.locals.organization ? { organization_id: (res.locals.organization as { id: string }).id } : {}),
        },
        'request',
      );
    });
    next();
  };
}
