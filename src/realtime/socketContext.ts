import type { BoardGrant, ParticipantIdentity } from '../boards/boardAccess.js';
import type { CloseEvent } from './closeEvents.js';
import type { ParticipantView } from './messages.js';

/**
 * What a socket carries into every Hocuspocus connection it opens (the connection's
 * `context`). Set at upgrade; the auth extension adds the grant and participant.
 */
export interface SocketContext {
  /** Unique per socket. */
  socketId: string;
  /** The board and role of the socket's token, once known. */
  grant?: BoardGrant;
  identity: ParticipantIdentity;
  /** The participant this socket is, once admitted to the board document. */
  participant?: ParticipantView;
  /** Events the client asked for (`subscribe`); shared by every document of the socket. */
  subscriptions: Subscriptions;
  /**
   * The grant the socket was admitted with, shared by every document of the socket. Hocuspocus
   * gives each connection a copy of the context, so a grant found by the auth hook (token in
   * the provider's auth message) reaches the socket only through this shared object.
   */
  admission: { grant?: BoardGrant };
  /** Closes the whole socket (every document on it). */
  closeSocket(event: CloseEvent): void;
  /** Fields every connection context has for change attribution (see documentContext.ts). */
  boardId?: string;
  organizationId?: string;
  userId?: string | null;
}

/** The socket's event subscription; `events` null = everything (the default). */
export interface Subscriptions {
  events: Set<string> | null;
}
