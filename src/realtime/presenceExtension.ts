import { randomUUID } from 'node:crypto';
import type { Extension, connectedPayload, onDisconnectPayload } from '@hocuspocus/server';
import pRetry from 'p-retry';
import { participantIdentity, type BoardAccess, type BoardGrant, type ParticipantIdentity } from '../boards/boardAccess.js';
import { participantColor } from '../boards/participantColor.js';
import { participantName } from '../boards/participantName.js';
import { presentSessionParticipant, type SessionParticipants } from '../boards/sessionParticipants.js';
import type { ParticipantHistory } from '../boards/participantHistory.js';
import type { ParticipantView } from '../boards/ports.js';
import type { SeatLedger, SeatRelease } from '../store/seatLedger.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import { CloseEvents, closeEventFor } from './closeEvents.js';
import { isBoardDocument } from './documentContext.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import { userOf, type BoardSeat } from './boardSeat.js';
import { assertNever } from '../util/assertNever.js';
import type { SeatClaimOutcome, SocketContext } from './socketContext.js';
import type { SocketMessenger } from './socketMessenger.js';
import type { ServerMessage } from './messages.js';

/** How a release the ledger did not answer is asked again: after 0.25, 0.5, 1 and 2 s. */
const RELEASE_RETRIES = { retries: 4, minTimeout: 250, factor: 2 };

