import type { SchemaObject } from 'ajv';
import type { RequestHandler } from 'express';
import { requireHost, type Caller } from '../boards/caller.js';
import { callerOf } from './boardCaller.js';
import { readJson, validateBody, validateQuery } from './validate.js';

/** A request's path parameters (`boardId`, `frameId`…). */
export type PathParams = Record<string, string | undefined>;

/**
 * What a caller may reach, decided from its credential and the request's path alone: the board
 * (frame, agent, component…) looked up in its domain and the caller's role checked there,
 * refusing with 403, 404 or 410.
 */
export type Access = (caller: Caller, params: PathParams) => Promise<unknown>;

/** For routes whose credential is all the access there is: the organization's own collections (its boards, its subscriptions). */
export const CREDENTIAL_ONLY = 'credential only';

/** The steps of a route, run in the order `route` gives them. */
export interface RouteSteps {
  /** Who calls (401); absent where the router authenticates every route it holds. */
  credential?: RequestHandler;
  /** Required, so that every route that reads a body says what its caller may reach. */
  access: Access | typeof CREDENTIAL_ONLY;
  query?: SchemaObject;
  /** The JSON body's schema; `'any JSON'` reads one the handler checks itself (MCP's JSON-RPC). */
  body?: SchemaObject | 'any JSON';
}

/**
 * A route's middlewares in the one order every route follows: its credential (401), its access
 * (403, 404, 410), then its query and body read and validated (400, 413), then the handler. A
 * caller refused a resource gets the same answer whatever it sent, and its body is not even read.
 */
export function route(steps: RouteSteps, handler: RequestHandler): RequestHandler[] {
  const chain: RequestHandler[] = [];
  if (steps.credential) chain.push(steps.credential);
  if (steps.access !== CREDENTIAL_ONLY) chain.push(accessCheck(steps.access));
  if (steps.query) chain.push(validateQuery(steps.query));
  if (steps.body === 'any JSON') chain.push(readJson);
  else if (steps.body) chain.push(validateBody(steps.body));
  chain.push(handler);
  return chain;
}

function accessCheck(access: Access): RequestHandler {
  return async (req, res, next) => {
    await access(callerOf(res), req.params as PathParams);
    next();
  };
}

/** The credential of board-scoped routes and the two access checks most of them need. */
export interface BoardScope {
  /** The API key, or a board access token of the board (http/boardCaller.ts). */
  credential: RequestHandler;
  /** The board of `:boardId`, as far as the caller may reach it (404, 403 another organization's or another board's token, 410 expired). */
  board: Access;
  /** The same board, for its host only (403 for a guest); `what` words the refusal as the domain's `requireHost` does. */
  host(what: string): Access;
}

export function boardScope(credential: RequestHandler, boards: { get(caller: Caller, id: string): Promise<unknown> }): BoardScope {
  const board: Access = (caller, params) => boards.get(caller, params.boardId ?? '');
  return {
    credential,
    board,
    host: (what) => async (caller, params) => {
      await board(caller, params);
      requireHost(caller, what);
    },
  };
}
