import type { BoardGrant, DeclaredIdentity } from '../boards/boardAccess.js';
import { boardTokenCaller } from '../boards/caller.js';
import type { Viewer } from '../frames/zonePermissions.js';
import type { SocketContext } from './socketContext.js';

/** The viewer a socket connection is, for the zone rules. */
export function viewerOf(context: SocketContext): Viewer | null {
  return context.grant ? viewerOfGrant(context.grant, context.declared) : null;
}

/** The viewer a grant makes: it owns the zones of the user its credential vouches for, never of a declared id. */
export function viewerOfGrant(grant: BoardGrant, declared: DeclaredIdentity): Viewer {
  return boardTokenCaller(grant, declared.userId);
}
