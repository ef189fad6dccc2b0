import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { encodeStatelessFrame, MessageType, peekFrame } from '../../src/realtime/wireFrames.js';
import { eventually } from './testServer.js';

/** A real @hocuspocus/provider client on one board document, as a browser would run it. */
export interface BoardClient {
  doc: Y.Doc;
  provider: HocuspocusProvider;
  socket: HocuspocusProviderWebsocket;
  /** Stateless messages the server sent, parsed. */
  messages: Array<Record<string, any>>;
  /** Close events of the socket (code and reason), newest last. */
  closes: Array<{ code: number; reason: string }>;
  /** Resolves once the provider is synced with the server. */
  synced(): Promise<void>;
  /** Resolves once the server acknowledged every local change as saved. */
  saved(): Promise<void>;
  sendStateless(message: unknown): void;
  destroy(): void;
}

export interface BoardClientOptions {
  /** The socket URL (see TestServer.socketUrl). */
  url: string;
  /** The document name: the board uuid, or a zone document name. */
  name: string;
  /** Sent as the Hocuspocus token; defaults to the URL's token. */
  token?: string;
  /** Reconnect after a close, as browsers do (the provider's default); off by default here so close tests stay closed. */
  reconnect?: boolean;
}

/** Connects a real provider client and returns it (not yet synced: await `synced()`). */
export function connectBoardClient({ url, name, token, reconnect = false }: BoardClientOptions): BoardClient {
  const doc = new Y.Doc();
  const messages: Array<Record<string, any>> = [];
  const closes: Array<{ code: number; reason: string }> = [];
  const socket = new HocuspocusProviderWebsocket({
    url,
    WebSocketPolyfill: WebSocket,
    maxAttempts: reconnect ? 0 : 1,
    onClose: ({ event }) => closes.push({ code: event.code, reason: String(event.reason ?? '') }),
  });
  const provider = new HocuspocusProvider({
    websocketProvider: socket,
    name,
    document: doc,
    token: token ?? new URL(url).searchParams.get('token') ?? '',
    onStateless: ({ payload }) => messages.push(JSON.parse(payload)),
  });
  provider.attach();
  if (!reconnect) {
    // `maxAttempts` only bounds the attempts of one connect; after the server closes an
    // established socket the provider connects anew. This runs after the provider's own
    // close handler and cancels the reconnect it scheduled.
    socket.on('close', () => socket.disconnect());
  }
  return {
    doc,
    provider,
    socket,
    messages,
    closes,
    synced: () => eventually(() => provider.isSynced, 10_000).then(() => undefined),
    saved: () => eventually(() => provider.isSynced && provider.unsyncedChanges === 0, 10_000).then(() => undefined),
    sendStateless: (message) => provider.sendStateless(JSON.stringify(message)),
    destroy() {
      provider.destroy();
      socket.destroy();
    },
  };
}

/** The Hocuspocus message type that acknowledges (1) or refuses (0) a client's update. */
const SYNC_STATUS = 8;

/** Counts the SyncStatus answers a provider receives (1 = applied, 0 = refused). */
export function countSyncAcks(provider: HocuspocusProvider, acks: { saved: number; refused: number }): void {
  provider.on('message', ({ event }: { event: MessageEvent }) => {
    const decoder = decoding.createDecoder(new Uint8Array(event.data as ArrayBuffer));
    decoding.readVarString(decoder);
    if (decoding.readVarUint(decoder) !== SYNC_STATUS) return;
    if (decoding.readVarInt(decoder) === 1) acks.saved += 1;
    else acks.refused += 1;
  });
}

/** Adds a board object to a client's document the way a browser client would. */
export function addObject(doc: Y.Doc, object: { id: string; type?: string; data?: Record<string, unknown>; x?: number; y?: number; createdBy?: string }): void {
  const fields = new Y.Map<unknown>([
    ['id', object.id],
    ['type', object.type ?? 'sticky'],
    ['data', object.data ?? {}],
    ['position', { x: object.x ?? 0, y: object.y ?? 0 }],
    ['created_at', new Date().toISOString()],
    ['created_by', object.createdBy ?? null],
  ]);
  doc.getMap('objects').set(object.id, fields);
}

