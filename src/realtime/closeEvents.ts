import type { AppError } from '../errors.js';
import { assertNever } from '../util/assertNever.js';
import type { ClientMessage, ServerMessage } from './messages.js';
import { CLOSE_CODES, type CloseName } from './protocol/closeCodes.js';

/** A WebSocket close code and reason. */
export interface CloseEvent {
  code: number;
  reason: string;
}

/**
 * Every close the service sends on its sockets, by name: the code and reason of the
 * protocol's catalogue (realtime/protocol/closeCodes.ts) and nothing else, as they go on the wire.
 */
export const CloseEvents = Object.fromEntries(Object.entries(CLOSE_CODES).map(([name, { code, reason }]) => [name, { code, reason }])) as {
  readonly [N in CloseName]: Pick<(typeof CLOSE_CODES)[N], 'code' | 'reason'>;
};

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
    case 'unsupported_media_type':
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
