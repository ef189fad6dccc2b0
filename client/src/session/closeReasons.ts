import { CLOSE_CODE_LIST, type CloseReason, type Reconnect } from '../../../src/realtime/protocol/closeCodes.js';

/** Why the socket is not carrying the board now, as the page tells its user. */
export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'connected' }
  | { kind: 'offline' }
  | { kind: 'closed'; reason: CloseReason };

/**
 * `banner`: the page says the catalogue's words and reconnects as it says. `banner-and-forget`:
 * the same, and the board's copy leaves the device (the board or the link is gone). `zone`: only
 * that zone's document closed (session/boardDocuments.ts); the socket and the page carry on.
 */
export type CloseHandling = 'banner' | 'banner-and-forget' | 'zone';

/**
 * What the page does on each close of the protocol's catalogue (src/realtime/protocol/closeCodes.ts).
 * A close the server gains does not compile here until the page handles it.
 */
export const CLOSE_HANDLING: { readonly [R in CloseReason]: CloseHandling } = {
  'invalid-token': 'banner-and-forget',
  forbidden: 'banner',
  'board-full': 'banner',
  'quota-exceeded': 'banner',
  'rate-limited': 'banner',
  'session-ended': 'banner',
  'board-deleted': 'banner-and-forget',
  'zone-forbidden': 'zone',
  'service-restart': 'banner',
  'invalid-update': 'banner',
  'invalid-awareness': 'banner',
  'document-unavailable': 'banner',
};

/** What each close means to a person, and whether the page reconnects by itself. */
export interface CloseAdvice {
  /** The catalogue's words (every close the page shows has them). */
  words: string | null;
  reconnect: Reconnect;
}

const CLOSES_BY_REASON = new Map(CLOSE_CODE_LIST.map((close) => [close.reason, close]));

/**
 * The close a socket close event names, when the page shows it: its code and its reason are
 * the catalogue's (two closes may share a code). Null for any other close, which the socket's
 * own backoff retries (a dropped network, a Hocuspocus timeout).
 */
export function closeReasonOf(code: number, reason: string): CloseReason | null {
  const close = CLOSES_BY_REASON.get(reason as CloseReason);
  return close?.code === code && CLOSE_HANDLING[close.reason] !== 'zone' ? close.reason : null;
}

/** Whether a document's close reason means only that zone closed for this page. */
export function closesZoneOnly(reason: string): boolean {
  return CLOSES_BY_REASON.has(reason as CloseReason) && CLOSE_HANDLING[reason as CloseReason] === 'zone';
}

export function adviceFor(reason: CloseReason): CloseAdvice {
  const close = CLOSES_BY_REASON.get(reason)!;
  return { words: close.text, reconnect: close.reconnect };
}

/** Whether nothing of the board may stay on this device after this close. */
export function forgetsDevice(reason: CloseReason): boolean {
  return CLOSE_HANDLING[reason] === 'banner-and-forget';
}
