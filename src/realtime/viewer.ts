import type { Viewer } from '../frames/zonePermissions.js';
import type { SocketContext } from './socketContext.js';

/** The viewer a socket connection is, for the zone rules. */
export function viewerOf(context: SocketContext): Viewer | null {
  return context.grant ? { role: context.grant.role, userId: context.identity.userId } : null;
}
