import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { BoardRole } from './boardRole.js';

export type { BoardRole } from './boardRole.js';

/**
 * Board access tokens are derived, not stored: HMAC-SHA256 over the board id, the role
 * and the board's random nonce, keyed with a server secret. A token is therefore
 * unguessable (256 bits), valid for exactly one board and one role, can be shown again
 * by the access-links endpoint, and dies with the board row that holds the nonce.
 */
export class AccessTokens {
  constructor(private readonly secret: string) {}

  issue(boardId: string, nonce: string, role: BoardRole): string {
    return createHmac('sha256', this.secret).update(`${role}:${boardId}:${nonce}`).digest('base64url');
  }

  /** Hashes of a board's tokens, stored so a token alone (a socket URL) finds its board. */
  lookupHashes(boardId: string, nonce: string): { hostTokenHash: string; guestTokenHash: string } {
    return {
      hostTokenHash: hashToken(this.issue(boardId, nonce, 'host')),
      guestTokenHash: hashToken(this.issue(boardId, nonce, 'guest')),
    };
  }

  /** The role a token grants on a board, or null if it is not one of the board's tokens. */
  roleOf(boardId: string, nonce: string, token: string): BoardRole | null {
    for (const role of ['host', 'guest'] as const) {
      if (sameToken(token, this.issue(boardId, nonce, role))) return role;
    }
    return null;
  }

  /**
   * The token of a personal link: derived like the board's tokens, from the board's nonce and
   * the link's own, so it dies with the board and with the link (a new link gets a new nonce).
   * The user id comes last: it is the only part that may contain the separator.
   */
  issueParticipant(boardId: string, boardNonce: string, linkNonce: string, userId: string): string {
    return createHmac('sha256', this.secret).update(`participant:${boardId}:${boardNonce}:${linkNonce}:${userId}`).digest('base64url');
  }

  /** Whether `token` is the token of that personal link. */
  isParticipantToken(token: string, boardId: string, boardNonce: string, linkNonce: string, userId: string): boolean {
    return sameToken(token, this.issueParticipant(boardId, boardNonce, linkNonce, userId));
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The lookup hash of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
