import type { AppError } from '../errors.js';
import { assertNever } from '../util/assertNever.js';
import type { ClientMessage, ServerMessage } from './messages.js';

/** A WebSocket close code and reason. */
export interface CloseEvent {
  code: number;
  reason: string;
}

/** Every close code the service sends on its sockets, in one place. */
export const CloseEvents = {
  /** Invalid, expired or foreign board token (SPEC: 1008 policy violation). */
  InvalidToken: { code: 1008, reason: 'invalid-token' },
  /** The token is valid but the board's rules refuse this participant. */
  Forbidden: { code: 4403, reason: 'forbidden' },
  /** `config.max_participants` reached. */
  BoardFull: { code: 4409, reason: 'board-full' },
  /** A quota of the organization's plan is used up (participants per board, daily socket messages). */
  QuotaExceeded: { code: 4402, reason: 'quota-exceeded' },
  /** The connection sent far more than the message rate limit allows. */
  RateLimited: { code: 4429, reason: 'rate-limited' },
  /** The host ended the session (`POST /end-session`); clients may join again. */
  SessionEnded: { code: 4000, reason: 'session-ended' },
  /** The board was deleted. */
  BoardDeleted: { code: 4404, reason: 'board-deleted' },
  /** A zone document the participant may not (or no longer) open. */
  ZoneForbidden: { code: 4403, reason: 'zone-forbidden' },
  /** The server is shutting down; reconnect later. */
  ServiceRestart: { code: 1012, reason: 'service-restart' },
  /**
   * An update the server cannot take apart (a value nested too deep to decode, or Yjs types
   * nested deeper than the document bounds), or one writing where only the server writes
   * (component storage): nothing of it was applied. Sending it again gets the same answer.
   */
  InvalidUpdate: { code: 4400, reason: 'invalid-update' },
  /**
   * An awareness (presence) update beyond the bounds of awareness states (too big, nested too
   * deep, not JSON): dropped before any other client or instance saw it.
   */
  InvalidAwareness: { code: 4400, reason: 'invalid-awareness' },
  /** The document could not be loaded; nothing was served, reconnect later. */
  Unavailable: { code: 1011, reason: 'document-unavailable' },
} as const satisfies Record<string, CloseEvent>;

/** The close event for a catalogue error raised while admitting a connection. */
export function closeEventFor(error: AppError): CloseEvent {
  switch (error.kind) {
    case 'unauthorized':
    case 'gone':
    case 'not_found':
      return CloseEvents.InvalidToken;
    case 'forbidden':
      return CloseEvents.Forbidden;
    case 'payment_required':
      return CloseEvents.QuotaExceeded;
    case 'conflict':
      return CloseEvents.BoardFull;
    case 'too_many_requests':
      return CloseEvents.RateLimited;
    case 'bad_request':
    case 'payload_too_large':
    case 'unprocessable':
      return CloseEvents.Forbidden;
    case 'internal':
    case 'bad_gateway':
    case 'unavailable':
      return CloseEvents.Unavailable;
    default:
      return assertNever(error.kind);
  }
}

/** The `error` message answering a client message a catalogue error refused; the socket stays open. */
export function refusalMessage(error: AppError, refused: ClientMessage['type']): ServerMessage {
  return { type: 'error', message: error.message, for: refused };
}
