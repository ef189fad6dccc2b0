import { randomBytes } from 'node:crypto';
import type { ParticipantLink as LinkRow } from '../../generated/sqlite/index.js';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Db } from '../store/database.js';
import { hashToken, type AccessTokens } from './accessTokens.js';
import type { Board } from './board.js';
import { linkedUser, type LinkedUser } from './boardAccess.js';
import type { BoardService } from './boardService.js';
import { requireHost, type Caller } from './caller.js';
import type { IssueParticipantLinkInput } from './participantLinksSchemas.js';

/**
 * Personal links a board may have. A class is at most a few hundred; the cap keeps a board's
 * links (and a bulk assignment's) a bounded list.
 */
export const MAX_PERSONAL_LINKS = 1_000;

/** A personal link: a board token bound to one user, valid as long as its board. */
export interface ParticipantLink {
  user: LinkedUser;
  token: string;
  /** `{APP_URL}/boards/<board_uuid>?token=<token>`, like the board's shared links. */
  link: string;
  /** The board's: a link expires with its board. */
  expiresAt: Date;
  createdAt: Date;
}

/** What revoking a link does to the sockets its token opened. */
export interface ParticipantSockets {
  /** Closes, at once, every socket a personal link of `userId` opened on the board (zone documents included). */
  disconnectUser(boardId: string, userId: string): void;
}

export interface ParticipantLinksDependencies {
  db: Db;
  clock: Clock;
  tokens: AccessTokens;
  boards: Pick<BoardService, 'get'>;
  /** Base of links (`APP_URL`). */
  appUrl: string;
  sockets: ParticipantSockets;
}

/**
 * Personal links: the only credential that owns a user's zones. Issuing is idempotent per
 * user (an LMS may call it for every launch); revoking deletes the link, closes its sockets,
 * and a later issue makes a new token. Tokens are derived (see AccessTokens), so the list
 * can show them again while the table holds only their lookup hashes.
 */
export class ParticipantLinks {
  constructor(private readonly deps: ParticipantLinksDependencies) {}

  /** Issues `user_id`'s link, or gives the one it has the names of this request (`created` tells which). */
  async issue(caller: Caller, boardId: string, input: IssueParticipantLinkInput): Promise<{ link: ParticipantLink; created: boolean }> {
    const board = await this.hostBoard(caller, boardId, 'issue personal links');
    const externalUserId = input.external_user_id ?? null;
    const names = { userName: input.user_name ?? null, externalUserId, externalSource: externalUserId ? (input.external_source ?? null) : null };
    const existing = await this.find(board.id, input.user_id);
    if (!existing) await this.assertRoom(board.id, [input.user_id]);
    const { row, created } = existing ? { row: existing, created: false } : await this.createOnce(board, input.user_id, names);
    return { link: this.present(board, created ? row : await this.rename(row, names)), created };
  }

