import type { Clock } from '../clock.js';
import { AppError, errors } from '../errors.js';
import type { Plan } from '../organizations/plans.js';
import type { Db } from '../store/database.js';
import { TtlCache } from '../util/ttlCache.js';
import { hashToken, type AccessTokens, type BoardRole } from './accessTokens.js';
import { boardFromRow, LARGE_BOARD_COLUMNS, type Board } from './board.js';

/** How a person is known: verified (a personal link's user), declared, or not at all. */
export type PersonType = 'verified-student' | 'authenticated' | 'anonymous';

/** How a participant is known: a person (see PersonType), or a visible AI agent of the board. */
export type UserType = PersonType | 'agent';

/**
 * The user a link is bound to: the only identity that owns that user's zones. A `personal`
 * link is issued by a host for a user it names; a `session` link is minted by the service for
 * a device that joined through the shared guest link (see sessionParticipants.ts).
 */
export interface LinkedUser {
  kind: LinkKind;
  userId: string;
  userName: string | null;
  /** `verified-student` with an external id, `authenticated` otherwise; a session is `anonymous`. */
  userType: PersonType;
  externalUserId: string | null;
  externalSource: string | null;
}

export type LinkKind = 'personal' | 'session';

/** Who holds a board token: the board, the role the token grants, and the user a personal link names. */
export interface BoardGrant {
  board: Board;
  role: BoardRole;
  /** The board's organization's plan (its `participants` quota applies at join). */
  plan: Plan;
  /** Set for a personal link's token; null for the board's shared host and guest links. */
  user: LinkedUser | null;
}

/** What board access needs from quotas. */
export interface ParticipantQuota {
  /** Throws unless one more participant fits a board that has `current` (402 `participants`). */
  assertRoom(plan: Plan, type: 'participants', current: number): void;
  /** Participants per board on `plan` (null: no limit); throws (403) if the plan has none. */
  participantLimit(plan: Plan): number | null;
}

/** What a client says about itself next to its token (socket URL, `X-User-Id`): never verified. */
export interface DeclaredIdentity {
  userId: string | null;
  userName: string | null;
  externalUserId: string | null;
  externalSource: string | null;
}

/** How a participant is shown in presence and participant events. */
export interface ParticipantIdentity {
  /** A personal link's user id; for anyone else the id it declared (a display name), if any. */
  userId: string | null;
  userName: string | null;
  userType: PersonType;
  externalUserId: string | null;
  externalSource: string | null;
}

/**
 * How long a shared link's grant is trusted from memory by sockets. Reading it cost two queries
 * per socket, the most of a join; a change made on this instance (the board's settings,
 * lifecycle or deletion, its organization's plan) drops it at once.
 */
export const SOCKET_GRANT_TTL_MS = 5_000;

/** Longest declared id or name kept; longer ones are cut. */
const MAX_DECLARED_LENGTH = 255;

/**
 * Board access by token: the rules every edge uses (REST, sockets, and later agents). A token
 * is one of the board's shared links (host, guest) or a personal link; it is valid while its
 * board exists and has not expired, and a personal link also while it is not revoked.
 * Archived boards keep working.
 */
export class BoardAccess {
  /** Shared links' grants by token hash, for sockets only (see `authenticateSocket`). */
  private readonly socketGrants: TtlCache<string, BoardGrant>;

  constructor(
    private readonly deps: { db: Db; clock: Clock; tokens: AccessTokens; quotas: ParticipantQuota },
  ) {
    this.socketGrants = new TtlCache({ ttlMs: SOCKET_GRANT_TTL_MS, maxEntries: 10_000, now: () => deps.clock.now().getTime() });
  }

  /** The grant of a token; 401 for an unknown or revoked token, 410 once the board expired. */
  async authenticate(token: string): Promise<BoardGrant> {
    if (!token || token.length > 256) throw errors.unauthorized('Invalid board access token');
    const grant = (await this.sharedLinkGrant(token)) ?? (await this.personalLinkGrant(token));
    return this.checked(grant);
  }

  /**
   * `authenticate` for a socket joining: a shared link's grant may come from memory (see
   * SOCKET_GRANT_TTL_MS), so its board's counters (`stateVersion`, `objectsCount`) may be old;
   * sockets never show them. A personal link is read every time: it may be revoked.
   */
  async authenticateSocket(token: string): Promise<BoardGrant> {
    if (!token || token.length > 256) throw errors.unauthorized('Invalid board access token');
    const hash = hashToken(token);
    let grant = this.socketGrants.get(hash);
    if (!grant) {
      const ticket = this.socketGrants.ticket();
      grant = await this.sharedLinkGrant(token, hash);
      if (grant) this.socketGrants.set(hash, grant, ticket);
    }
    return this.checked(grant ?? (await this.personalLinkGrant(token)));
  }

  /** The board's settings, lifecycle or existence changed on this instance. */
  boardChanged(boardId: string): void {
    this.socketGrants.forgetWhere((grant) => grant.board.id === boardId);
  }

  /** The organization's plan changed on this instance. */
  planChanged(organizationId: string): void {
    this.socketGrants.forgetWhere((grant) => grant.board.organizationId === organizationId);
  }

  private checked(grant: BoardGrant | null): BoardGrant {
    if (!grant) throw errors.unauthorized('Invalid board access token');
    const { board } = grant;
    // The sweeper moves it to `expired` and raises the event; a token dies the moment its time is up.
    if (board.lifecycle.status === 'expired' || board.expiresAt <= this.deps.clock.now()) throw errors.gone('Board has expired');
    return grant;
  }

