/** Why the socket is not carrying the board now, as the page tells its user. */
export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'connected' }
  | { kind: 'offline' }
  | { kind: 'closed'; reason: CloseReason };

export type CloseReason =
  | 'session-ended'
  | 'board-deleted'
  | 'board-full'
  | 'forbidden'
  | 'quota-exceeded'
  | 'rate-limited'
  | 'invalid-token'
  | 'invalid-update'
  | 'service-restart'
  | 'document-unavailable';

/** What each close means to a person, and whether the page reconnects by itself. */
export interface CloseAdvice {
  words: string;
  /** Reconnect on its own (the socket's backoff), offer a button, or stop for good. */
  reconnect: 'auto' | 'button' | 'never';
}

/** The server's close codes (README "Rate limit and close codes"), by code and reason. */
export function closeReasonOf(code: number, reason: string): CloseReason | null {
  switch (code) {
    case 1008:
      return 'invalid-token';
    case 4403:
      return reason === 'zone-forbidden' ? null : 'forbidden';
    case 4400:
      return 'invalid-update';
    case 4409:
      return 'board-full';
    case 4402:
      return 'quota-exceeded';
    case 4429:
      return 'rate-limited';
    case 4000:
      return 'session-ended';
    case 4404:
      return 'board-deleted';
    case 1011:
      return 'document-unavailable';
    case 1012:
      return 'service-restart';
    default:
      return null;
  }
}

export function adviceFor(reason: CloseReason): CloseAdvice {
  switch (reason) {
    case 'session-ended':
      return { words: 'The host ended this session. Your work is saved.', reconnect: 'button' };
    case 'board-deleted':
      return { words: 'This board was deleted. Its copy on this device has been removed.', reconnect: 'never' };
    case 'board-full':
      return { words: 'This board is full. Try again when someone leaves.', reconnect: 'button' };
    case 'forbidden':
      return { words: 'This board only admits invited participants. Ask your teacher for your personal link.', reconnect: 'never' };
    case 'quota-exceeded':
      return { words: "The organization's plan has no room for more right now. Try again later.", reconnect: 'button' };
    case 'rate-limited':
      return { words: 'Too many changes at once: the connection was paused. Reconnecting…', reconnect: 'auto' };
    case 'invalid-token':
      return { words: 'This link is no longer valid (expired, revoked or for another board).', reconnect: 'never' };
    case 'invalid-update':
      return { words: 'A change could not be read by the server and was not applied. Reconnecting…', reconnect: 'auto' };
    case 'service-restart':
      return { words: 'The server is restarting. Reconnecting…', reconnect: 'auto' };
    case 'document-unavailable':
      return { words: 'The board could not be loaded just now. Retrying…', reconnect: 'auto' };
  }
}
