import type { Connection, Hocuspocus } from '@hocuspocus/server';
import { boardIdOfDocument } from './documentContext.js';
import { SUBSCRIBABLE_EVENTS, type ServerMessage } from './messages.js';
import type { SocketContext } from './socketContext.js';

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

/** Sends server messages to sockets as Hocuspocus stateless messages, honouring `subscribe`. */
export class SocketMessenger {
  constructor(private readonly hocuspocus: Hocuspocus) {}

  send(connection: Connection, message: ServerMessage): void {
    sendServerMessage(connection, message);
  }

  /** Sends to every connection of a board's main document that `include` accepts. */
  broadcast(boardId: string, message: ServerMessage, include: (context: SocketContext) => boolean = () => true): void {
    const document = this.hocuspocus.documents.get(boardId);
    if (!document) return;
    // Serialized and framed once for all (Hocuspocus shares the frame between sockets of one
    // address): every join is announced to everyone already there. Relayed, not broadcast:
    // these are this instance's own sockets, and no hook should see them.
    document.relayStateless(JSON.stringify(message), (connection) => {
      const context = connection.context as SocketContext;
      return include(context) && isSubscribed(context, message.type);
    });
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