  /**
   * Anonymous guests only where the board allows them. A guest of the shared link (or of a
   * session minted for it) is anonymous whatever it declares: with `allow_anonymous: false` only personal links and
   * hosts are let in.
   */
  admit(grant: BoardGrant): void {
    if (grant.role === 'guest' && grant.user?.kind !== 'personal' && !grant.board.config.allow_anonymous) {
      throw errors.forbidden('This board does not allow anonymous participants');
    }
  }

  /**
   * How many seats a board may have taken for a new participant to still join (null: any):
   * fewer than `config.max_participants` and the plan's participants per board. Hosts are
   * always let in. The seat ledger applies it, so the check and the seat are one step.
   */
  seatLimit(grant: BoardGrant): number | null {
    if (grant.role === 'host') return null;
    const perPlan = this.deps.quotas.participantLimit(grant.plan);
    return perPlan === null ? grant.board.config.max_participants : Math.min(grant.board.config.max_participants, perPlan);
  }

  /** Why a new participant cannot join a board with `seated` seats taken (`seatLimit` said it is full): 409, or the plan's 402. */
  seatRefusal(grant: BoardGrant, seated: number): AppError {
    const { max_participants: max } = grant.board.config;
    try {
      if (seated < max) this.deps.quotas.assertRoom(grant.plan, 'participants', seated);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    return errors.conflict(`The board is full (${max} participants)`);
  }

  /** Gives boards created before token lookup hashes existed their hashes. */
  async backfillLookupHashes(): Promise<number> {
    const rows = await this.deps.db.board.findMany({ where: { hostTokenHash: null }, select: { id: true, tokenNonce: true } });
    for (const row of rows) {
      await this.deps.db.board.update({ where: { id: row.id }, data: this.deps.tokens.lookupHashes(row.id, row.tokenNonce) });
    }
    return rows.length;
  }

  private async sharedLinkGrant(token: string, hash = hashToken(token)): Promise<BoardGrant | null> {
    const row = await this.deps.db.board.findFirst({
      where: { OR: [{ hostTokenHash: hash }, { guestTokenHash: hash }] },
      omit: LARGE_BOARD_COLUMNS,
      include: { organization: { select: { plan: true } } },
    });
    if (!row) return null;
    const board = boardFromRow(row);
    const role = this.deps.tokens.roleOf(board.id, board.tokenNonce, token);
    return role ? { board, role, plan: row.organization.plan as Plan, user: null } : null;
  }

  private async personalLinkGrant(token: string): Promise<BoardGrant | null> {
    const link = await this.deps.db.participantLink.findUnique({
      where: { tokenHash: hashToken(token) },
      include: { board: { omit: LARGE_BOARD_COLUMNS, include: { organization: { select: { plan: true } } } } },
    });
    if (!link) return null;
    const board = boardFromRow(link.board);
    if (!this.deps.tokens.isParticipantToken(token, board.id, board.tokenNonce, link.tokenNonce, link.userId)) return null;
    return { board, role: 'guest', plan: link.board.organization.plan as Plan, user: linkedUser(link) };
  }
}

/** The user of a stored link (personal or session). */
export function linkedUser(link: { kind: string; userId: string; userName: string | null; externalUserId: string | null; externalSource: string | null }): LinkedUser {
  if (link.kind === 'session') {
    return { kind: 'session', userId: link.userId, userName: link.userName, userType: 'anonymous', externalUserId: null, externalSource: null };
  }
  return {
    kind: 'personal',
    userId: link.userId,
    userName: link.userName,
    userType: link.externalUserId ? 'verified-student' : 'authenticated',
    externalUserId: link.externalUserId,
    externalSource: link.externalUserId ? link.externalSource : null,
  };
}

/** The board's shared guest link: it identifies nobody (a session participant is minted for it). */
export function isSharedGuestLink(grant: BoardGrant): boolean {
  return grant.role === 'guest' && grant.user === null;
}

/**
 * The user whose zones a credential owns (the zone rules' `userId`): a personal link's user.
 * The shared guest link owns nothing, whatever it declares. A host token owns every zone
 * anyway; the id it declares is kept for attribution (`created_by`).
 */
export function owningUserId(grant: BoardGrant, declaredUserId: string | null): string | null {
  if (grant.user) return grant.user.userId;
  return grant.role === 'host' ? clip(declaredUserId) : null;
}

/**
 * How a participant is shown: a personal link as its user, whatever the client declares; a
 * session participant by its minted id, with the name it declares; a host as it declares itself; a shared-link guest as `anonymous`, its declared id and name
 * kept as display names only (external ids are dropped: nobody vouches for them).
 */
export function participantIdentity(grant: BoardGrant, declared: DeclaredIdentity): ParticipantIdentity {
  // A session participant is anonymous: what it declares (a name, else an id) is its display name.
  if (grant.user?.kind === 'session') return { ...grant.user, userName: clip(declared.userName) ?? clip(declared.userId) ?? grant.user.userName };
  if (grant.user) return grant.user;
  const userId = clip(declared.userId);
  const userName = clip(declared.userName);
  if (grant.role === 'guest') return { userId, userName, userType: 'anonymous', externalUserId: null, externalSource: null };
  const externalUserId = clip(declared.externalUserId);
  return {
    userId,
    userName,
    userType: externalUserId ? 'verified-student' : userId ? 'authenticated' : 'anonymous',
    externalUserId,
    // Only a verified student carries external ids; a source without an external id is dropped.
    externalSource: externalUserId ? clip(declared.externalSource) : null,
  };
}

function clip(value: string | null): string | null {
  return value ? value.slice(0, MAX_DECLARED_LENGTH) : null;
}
