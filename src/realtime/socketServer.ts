import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hocuspocus } from '@hocuspocus/server';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BoardAccess, DeclaredIdentity } from '../boards/boardAccess.js';
import { AppError } from '../errors.js';
import { redactUrl, type Logger } from '../logger.js';
import { CloseEvents, closeEventFor } from './closeEvents.js';
import { DurableAckSocket } from './durableAckSocket.js';
import type { ServerMessage } from './messages.js';
import { encodeStatelessFrame } from './wireFrames.js';
import { MessageGate, type MessageGateLimits, DEFAULT_GATE_LIMITS } from './messageGate.js';
import type { SocketContext } from './socketContext.js';

/** Where sockets connect: `/api/v1/realtime?token=<board access token>` (docs/realtime.md). */
export const REALTIME_PATH = '/api/v1/realtime';
/** Largest frame a client may send; bigger ones are closed by `ws` with 1009. */
const MAX_FRAME_BYTES = 10 * 1024 * 1024;

export interface SocketServerDependencies {
  hocuspocus: Hocuspocus;
  access: BoardAccess;
  whenDurable(documentName: string): Promise<void>;
  logger: Logger;
  gateLimits?: MessageGateLimits;
  socketMessages: SocketMessageQuota;
}

/** The daily socket message quota of the board's organization. */
export interface SocketMessageQuota {
  /** Whether the organization's sockets may send now. */
  allows(organizationId: string): boolean;
  /** Counts one message; false once the day's limit is used up. */
  count(organizationId: string): boolean;
}

/** What a client declares about itself in the socket URL (display only; see participantIdentity). */
function declaredIn(params: URLSearchParams): DeclaredIdentity {
  return {
    userId: params.get('user_id') || params.get('userId') || null,
    userName: params.get('user_name') || null,
    externalUserId: params.get('external_user_id') || null,
    externalSource: params.get('external_source') || null,
  };
}

/**
 * Accepts WebSocket upgrades on REALTIME_PATH of the HTTP server and hands each socket to
 * Hocuspocus, through the message gate (rate limit) and the durable-ack socket. A token in
 * the URL is checked before anything else happens: an invalid one closes with 1008.
 */
export function attachSocketServer(server: Server, deps: SocketServerDependencies): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const log = deps.logger.child({ component: 'socket' });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== REALTIME_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => void accept(ws, req, url, deps, log));
  };

  server.on('upgrade', onUpgrade);
  return {
    close() {
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.close(CloseEvents.ServiceRestart.code, CloseEvents.ServiceRestart.reason);
      wss.close();
    },
  };
}

/**
 * One socket: its URL token checked, its organization's message quota, then each message
 * through the gate to Hocuspocus. Messages that arrive meanwhile wait, in order.
 */
async function accept(ws: WebSocket, req: IncomingMessage, url: URL, deps: SocketServerDependencies, log: Logger): Promise<void> {
  const early: Uint8Array[] = [];
  let handle: ((data: Uint8Array) => void) | null = null;
  ws.on('message', (data: Buffer) => (handle ? handle(new Uint8Array(data)) : early.push(new Uint8Array(data))));
  const token = url.searchParams.get('token');
  const context = socketContext(ws, url, token);
  if (token && !(await admitUrlToken(ws, req, token, context, deps, log))) return;
  const organizationId = () => context.admission.grant?.board.organizationId;
  const quotaUsedUp = () => {
    log.info({ socket_id: context.socketId, board_id: context.grant?.board.id }, 'socket message quota used up; closed');
    ws.close(CloseEvents.QuotaExceeded.code, CloseEvents.QuotaExceeded.reason);
  };
  const grantedOrganization = organizationId();
  if (grantedOrganization && !deps.socketMessages.allows(grantedOrganization)) return quotaUsedUp();
  const socket = new DurableAckSocket(ws, (documentName) => deps.whenDurable(documentName));
  const connection = deps.hocuspocus.handleConnection(socket, hocuspocusRequest(req, url), context);
  const gate = messageGate(ws, socket, connection, context, deps, log);
  handle = (data) => {
    // Counted once the board is known (a token given in the URL, or the provider's auth message).
    const organization = organizationId();
    if (organization && !deps.socketMessages.count(organization)) return quotaUsedUp();
    gate.receive(data);
  };
  early.splice(0).forEach(handle);
  ws.on('close', (code, reason) => {
    gate.close();
    connection.handleClose({ code, reason: reason.toString() });
  });
  ws.on('error', (error) => log.debug({ err: error }, 'socket error'));
}

function socketContext(ws: WebSocket, url: URL, token: string | null): SocketContext {
  return {
    socketId: randomBytes(8).toString('hex'),
    ...(token ? { urlToken: token } : {}),
    declared: declaredIn(url.searchParams),
    presence: url.searchParams.get('presence') === 'none' ? 'none' : 'listed',
    subscriptions: { events: null },
    admission: {},
    closeSocket: (event) => ws.close(event.code, event.reason),
  };
}

/** Checks a token given in the URL before anything else happens: a refused one closes the socket (1008 when invalid). */
async function admitUrlToken(ws: WebSocket, req: IncomingMessage, token: string, context: SocketContext, deps: SocketServerDependencies, log: Logger): Promise<boolean> {
  try {
    context.grant = await deps.access.authenticateSocket(token);
    context.admission.grant = context.grant;
    return true;
  } catch (error) {
    const event = error instanceof AppError ? closeEventFor(error) : CloseEvents.Unavailable;
    log.info({ url: redactUrl(req.url ?? ''), code: event.code }, 'socket refused');
    ws.close(event.code, event.reason);
    return false;
  }
}

/** The socket's rate limit: what passes goes to its Hocuspocus connection; a flood or an oversized awareness state closes it. */
function messageGate(
  ws: WebSocket,
  socket: DurableAckSocket,
  connection: ReturnType<Hocuspocus['handleConnection']>,
  context: SocketContext,
  deps: SocketServerDependencies,
  log: Logger,
): MessageGate {
  return new MessageGate(
    {
      deliver: (data) => connection.handleMessage(data),
      merged: (address, count) => socket.oweAcks(address, count),
      notifyCoalescing: (address, coalesced) =>
        socket.send(encodeStatelessFrame(address, { type: 'rate-limited', limit_per_second: (deps.gateLimits ?? DEFAULT_GATE_LIMITS).perSecond, coalesced } satisfies ServerMessage)),
      flooding: () => {
        log.warn({ socket_id: context.socketId, board_id: context.grant?.board.id }, 'socket flooding; closed');
        ws.close(CloseEvents.RateLimited.code, CloseEvents.RateLimited.reason);
      },
      invalidAwareness: (problem) => {
        log.info({ socket_id: context.socketId, board_id: context.grant?.board.id, problem }, 'awareness state out of bounds; closed');
        ws.close(CloseEvents.InvalidAwareness.code, CloseEvents.InvalidAwareness.reason);
      },
    },
    deps.gateLimits,
  );
}

/**
 * What Hocuspocus is given as the socket's request. It reads only `url` and `headers`, and
 * parses the URL again for `requestParameters` in every hook payload (three per update): a
 * whole Fetch Request and an absolute URL cost a parse per message. None of our extensions
 * reads the parameters, and the query holds the token, so the URL is the path alone.
 */
function hocuspocusRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return { url: url.pathname, headers } as Request;
}
