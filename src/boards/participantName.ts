import type { ParticipantIdentity } from './boardAccess.js';
import type { BoardRole } from './boardRole.js';

/**
 * The name a participant is listed under, never an internal id: the name given with its link
 * or declared, else a personal link's (or a declaring host's) user id, else `Host`, or `Guest`
 * and the end of its participant id so two guests can be told apart.
 */
export function participantName(identity: ParticipantIdentity, role: BoardRole, shownId: string): string {
  if (identity.userName) return identity.userName;
  if (identity.userType !== 'anonymous' && identity.userId) return identity.userId;
  return role === 'host' ? 'Host' : `Guest ${shownId.slice(-4)}`;
}
