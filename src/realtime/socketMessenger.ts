import type { Connection, Hocuspocus } from '@hocuspocus/server';
import type { InstanceChannel } from '../store/instanceChannels.js';
import { admits, EVERYONE, type Audience } from './audience.js';
import { boardIdOfDocument } from './documentContext.js';
import { SUBSCRIBABLE_EVENTS, type ServerMessage } from './messages.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import type { SocketContext } from './socketContext.js';
import type { SocketSignal } from './socketSignals.js';

const subscribable = new Set<ServerMessage['type']>(SUBSCRIBABLE_EVENTS);

/** Whether a connection's subscription lets `type` through (unsubscribable types always pass). */
export function isSubscribed(context: SocketContext, type: ServerMessage['type']): boolean {
  const events = context.subscriptions?.events;
  if (!events || !subscribable.has(type)) return true;
  return events.has('*') || events.has(type);
}

/**
 * The one way a server message reaches a connection: as a Hocuspocus stateless message, if
 * the connection's `subscribe` lets it through. For the extensions that answer the sender
 * only; SocketMessenger adds broadcasting.
 */
export function sendServerMessage(connection: Connection, message: ServerMessage): void {
  if (isSubscribed(connection.context as SocketContext, message.type)) connection.sendStateless(JSON.stringify(message));
}

/**
 * Sends server messages to sockets as Hocuspocus stateless messages, honouring `subscribe`.
 * A broadcast reaches the board's sockets on every instance (the other instances hear it
 * through the socket signals).
 */
export class SocketMessenger {
  constructor(
    private readonly hocuspocus: Hocuspocus,
    private readonly registry: PresenceRegistry,
    private readonly signals: InstanceChannel<SocketSignal>,
  ) {}

  send(connection: Connection, message: ServerMessage): void {
    sendServerMessage(connection, message);
  }

  /**
   * Sends to the audience among the connections of a board's main document, on every
   * instance. Answers how many participants of this instance it reached.
   */
  broadcast(boardId: string, message: ServerMessage, audience: Audience = EVERYONE): number {
    this.signals.publish({ kind: 'broadcast', boardId, message, audience });
    return this.relay(boardId, message, audience);
  }

  /** A broadcast to this instance's sockets only (one another instance made). */
  relay(boardId: string, message: ServerMessage, audience: Audience): number {
    const document = this.hocuspocus.documents.get(boardId);
    if (!document) return 0;
    const reached = new Set<string>();
    // Serialized and framed once for all (Hocuspocus shares the frame between sockets of one
    // address): every join is announced to everyone already there. Relayed, not broadcast:
    // these are this instance's own sockets, and no hook should see them.
    document.relayStateless(JSON.stringify(message), (connection) => {
      const context = connection.context as SocketContext;
      if (!admits(audience, context, boardId, this.registry) || !isSubscribed(context, message.type)) return false;
      if (context.participantKey) reached.add(context.participantKey);
      return true;
    });
    return reached.size;
  }

  /** Closes every socket connected to a board's documents (zone documents included). */
  closeBoardSockets(boardId: string, close: (context: SocketContext) => void): void {
    this.closeSockets(boardId, () => true, close);
  }

  /** Closes every socket that opened one of a board's documents with a personal link of `userId`. */
  closeUserSockets(boardId: string, userId: string, close: (context: SocketContext) => void): void {
    this.closeSockets(boardId, (context) => context.grant?.user?.userId === userId, close);
  }

  /** Closes, once each, the sockets of a board's documents whose connection `include` accepts. */
  private closeSockets(boardId: string, include: (context: SocketContext) => boolean, close: (context: SocketContext) => void): void {
    const closed = new Set<string>();
    for (const [name, document] of this.hocuspocus.documents) {
      if (boardIdOfDocument(name) !== boardId) continue;
      for (const connection of document.getConnections()) {
        const context = connection.context as SocketContext;
        if (!include(context)) continue;
        if (context.socketId && !closed.has(context.socketId)) {
          closed.add(context.socketId);
          close(context);
        } else if (!context.socketId) {
          connection.close();
        }
      }
    }
  }
}