/**
 * Participants and sessions: a socket that opens a board's main document joins the board
 * as a participant, within the board's `max_participants`. Raises session and participant events.
 * Seats, counts and sessions are the deployment's (the seat ledger), so each event is raised
 * once however many instances a board's sockets are spread over; a killed instance's seats
 * are freed, and announced, by a survivor.
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
      sessions: Pick<SessionParticipants, 'discard'>;
      registry: PresenceRegistry;
      seats: SeatLedger<BoardSeat>;
      messenger: SocketMessenger;
      bus: EventBus;
      clock: Clock;
      logger: Logger;
    },
  ) {
    deps.seats.onOrphansFreed(({ boardId, freed }) => {
      for (const release of freed) void this.announceLeft(boardId, release, deps.clock.now()).catch((error: unknown) => deps.logger.error({ err: error, board_id: boardId }, 'orphaned seat not announced'));
    });
  }

  async connected({ documentName, context, connection }: connectedPayload): Promise<void> {
    const socket = context as SocketContext;
    if (!isBoardDocument(documentName) || !socket.grant) return;
    const { grant } = socket;
    // Only a host may be a service connection: a guest is always seen by the host.
    if (socket.presence === 'none' && grant.role === 'host') return;
    const board = grant.board;
    const identity = participantIdentity(grant, socket.declared);
    const key = participantKey(grant, identity, socket.socketId);
    const now = this.deps.clock.now();
    const userId = identity.userId ?? `anonymous-${socket.socketId}`;
    const view: ParticipantView = {
      user_id: userId,
      user_name: participantName(identity, grant.role, userId),
      user_type: identity.userType,
      role: grant.role,
      joined_at: now.toISOString(),
      color: participantColor(userId),
    };
    const seat: BoardSeat = { organizationId: board.organizationId, view, user: userOf(view, identity, grant.role) };
    const shared = connection.context as SocketContext;
    // Each connection holds the seat under its own id: one socket may open the board document
    // more than once (Hocuspocus sessions), and each of those lets go of it on its own.
    shared.seatHolderId = `${socket.socketId}:${randomUUID()}`;
    // onDisconnect waits for the claim, so a socket gone before its seat was taken still frees it.
    const claiming = this.claim(grant, key, seat, shared.seatHolderId);
    shared.seatClaim = claiming;
    const claim = await claiming;
    if (claim.kind === 'refused' || claim.kind === 'unanswered') {
      // Closed first: nothing the refused socket sends may be applied while its participant is forgotten.
      socket.closeSocket(claim.close);
      return this.discardMintedSession(socket);
    }
    // Another socket of the participant already holds the seat: shown as it was when taken.
    const shownView = claim.kind === 'held' ? claim.seat.view : view;
    this.deps.registry.join(board.id, { key, view: shownView, identity, role: grant.role }, { socketId: socket.socketId, holderId: shared.seatHolderId }, claim.session, now);
    shared.participantKey = key;
    await this.handOverSession(socket, grant, connection);
    // A participant a link vouches for (personal or session) may be assigned a zone (`assigned_participant_id`).
    if (grant.user) {
      await this.deps.history
        .record(board.id, grant.user.userId, grant.role, now)
        .catch((error) => this.deps.logger.error({ err: error, board_id: board.id }, 'participant history not recorded'));
    }
    if (claim.kind !== 'taken') return;
    const scope = { board_id: board.id, organization_id: board.organizationId };
    if (claim.sessionStarted) {
      await this.deps.bus.publish('session.started', { ...scope, session_id: claim.session.id, started_at: claim.session.startedAt });
    }
    // Sockets show the participant list, visible agents included; events count people.
    const shown = claim.seated + this.deps.registry.agentCount(board.id);
    this.deps.messenger.broadcast(board.id, { type: 'participant:joined', participant: view, participant_count: shown }, { kind: 'everyone', except: socket.socketId });
    await this.deps.bus.publish('participant.joined', {
      ...scope,
      board: { title: board.title, external_id: board.externalId, created_at: board.createdAt.toISOString() },
      user: seat.user,
      participant_count: claim.seated,
      joined_at: now.toISOString(),
    });
  }

  async onDisconnect({ documentName, context }: onDisconnectPayload): Promise<void> {
    const socket = context as SocketContext;
    if (!isBoardDocument(documentName) || !socket.grant || !socket.seatClaim || !socket.seatHolderId) return;
    const claim = await socket.seatClaim;
    const board = socket.grant.board;
    const holderId = socket.seatHolderId;
    switch (claim.kind) {
      case 'refused':
        return;
      case 'unanswered': {
        const release = await this.release(board.id, claim.key, holderId);
        if (release?.kind !== 'freed') return;
        // The claim was applied after all, and this was the seat's last holder. What the claim
        // itself would have started was never announced; a seat or session another made was.
        await this.announceLeft(board.id, release, this.deps.clock.now(), {
          participant: !sameView(release.seat, claim.asked.seat),
          session: release.sessionEnded?.id !== claim.asked.session.id,
        });
        return;
      }
      case 'taken':
      case 'held': {
        const key = socket.participantKey!;
        this.deps.registry.leave(board.id, key, { socketId: socket.socketId, holderId });
        const release = await this.release(board.id, key, holderId);
        if (release?.kind === 'freed') await this.announceLeft(board.id, release, this.deps.clock.now());
        return;
      }
      default:
        assertNever(claim);
    }
  }

  /** Gives a socket of the shared guest link the session participant minted for it (authExtension.ts), and its credential. */
  private async handOverSession(socket: SocketContext, grant: BoardGrant, connection: connectedPayload['connection']): Promise<void> {
    const session = await socket.admission.session;
    if (!session || session.user.userId !== grant.user?.userId) return;
    const message: ServerMessage = { type: 'session:participant', ...presentSessionParticipant(session) };
    connection.sendStateless(JSON.stringify(message));
  }

  /** A participant minted for this socket (authExtension.ts) whose seat was refused is never handed over: forgotten. */
  private async discardMintedSession(socket: SocketContext): Promise<void> {
    const session = await socket.admission.session;
    if (!session) return;
    await this.deps.sessions.discard(session).catch((error: unknown) => this.deps.logger.warn({ err: error, board_id: session.grant.board.id }, 'refused session participant not forgotten'));
  }

  /** The socket's seat, or why it may not have one (a full board, or the ledger unreachable). */
  private async claim(grant: BoardGrant, key: string, seat: BoardSeat, holderId: string): Promise<SeatClaimOutcome> {
    const session = { id: randomUUID(), startedAt: seat.view.joined_at };
    try {
      const claim = await this.deps.seats.claim(grant.board.id, key, seat, { limit: this.deps.access.seatLimit(grant), session, holderId });
      if (claim.kind !== 'full') return claim;
      return { kind: 'refused', close: closeEventFor(this.deps.access.seatRefusal(grant, claim.seated)) };
    } catch (error) {
      if (error instanceof AppError) return { kind: 'refused', close: closeEventFor(error) };
      this.deps.logger.error({ err: error, board_id: grant.board.id }, 'seat not claimed');
      return { kind: 'unanswered', close: CloseEvents.Unavailable, key, asked: { seat, session } };
    }
  }

  /**
   * Lets go of the connection's seat, asking again while the ledger does not answer (a release
   * is counted once per holder, so asking again is safe). Null when it never answered: the seat
   * is then freed once this instance stops (its heartbeat ends).
   */
  private async release(boardId: string, key: string, holderId: string): Promise<SeatRelease<BoardSeat> | null> {
    try {
      return await pRetry(() => this.deps.seats.release(boardId, key, holderId), RELEASE_RETRIES);
    } catch (error) {
      this.deps.logger.error({ err: error, board_id: boardId }, 'seat not released');
      return null;
    }
  }

  /**
   * Tells the board's sockets and the event bus that a participant left, and the session ended
   * if it was the last; `announced` says which of the two had been announced as begun.
   */
  private async announceLeft(
    boardId: string,
    release: Extract<SeatRelease<BoardSeat>, { kind: 'freed' }>,
    now: Date,
    announced = { participant: true, session: true },
  ): Promise<void> {
    const { seat } = release;
    const scope = { board_id: boardId, organization_id: seat.organizationId };
    if (announced.participant) {
      const shown = release.seated + this.deps.registry.agentCount(boardId);
      this.deps.messenger.broadcast(boardId, { type: 'participant:left', user_id: seat.view.user_id, participant_count: shown });
      await this.deps.bus.publish('participant.left', {
        ...scope,
        user: seat.user,
        participant_count: release.seated,
        joined_at: seat.view.joined_at,
        left_at: now.toISOString(),
      });
    }
    const ended = release.sessionEnded;
    if (!ended || !announced.session) return;
    await this.deps.bus.publish('session.ended', {
      ...scope,
      session_id: ended.id,
      started_at: ended.startedAt,
      ended_at: now.toISOString(),
      session_duration_seconds: Math.round((now.getTime() - new Date(ended.startedAt).getTime()) / 1000),
    });
  }
}

/** Whether a seat the ledger answered is the one a claim asked for (the ledger keeps seats as given). */
function sameView(seat: BoardSeat, asked: BoardSeat): boolean {
  return seat.view.user_id === asked.view.user_id && seat.view.joined_at === asked.view.joined_at;
}

/** The presence key of a participant (see the class comment); namespaced, so kinds never collide. */
function participantKey(grant: BoardGrant, identity: ParticipantIdentity, socketId: string): string {
  if (grant.user) return `user:${grant.user.userId}`;
  if (grant.role === 'host' && identity.userId) return `host:${identity.userId}`;
  return `socket:${socketId}`;
}

