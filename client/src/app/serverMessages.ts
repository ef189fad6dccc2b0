import { SERVER_MESSAGE_TYPES, type ServerMessage, type WriteRejected } from '../../../src/realtime/protocol/serverMessages.js';

const KNOWN_TYPES = new Set<string>(SERVER_MESSAGE_TYPES);

/**
 * Parses a stateless payload; null for anything that is not a message of the realtime protocol
 * (src/realtime/protocol): a newer server's messages are ignored, not misread.
 */
export function parseServerMessage(payload: string): ServerMessage | null {
  try {
    const message = JSON.parse(payload) as { type?: unknown } | null;
    return message && typeof message === 'object' && typeof message.type === 'string' && KNOWN_TYPES.has(message.type) ? (message as ServerMessage) : null;
  } catch {
    return null;
  }
}

/** Words for a refused write, shown to its author (the server already undid it). */
export function rejectionWords(reason: WriteRejected['reason'], count: number): string {
  const what = count === 1 ? 'Your change' : `${count} of your changes`;
  switch (reason) {
    case 'zone-permissions':
      return `${what} was undone: that area belongs to someone else.`;
    case 'locked':
      return `${what} was undone: the host locked that object.`;
    case 'invalid-object':
      return `${what} was undone: it does not fit that object's type.`;
    case 'invalid-value':
      return `${what} was undone by the server: a value was too large or too deep.`;
  }
}
