import { randomBytes } from 'node:crypto';
import type { ParticipantLink as LinkRow } from '../../generated/sqlite/index.js';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { hashToken, type AccessTokens } from './accessTokens.js';
import type { ParticipantHistory } from './participantHistory.js';
import { isSharedGuestLink, linkedUser, type BoardGrant, type LinkedUser } from './boardAccess.js';

/**
 * Session participants kept per board. Every device that joins through the shared guest link
 * without its credential mints one (a provider that keeps nothing mints one per socket), so
 * the oldest are forgotten past this number: never one that owns a zone.
 */
export const MAX_SESSION_PARTICIPANTS = 1_000;

/** A minted session participant: its id, the grant it acts under, and its resume credential. */
export interface SessionParticipant {
  user: LinkedUser;
  grant: BoardGrant;
  /** Held only by the device it was minted for: presenting it is being that participant. */
  token: string;
  /** `{APP_URL}/boards/<board_uuid>?token=<token>`. */
  link: string;
  expiresAt: Date;
}

export interface SessionParticipantsDependencies {
  db: Db;
  clock: Clock;
  tokens: AccessTokens;
  /** A minted participant has joined the board: a zone may be assigned to it at once. */
  history: ParticipantHistory;
  /** Base of links (`APP_URL`), known once the server listens. */
  appUrl: () => string;
}

/**
 * Session-based participants (docs/users-and-tokens.md). The shared guest link identifies nobody, so a zone
 * cannot be given to whoever holds it; when a device joins through it, the service mints a
 * participant id (random, never taken from the client) and a resume credential for that
 * device alone. The credential is a link of kind `session`: a board token derived like a
 * personal link's, so it owns the zones assigned to its participant id over REST and sockets,
 * dies with the board, and a leaked participant id without it owns nothing.
 */
export class SessionParticipants {
  constructor(private readonly deps: SessionParticipantsDependencies) {}

  /** `POST /boards/<id>/session-participants`: the caller's grant must be the shared guest link of that board. */
  async start(grant: BoardGrant | null, boardId: string, userName: string | null): Promise<SessionParticipant> {
    if (!grant) throw errors.forbidden('Only the shared guest link starts a session participant');
    if (grant.board.id !== boardId) throw errors.forbidden('The access token is for another board');
    return this.mint(grant, userName);
  }

  /** Mints a participant for a holder of the board's shared guest link (403 for any other grant). */
  async mint(grant: BoardGrant, userName: string | null): Promise<SessionParticipant> {
    if (!isSharedGuestLink(grant)) throw errors.forbidden('Only the shared guest link starts a session participant');
    const { board } = grant;
    await this.makeRoom(board.id);
    const now = this.deps.clock.now();
    const userId = `guest-${randomBytes(12).toString('base64url')}`;
    const tokenNonce = randomBytes(16).toString('base64url');
    const token = this.deps.tokens.issueParticipant(board.id, board.tokenNonce, tokenNonce, userId);
    const row = await this.deps.db.participantLink.create({
      data: { boardId: board.id, userId, kind: 'session', userName: userName?.slice(0, 255) ?? null, tokenNonce, tokenHash: hashToken(token), createdAt: now, updatedAt: now },
    });
    await this.deps.history.record(board.id, userId, 'guest', now);
    const user = linkedUser(row);
    return { user, grant: { ...grant, user }, token, link: `${this.deps.appUrl()}/boards/${board.id}?token=${token}`, expiresAt: board.expiresAt };
  }

  /** Forgets the oldest session participants that own no zone, so one more fits. */
  private async makeRoom(boardId: string): Promise<void> {
    const where = { boardId, kind: 'session' };
    const count = await this.deps.db.participantLink.count({ where });
    if (count < MAX_SESSION_PARTICIPANTS) return;
    const owners = await this.deps.db.frame.findMany({ where: { boardId, assignedParticipantId: { not: null } }, select: { assignedParticipantId: true } });
    const owning = new Set(owners.map((frame) => frame.assignedParticipantId));
    const oldest: Pick<LinkRow, 'userId'>[] = await this.deps.db.participantLink.findMany({
      where,
      orderBy: { createdAt: 'asc' },
      take: count - MAX_SESSION_PARTICIPANTS + 1 + owning.size,
      select: { userId: true },
    });
    const forgotten = oldest.filter((row) => !owning.has(row.userId)).slice(0, count - MAX_SESSION_PARTICIPANTS + 1);
    if (forgotten.length === 0) throw errors.conflict(`This board has ${MAX_SESSION_PARTICIPANTS} session participants that own zones`);
    const userIds = forgotten.map((row) => row.userId);
    await this.deps.db.participantLink.deleteMany({ where: { ...where, userId: { in: userIds } } });
    await this.deps.history.forget(boardId, userIds);
  }

  /**
   * Forgets a participant minted for a socket that was then refused (a full board): its device
   * never received the credential, so nothing could ever resume it.
   */
  async discard(session: SessionParticipant): Promise<void> {
    const boardId = session.grant.board.id;
    const { userId } = session.user;
    await this.deps.db.participantLink.deleteMany({ where: { boardId, userId, kind: 'session' } });
    await this.deps.history.forget(boardId, [userId]);
  }
}

/** The API record of a session participant (REST answer and `session:participant` message). */
export function presentSessionParticipant(session: SessionParticipant) {
  return {
    participant_id: session.user.userId,
    user_name: session.user.userName,
    token: session.token,
    link: session.link,
    expires_at: session.expiresAt.toISOString(),
  };
}
