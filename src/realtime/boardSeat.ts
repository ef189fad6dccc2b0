import type { BoardRole } from '../boards/accessTokens.js';
import type { ParticipantIdentity } from '../boards/boardAccess.js';
import type { ParticipantLocation, ParticipantView } from '../boards/ports.js';
import type { ParticipantUser } from '../events/types.js';
import type { Presence } from './presenceRegistry.js';

/** A seat as the ledger keeps it: what every instance shows and announces of its participant. */
export interface BoardSeat {
  organizationId: string;
  view: ParticipantView;
  user: ParticipantUser;
  location?: ParticipantLocation;
}

/** The seat a participant connected here shows every instance, with its latest location. */
export function seatOf(organizationId: string, presence: Presence): BoardSeat {
  const seat: BoardSeat = { organizationId, view: presence.view, user: userOf(presence.view, presence.identity, presence.role) };
  return presence.location ? { ...seat, location: presence.location } : seat;
}

/** A participant as events name it (`user` of participant.joined and participant.left). */
export function userOf(view: ParticipantView, identity: ParticipantIdentity, role: BoardRole): ParticipantUser {
  return {
    user_id: view.user_id,
    user_name: identity.userName,
    user_role: role,
    user_type: identity.userType,
    external_user_id: identity.externalUserId,
    external_source: identity.externalSource,
  };
}