  /** Every link of the board, oldest first. */
  async list(caller: Caller, boardId: string): Promise<ParticipantLink[]> {
    const board = await this.hostBoard(caller, boardId, 'see personal links');
    const rows = await this.deps.db.participantLink.findMany({ where: { boardId: board.id, kind: 'personal' }, orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }] });
    return rows.map((row) => this.present(board, row));
  }

  /** Deletes `userId`'s link (404 if it has none) and closes the sockets it opened. */
  async revoke(caller: Caller, boardId: string, userId: string): Promise<void> {
    const board = await this.hostBoard(caller, boardId, 'revoke personal links');
    const { count } = await this.deps.db.participantLink.deleteMany({ where: { boardId: board.id, userId, kind: 'personal' } });
    if (count === 0) throw errors.notFound('Personal link');
    this.deps.sockets.disconnectUser(board.id, userId);
  }

  /**
   * The link of each user, created where missing (bulk assignment with `issue_links`); the
   * names of existing links are left as they are. The caller must be the board's host.
   */
  async ensure(board: Board, userIds: readonly string[]): Promise<Map<string, ParticipantLink>> {
    const links = new Map<string, ParticipantLink>();
    await this.assertRoom(board.id, userIds);
    for (const userId of new Set(userIds)) {
      const row = (await this.find(board.id, userId)) ?? (await this.createOnce(board, userId, NO_NAMES)).row;
      links.set(userId, this.present(board, row));
    }
    return links;
  }

  private async hostBoard(caller: Caller, boardId: string, what: string): Promise<Board> {
    const board = await this.deps.boards.get(caller, boardId);
    requireHost(caller, what);
    return board;
  }

  /**
   * 409 unless links for `userIds` fit under MAX_PERSONAL_LINKS, and none of them is a session
   * participant's id (its credential is its device's alone).
   */
  async assertRoom(boardId: string, userIds: readonly string[]): Promise<void> {
    const wanted = [...new Set(userIds)];
    const existing = await this.deps.db.participantLink.findMany({ where: { boardId, userId: { in: wanted } }, select: { userId: true, kind: true } });
    const session = existing.find((row) => row.kind === 'session');
    if (session) throw errors.conflict(`${session.userId} is a session participant: it has its own credential`);
    const count = await this.deps.db.participantLink.count({ where: { boardId, kind: 'personal' } });
    if (count + wanted.length - existing.length > MAX_PERSONAL_LINKS) {
      throw errors.conflict(`A board has at most ${MAX_PERSONAL_LINKS} personal links (this one has ${count}); revoke some first`);
    }
  }

  private find(boardId: string, userId: string): Promise<LinkRow | null> {
    return this.deps.db.participantLink.findFirst({ where: { boardId, userId, kind: 'personal' } });
  }

  /** Creates a link with a new nonce, or finds the one a concurrent request has just created. */
  private async createOnce(board: Board, userId: string, names: Names): Promise<{ row: LinkRow; created: boolean }> {
    const now = this.deps.clock.now();
    const tokenNonce = randomBytes(16).toString('base64url');
    const tokenHash = hashToken(this.deps.tokens.issueParticipant(board.id, board.tokenNonce, tokenNonce, userId));
    try {
      const row = await this.deps.db.participantLink.create({ data: { boardId: board.id, userId, ...names, tokenNonce, tokenHash, createdAt: now, updatedAt: now } });
      return { row, created: true };
    } catch (error) {
      const raced = (error as { code?: string }).code === 'P2002' ? await this.find(board.id, userId) : null;
      if (!raced) throw error;
      return { row: raced, created: false };
    }
  }

  private rename(row: LinkRow, names: Names): Promise<LinkRow> {
    return this.deps.db.participantLink.update({
      where: { boardId_userId: { boardId: row.boardId, userId: row.userId } },
      data: { ...names, updatedAt: this.deps.clock.now() },
    });
  }

  private present(board: Board, row: LinkRow): ParticipantLink {
    const token = this.deps.tokens.issueParticipant(board.id, board.tokenNonce, row.tokenNonce, row.userId);
    return {
      user: linkedUser(row),
      token,
      link: `${this.deps.appUrl}/boards/${board.id}?token=${token}`,
      expiresAt: board.expiresAt,
      createdAt: row.createdAt,
    };
  }
}

interface Names {
  userName: string | null;
  externalUserId: string | null;
  externalSource: string | null;
}

const NO_NAMES: Names = { userName: null, externalUserId: null, externalSource: null };

/** The API record of a personal link. */
export function presentParticipantLink(link: ParticipantLink) {
  return {
    user_id: link.user.userId,
    user_name: link.user.userName,
    user_type: link.user.userType,
    external_user_id: link.user.externalUserId,
    external_source: link.user.externalSource,
    token: link.token,
    link: link.link,
    expires_at: link.expiresAt.toISOString(),
    created_at: link.createdAt.toISOString(),
  };
}
