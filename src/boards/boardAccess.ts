import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Plan } from '../organizations/plans.js';
import type { Db } from '../store/database.js';
import { hashToken, type AccessTokens, type BoardRole } from './accessTokens.js';
import { boardFromRow, type Board } from './board.js';

/** Who holds a board access token: the board and the role the token grants. */
export interface BoardGrant {
  board: Board;
  role: BoardRole;
  /** The board's organization's plan (its `participants` quota applies at join). */
  plan: Plan;
}

/** What board access needs from quotas. */
export interface ParticipantQuota {
  /** Throws unless one more participant fits a board that has `current` (402 `participants`). */
  assertRoom(plan: Plan, type: 'participants', current: number): void;
}

/** How a participant presents itself when it connects (declared by the client, not verified). */
export interface ParticipantIdentity {
  userId: string | null;
  userName: string | null;
  userType: 'verified-student' | 'authenticated' | 'anonymous';
  externalUserId: string | null;
  externalSource: string | null;
}

/**
 * Board access by token: the rules both edges use (socket connections now, guest REST
 * calls later). A token is valid while its board exists and has not expired; archived
 * boards keep working.
 */
export class BoardAccess {
  constructor(
    private readonly deps: { db: Db; clock: Clock; tokens: AccessTokens; quotas: ParticipantQuota },
  ) {}

  /** The board and role of a token; 401 for an unknown token, 410 once the board expired. */
  async authenticate(token: string): Promise<BoardGrant> {
    if (!token || token.length > 256) throw errors.unauthorized('Invalid board access token');
    const hash = hashToken(token);
    const row = await this.deps.db.board.findFirst({
      where: { OR: [{ hostTokenHash: hash }, { guestTokenHash: hash }] },
      include: { organization: { select: { plan: true } } },
    });
    if (!row) throw errors.unauthorized('Invalid board access token');
    const board = boardFromRow(row);
    const role = this.deps.tokens.roleOf(board.id, board.tokenNonce, token);
    if (!role) throw errors.unauthorized('Invalid board access token');
    // The sweeper moves it to `expired` and raises the event; a token dies the moment its time is up.
    if (board.lifecycle.status === 'expired' || board.expiresAt <= this.deps.clock.now()) throw errors.gone('Board has expired');
    return { board, role, plan: row.organization.plan as Plan };
  }

  /** Anonymous guests only where the board allows them (checked before anything is served). */
  checkIdentity(grant: BoardGrant, identity: ParticipantIdentity): void {
    if (grant.role === 'guest' && identity.userType === 'anonymous' && !grant.board.config.allow_anonymous) {
      throw errors.forbidden('This board does not allow anonymous participants');
    }
  }

  /**
   * Nobody beyond `config.max_participants` or the plan's participants per board joins;
   * hosts are always let in.
   */
  checkCapacity(grant: BoardGrant, identity: ParticipantIdentity, connectedUserIds: ReadonlySet<string>): void {
    const { config } = grant.board;
    const alreadyIn = identity.userId !== null && connectedUserIds.has(identity.userId);
    if (grant.role === 'host' || alreadyIn) return;
    if (connectedUserIds.size >= config.max_participants) {
      throw errors.conflict(`The board is full (${config.max_participants} participants)`);
    }
    this.deps.quotas.assertRoom(grant.plan, 'participants', connectedUserIds.size);
  }

  /** Gives boards created before token lookup hashes existed their hashes. */
  async backfillLookupHashes(): Promise<number> {
    const rows = await this.deps.db.board.findMany({ where: { hostTokenHash: null }, select: { id: true, tokenNonce: true } });
    for (const row of rows) {
      await this.deps.db.board.update({ where: { id: row.id }, data: this.deps.tokens.lookupHashes(row.id, row.tokenNonce) });
    }
    return rows.length;
  }
}
