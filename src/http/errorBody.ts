import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, ERROR_KINDS, errors } from '../errors.js';
import type { Logger } from '../logger.js';
import { answerWhileDiscarding, hasUnreadBody } from './unreadBody.js';

/** The API's error body, the same shape for every refusal. */
export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
  details?: Array<{ field: string; message: string }>;
  timestamp: string;
  path: string;
  [extra: string]: unknown;
}

/** Renders an AppError as the API's error body, for a request to `path` (its query left out). */
export function errorBody(error: AppError, path: string, now: Date): ErrorBody {
  const { statusCode, error: name } = ERROR_KINDS[error.kind];
  return {
    ...error.extra,
    statusCode,
    message: error.publicMessage,
    error: name,
    ...(error.details ? { details: error.details } : {}),
    timestamp: now.toISOString(),
    path: path.split('?')[0] ?? path,
  };
}

/** A path parameter the router cannot decode arrives as a URIError: a client error. */
function fromRouter(error: unknown): AppError | null {
  return error instanceof URIError ? errors.badRequest('The request path has malformed percent-encoding') : null;
}

/**
 * The only place an error becomes an HTTP response. Anything unexpected is logged with
 * its stack and answered with a generic 500: no internal message reaches a client.
 */
export function errorHandler(logger: Logger, now: () => Date): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const known = error instanceof AppError ? error : fromRouter(error);
    const appError = known ?? new AppError('internal', 'An unexpected error occurred');
    if (!known) logger.error({ err: error, request_id: res.locals.requestId }, 'unhandled error');
    const body = errorBody(appError, req.originalUrl, now());
    if (res.headersSent) return;
    // The header repeats the body's `retryAfter` (429), so the two can never disagree.
    if (typeof body.retryAfter === 'number') res.setHeader('Retry-After', String(body.retryAfter));
    // Refused before its body was read (credential, access, size): the rest is drained, not reset.
    if (hasUnreadBody(req)) return answerWhileDiscarding(req, res, body.statusCode, JSON.stringify(body));
    res.status(body.statusCode).json(body);
  };
}

/** Unknown routes answer 404 in the same body. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(errors.notFound(`Route ${req.method} ${req.path}`));
};
