import { errors } from '../errors.js';
import type { BoardRole } from './accessTokens.js';

/**
 * Who is calling a board operation, whatever credential they used: the organization's API
 * key acts as host of every board of the organization; a board access token acts as host or
 * guest of that one board.
 */
export interface Caller {
  organizationId: string;
  role: BoardRole;
  /** The acting user (declared with a board token), or null for the API key. */
  userId: string | null;
  /** Set for a board token: the only board it may touch. */
  boardId: string | null;
}

/** The caller an organization's API key makes. */
export function organizationCaller(organizationId: string): Caller {
  return { organizationId, role: 'host', userId: null, boardId: null };
}

/** Refuses a guest (403): for operations only a host may do. */
export function requireHost(caller: Caller, what: string): void {
  if (caller.role !== 'host') throw errors.forbidden(`Only the host may ${what}`);
}