/** How a raw WebSocket connection ended: whether it opened, its close code and reason, any error. */
export interface RawSocketOutcome {
  opened: boolean;
  code: number;
  reason: string;
  error: Error | null;
}

/** Opens a plain `ws` WebSocket (no Hocuspocus protocol) and resolves once it closed. */
export function rawSocketOutcome(url: string, timeoutMs = 10_000): Promise<RawSocketOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let opened = false;
    let error: Error | null = null;
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`socket to ${url} did not close within ${timeoutMs} ms`));
    }, timeoutMs);
    ws.on('open', () => (opened = true));
    ws.on('error', (err) => (error = err));
    ws.on('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ opened, code, reason: reason.toString(), error });
    });
  });
}

/** Hocuspocus' auth message sub-type of a granted authentication. */
const AUTHENTICATED = 2;

/** The Hocuspocus auth message a raw client sends to open the document at `address` with `token`. */
export function encodeAuthFrame(address: string, token: string): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, MessageType.Auth);
  encoding.writeVarUint(encoder, 0); // Token
  encoding.writeVarString(encoder, token);
  return encoding.toUint8Array(encoder);
}

/** What an auth reply from the server says (its address, its sub-type, whether granted); null for any other frame. */
export function authReplyOf(data: Uint8Array): { address: string; authType: number; granted: boolean } | null {
  const decoder = decoding.createDecoder(data);
  const address = decoding.readVarString(decoder);
  if (decoding.readVarUint(decoder) !== MessageType.Auth) return null;
  const authType = decoding.readVarUint(decoder);
  return { address, authType, granted: authType === AUTHENTICATED };
}

/** A raw socket with several sessions on one document (see `openSessions`). */
export interface SessionSocket {
  /** Sends a stateless JSON message on one session. */
  sendStateless(session: string, message: unknown): void;
  /**
   * Closes one session, as a provider closing its document does, and resolves once the server
   * answered that it closed it; the socket and its other sessions stay open.
   */
  closeSession(session: string): Promise<void>;
  /** Closes the socket and waits for it. */
  close(): Promise<void>;
}

/** The Close frame a provider sends when it closes its document at `address`. */
function encodeCloseFrame(address: string): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, MessageType.Close);
  return encoding.toUint8Array(encoder);
}

/**
 * One raw socket that opens the document `name` once per session, at the address
 * `name\0<session>`, as a session-aware provider sharing its socket does; resolves once every
 * session is authenticated with `token`.
 */
export async function openSessions(url: string, name: string, token: string, sessions: string[]): Promise<SessionSocket> {
  const ws = new WebSocket(url);
  const pending = new Set(sessions.map((session) => `${name}\0${session}`));
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('close', (code) => reject(new Error(`socket closed with ${code} before every session was authenticated`)));
    ws.on('open', () => {
      for (const address of pending) ws.send(encodeAuthFrame(address, token));
    });
    ws.on('message', (data: Buffer) => {
      const reply = authReplyOf(new Uint8Array(data));
      if (!reply?.granted) return;
      pending.delete(reply.address);
      if (pending.size === 0) resolve();
    });
  });
  ws.removeAllListeners('close');
  return {
    sendStateless: (session, message) => ws.send(encodeStatelessFrame(`${name}\0${session}`, message)),
    closeSession: (session) =>
      new Promise((resolve) => {
        const address = `${name}\0${session}`;
        ws.on('message', function onClosed(data: Buffer) {
          const frame = peekFrame(new Uint8Array(data));
          if (frame?.address !== address || frame.type !== MessageType.Close) return;
          ws.off('message', onClosed);
          resolve();
        });
        ws.send(encodeCloseFrame(address));
      }),
    close: () =>
      new Promise((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}

/** The participant id the server minted for a client that joined with the shared guest link (`session:participant`). */
export async function sessionParticipantOf(client: BoardClient): Promise<string> {
  const message = await eventually(() => client.messages.find((m) => m.type === 'session:participant'), 10_000);
  return String(message?.participant_id);
}
