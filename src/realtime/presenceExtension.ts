import type { Extension, connectedPayload, onDisconnectPayload } from '@hocuspocus/server';
import { participantIdentity, type BoardAccess, type BoardGrant, type ParticipantIdentity } from '../boards/boardAccess.js';
import type { ParticipantHistory } from '../boards/participantHistory.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { ParticipantUser } from '../events/types.js';
import type { Logger } from '../logger.js';
import { CloseEvents, closeEventFor } from './closeEvents.js';
import { isBoardDocument } from './documentContext.js';
import type { Presence, PresenceRegistry } from './presenceRegistry.js';
import type { SocketContext } from './socketContext.js';
import type { SocketMessenger } from './socketMessenger.js';

/**
 * Participants and sessions: a socket that opens a board's main document joins the board
 * as a participant, within the board's `max_participants`. Raises session and participant events.
 *
 * A participant is keyed by what vouches for it, so a declared id can never join (or end)
 * another's entry: a personal link's user is one participant however many sockets it has, so
 * is a host by the id it declares; a shared-link guest is one participant per socket.
 */
export class PresenceExtension implements Extension {
  extensionName = 'presence';

  constructor(
    private readonly deps: {
      access: BoardAccess;
      history: ParticipantHistory;
      registry: PresenceRegistry;
      messenger: SocketMessenger;
      bus: EventBus;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  async connected({ documentName, context, connection }: connectedPayload): Promise<void> {
    const socket = context as SocketContext;
    if (!isBoardDocument(documentName) || !socket.grant) return;
    const { grant } = socket;
    const identity = participantIdentity(grant, socket.declared);
    const key = participantKey(grant, identity, socket.socketId);
    try {
      // Checked and recorded with no await in between, so two sockets cannot both take the last seat.
      this.deps.access.checkCapacity(grant, key, this.deps.registry.seats(grant.board.id));
    } catch (error) {
      socket.closeSocket(error instanceof AppError ? closeEventFor(error) : CloseEvents.Forbidden);
      return;
    }
    const now = this.deps.clock.now();
    const userId = identity.userId ?? `anonymous-${socket.socketId}`;
    const change = this.deps.registry.join(grant.board.id, { key, userId, identity, role: grant.role, socketId: socket.socketId }, now);
    (connection.context as SocketContext).participantKey = key;
    // Only a verified user can be assigned a zone as a participant (`assigned_participant_id`).
    if (grant.user) {
      await this.deps.history
        .record(grant.board.id, grant.user.userId, grant.role, now)
        .catch((error) => this.deps.logger.error({ err: error, board_id: grant.board.id }, 'participant history not recorded'));
    }
    if (change.kind !== 'joined') return;
    const board = grant.board;
    const scope = { board_id: board.id, organization_id: board.organizationId };
    if (change.sessionStarted) {
      await this.deps.bus.publish('session.started', { ...scope, session_id: change.sessionStarted.id, started_at: now.toISOString() });
    }
    const count = this.deps.registry.seats(board.id).size;
    // Sockets show the participant list, visible agents included; events count people.
    const shown = this.deps.registry.participantCount(board.id);
    this.deps.messenger.broadcast(board.id, { type: 'participant:joined', participant: change.presence.view, participant_count: shown }, { kind: 'everyone', except: socket.socketId });
    await this.deps.bus.publish('participant.joined', {
      ...scope,
      board: { title: board.title, external_id: board.externalId, external_data: board.externalData, created_at: board.createdAt.toISOString() },
      user: userOf(change.presence),
      participant_count: count,
      joined_at: now.toISOString(),
    });
  }

  async onDisconnect({ documentName, context }: onDisconnectPayload): Promise<void> {
    const socket = context as SocketContext;
    if (!isBoardDocument(documentName) || !socket.grant || !socket.participantKey) return;
    const board = socket.grant.board;
    const change = this.deps.registry.leave(board.id, socket.participantKey, socket.socketId);
    if (change.kind !== 'left') return;
    const now = this.deps.clock.now();
    const scope = { board_id: board.id, organization_id: board.organizationId };
    const count = this.deps.registry.seats(board.id).size;
    const shown = this.deps.registry.participantCount(board.id);
    this.deps.messenger.broadcast(board.id, { type: 'participant:left', user_id: change.presence.view.user_id, participant_count: shown });
    await this.deps.bus.publish('participant.left', {
      ...scope,
      user: userOf(change.presence),
      participant_count: count,
      joined_at: change.presence.view.joined_at,
      left_at: now.toISOString(),
    });
    if (change.sessionEnded) {
      const started = change.sessionEnded.startedAt;
      await this.deps.bus.publish('session.ended', {
        ...scope,
        session_id: change.sessionEnded.id,
        started_at: started.toISOString(),
        ended_at: now.toISOString(),
        session_duration_seconds: Math.round((now.getTime() - started.getTime()) / 1000),
      });
    }
  }
}

/** The presence key of a participant (see the class comment); namespaced, so kinds never collide. */
function participantKey(grant: BoardGrant, identity: ParticipantIdentity, socketId: string): string {
  if (grant.user) return `user:${grant.user.userId}`;
  if (grant.role === 'host' && identity.userId) return `host:${identity.userId}`;
  return `socket:${socketId}`;
}

function userOf(presence: Presence): ParticipantUser {
  return {
    user_id: presence.view.user_id,
    user_name: presence.identity.userName,
    user_role: presence.role,
    user_type: presence.identity.userType,
    external_user_id: presence.identity.externalUserId,
    external_source: presence.identity.externalSource,
  };
}
