import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** What a board access token lets its holder do. */
export type BoardRole = 'host' | 'guest';

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
      const expected = Buffer.from(this.issue(boardId, nonce, role));
      const given = Buffer.from(token);
      if (given.length === expected.length && timingSafeEqual(given, expected)) return role;
    }
    return null;
  }
}

/** The lookup hash of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
