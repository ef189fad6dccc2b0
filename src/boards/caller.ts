import { errors } from '../errors.js';
import type { BoardRole } from './accessTokens.js';
import { owningUserId, type BoardGrant } from './boardAccess.js';

/**
 * Who is calling a board operation, whatever credential they used: the organization's API
 * key acts as host of every board of the organization; a board access token acts as host or
 * guest of that one board.
 */
export interface Caller {
  organizationId: string;
  role: BoardRole;
  /**
   * The user the credential vouches for, whose zones it owns: a personal link's user, or the
   * id a host token declares. Null for the API key and the shared guest link.
   */
  userId: string | null;
  /** Set for a board token: the only board it may touch. */
  boardId: string | null;
  /** The frames this caller may write in (an agent's `scope.frames`); absent: wherever its role allows. */
  confinedTo?: readonly string[];
}

/** The caller an organization's API key makes. */
export function organizationCaller(organizationId: string): Caller {
  return { organizationId, role: 'host', userId: null, boardId: null };
}

/** The caller a board token makes; a declared user id counts only next to a host token. */
export function boardTokenCaller(grant: BoardGrant, declaredUserId: string | null): Caller {
  return { organizationId: grant.board.organizationId, role: grant.role, userId: owningUserId(grant, declaredUserId), boardId: grant.board.id };
}

/** Refuses a guest (403): for operations only a host may do. */
export function requireHost(caller: Caller, what: string): void {
  if (caller.role !== 'host') throw errors.forbidden(`Only the host may ${what}`);
}
