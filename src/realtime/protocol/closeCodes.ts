/**
 * Every close the service sends on its sockets: the WebSocket close code, the reason string
 * it carries (unique; two closes may share a code), whether a client should reconnect, and
 * the words a page shows a person. realtime/closeEvents.ts closes with these.
 */

/**
 * `auto`: at once, with the socket's own backoff (nothing is wrong with the client).
 * `on-request`: when the person asks (a session ended, the board was full): trying again
 * may work later. `never`: the same request gets the same answer.
 */
export type Reconnect = 'auto' | 'on-request' | 'never';

export interface CloseCode {
  code: number;
  reason: string;
  reconnect: Reconnect;
  /** What a page tells its user; null where a page shows nothing (only one document closed). */
  text: string | null;
}

export const CLOSE_CODES = {
  /** Invalid, expired or foreign board token (1008: policy violation). */
  InvalidToken: { code: 1008, reason: 'invalid-token', reconnect: 'never', text: 'This link is no longer valid (expired, revoked or for another board).' },
  /** The token is valid but the board's rules refuse this participant. */
  Forbidden: { code: 4403, reason: 'forbidden', reconnect: 'never', text: 'This board only admits invited participants. Ask your teacher for your personal link.' },
  /** `config.max_participants` reached. */
  BoardFull: { code: 4409, reason: 'board-full', reconnect: 'on-request', text: 'This board is full. Try again when someone leaves.' },
  /** A quota of the organization's plan is used up (participants per board, daily socket messages). */
  QuotaExceeded: { code: 4402, reason: 'quota-exceeded', reconnect: 'on-request', text: "The organization's plan has no room for more right now. Try again later." },
  /** The connection sent far more than the message rate limit allows. */
  RateLimited: { code: 4429, reason: 'rate-limited', reconnect: 'auto', text: 'Too many changes at once: the connection was paused. Reconnecting…' },
  /** The host ended the session (`POST /end-session`); clients may join again. */
  SessionEnded: { code: 4000, reason: 'session-ended', reconnect: 'on-request', text: 'The host ended this session. Your work is saved.' },
  /** The board was deleted. */
  BoardDeleted: { code: 4404, reason: 'board-deleted', reconnect: 'never', text: 'This board was deleted. Its copy on this device has been removed.' },
  /**
   * A zone document the participant may not (or no longer) open: that document only is refused
   * or closed (the provider sees the reason, with code 1000); the socket stays.
   */
  ZoneForbidden: { code: 4403, reason: 'zone-forbidden', reconnect: 'never', text: null },
  /** The server is shutting down; reconnect later. */
  ServiceRestart: { code: 1012, reason: 'service-restart', reconnect: 'auto', text: 'The server is restarting. Reconnecting…' },
  /**
   * An update the server cannot take apart (a value nested too deep to decode, or Yjs types
   * nested deeper than the document bounds), or one writing where only the server writes
   * (component storage): nothing of it was applied. Sending it again gets the same answer.
   */
  InvalidUpdate: { code: 4400, reason: 'invalid-update', reconnect: 'auto', text: 'A change could not be read by the server and was not applied. Reconnecting…' },
  /**
   * An awareness (presence) update beyond the bounds of awareness states (too big, nested too
   * deep, not JSON): dropped before any other client or instance saw it.
   */
  InvalidAwareness: {
    code: 4400,
    reason: 'invalid-awareness',
    reconnect: 'auto',
    text: 'Your cursor or name was too large to share, so the connection was reset. Reconnecting…',
  },
  /** The document could not be loaded; nothing was served, reconnect later. */
  Unavailable: { code: 1011, reason: 'document-unavailable', reconnect: 'auto', text: 'The board could not be loaded just now. Retrying…' },
} as const satisfies Record<string, CloseCode>;

export type CloseName = keyof typeof CLOSE_CODES;
export type CloseReason = (typeof CLOSE_CODES)[CloseName]['reason'];

/** The catalogue as a list, for code that enumerates it (the client's close table's test). */
export const CLOSE_CODE_LIST: ReadonlyArray<(typeof CLOSE_CODES)[CloseName]> = Object.values(CLOSE_CODES);
