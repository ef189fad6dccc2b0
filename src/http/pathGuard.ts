import type { RequestHandler } from 'express';
import { errors } from '../errors.js';
import { textProblem } from '../util/jsonBounds.js';

/** Longest path the API reads; its ids are UUIDs and names of at most 255 characters. */
const MAX_PATH_LENGTH = 4_096;

/**
 * Refuses, before any route runs, a path whose percent-encoding is malformed (`/boards/%ff`)
 * or that decodes to text no database stores (NUL, lone surrogates): 400 in the error body,
 * instead of a URIError or a driver error deep in a handler.
 */
export const rejectUnreadablePath: RequestHandler = (req, _res, next) => {
  if (req.path.length > MAX_PATH_LENGTH) return next(errors.badRequest('The request path is too long'));
  let decoded: string;
  try {
    decoded = decodeURIComponent(req.path);
  } catch {
    return next(errors.badRequest('The request path has malformed percent-encoding'));
  }
  const problem = textProblem(decoded, MAX_PATH_LENGTH);
  if (problem) return next(errors.badRequest(`The request path ${problem}`));
  next();
};
