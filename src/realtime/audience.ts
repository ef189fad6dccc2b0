import { assertNever } from '../util/assertNever.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import type { SocketContext } from './socketContext.js';

/**
 * Who of a board's sockets a broadcast reaches, as data rather than a closure: every instance
 * decides it for its own sockets (multi-instance mode sends it along with the message).
 * `except` is the sending socket, which already knows what it sent.
 */
export type Audience =
  | { kind: 'everyone'; except?: string }
  | { kind: 'hosts'; except?: string }
  /** Admitted participants only (sockets that took a seat); `guests` = all but the hosts. */
  | { kind: 'participants'; who: 'all' | 'hosts' | 'guests' }
  /** Admitted participants shown as, or linked to, one of these user ids. */
  | { kind: 'users'; userIds: string[] };

export const EVERYONE: Audience = { kind: 'everyone' };

/** Whether a socket of `boardId` is in the audience. */
export function admits(audience: Audience, context: SocketContext, boardId: string, registry: PresenceRegistry): boolean {
  switch (audience.kind) {
    case 'everyone':
      return context.socketId !== audience.except;
    case 'hosts':
      return context.grant?.role === 'host' && context.socketId !== audience.except;
    case 'participants':
      if (!context.participantKey) return false;
      if (audience.who === 'all') return true;
      return (context.grant?.role === 'host') === (audience.who === 'hosts');
    case 'users': {
      if (!context.participantKey) return false;
      const shownAs = registry.get(boardId, context.participantKey)?.view.user_id;
      const linkedUser = context.grant?.user?.userId;
      return (shownAs !== undefined && audience.userIds.includes(shownAs)) || (linkedUser !== undefined && audience.userIds.includes(linkedUser));
    }
    default:
      return assertNever(audience);
  }
}
