import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { encodeUpdateFrame, MessageType } from '../src/realtime/wireFrames.js';

/** A sender: it changes its own object at a fixed rate, stamping the send time into it. */
export interface LoadClient {
  /** Resolves once the client can send (synced, or authenticated for a lite client). */
  ready: Promise<void>;
  sendUpdate(sequence: number): void;
  /** Acknowledgements (SyncStatus) received: updates the server applied. */
  acks(): number;
  close(): void;
}

const AUTH_AUTHENTICATED = 2;

/** The object a client writes, and the Yjs update of one change to it. */
function objectWriter(id: string) {
  const doc = new Y.Doc();
  const fields = new Y.Map<unknown>([
    ['id', id],
    ['type', 'bench'],
    ['data', { seq: 0, t: 0 }],
    ['position', { x: 0, y: 0 }],
    ['created_at', new Date().toISOString()],
    ['created_by', id],
  ]);
  let pending: Uint8Array[] = [];
  doc.on('update', (update: Uint8Array) => pending.push(update));
  doc.getMap('objects').set(id, fields);
  return {
    doc,
    fields,
    /** Changes the object and returns the updates that made (the first call includes the creation). */
    change(sequence: number): Uint8Array {
      fields.set('data', { seq: sequence, t: performance.now() });
      const update = pending.length === 1 ? pending[0]! : Y.mergeUpdates(pending);
      pending = [];
      return update;
    },
  };
}

/**
 * A lite client: a raw socket speaking just enough of the Hocuspocus protocol to send
 * real Yjs updates; it drops what it receives (the server's work per delivery is unchanged).
 */
export function liteClient(url: string, documentName: string, token: string, id: string): LoadClient {
  const ws = new WebSocket(url);
  const writer = objectWriter(id);
  let acks = 0;
  const ready = new Promise<void>((resolve, reject) => {
    ws.on('open', () => {
      const encoder = encoding.createEncoder();
      encoding.writeVarString(encoder, documentName);
      encoding.writeVarUint(encoder, MessageType.Auth);
      encoding.writeVarUint(encoder, 0);
      encoding.writeVarString(encoder, token);
      encoding.writeVarString(encoder, '4.8.0');
      ws.send(encoding.toUint8Array(encoder));
    });
    // Frames start with the document name (varuint length + bytes), then the message type.
    // The generator receives ~100,000 frames a second at 1,000 clients, so it peeks at the
    // type byte instead of decoding the name (types and short names are one-byte varuints).
    const typeAt = 1 + Buffer.byteLength(documentName);
    ws.on('message', (data: Buffer) => {
      const type = data[typeAt];
      if (type === MessageType.SyncStatus) acks += 1;
      if (type === MessageType.Auth && data[typeAt + 1] === AUTH_AUTHENTICATED) resolve();
    });
    ws.on('error', reject);
    ws.on('close', (code) => reject(new Error(`lite client closed with ${code}`)));
  });
  return {
    ready,
    sendUpdate(sequence) {
      if (ws.readyState === ws.OPEN) ws.send(encodeUpdateFrame(documentName, writer.change(sequence)));
    },
    acks: () => acks,
    close: () => ws.close(),
  };
}

/**
 * A real provider client; it also records the fan-out latency of every update it receives
 * (and, given `arrivals`, when each arrived, on the same `performance.now()` clock; given
 * `senders`, the id of the client whose object changed).
 */
export function realClient(url: string, documentName: string, token: string, id: string, latencies: number[], arrivals?: number[], senders?: string[]): LoadClient {
  const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket });
  const doc = new Y.Doc();
  let acks = 0;
  const provider = new HocuspocusProvider({ websocketProvider: socket, name: documentName, document: doc, token });
  provider.attach();
  let unsynced = 0;
  provider.on('unsyncedChanges', ({ number }: { number: number }) => {
    if (number < unsynced) acks += unsynced - number;
    unsynced = number;
  });
  const objects = doc.getMap<Y.Map<unknown>>('objects');
  objects.observeDeep((events, transaction) => {
    if (transaction.local) return;
    const now = performance.now();
    for (const event of events) {
      const target = event.path.length === 0 ? null : objects.get(String(event.path[0]));
      const data = target?.get('data') as { t?: number } | undefined;
      if (!data?.t) continue;
      latencies.push(now - data.t);
      arrivals?.push(now);
      senders?.push(String(event.path[0]));
    }
  });
  let mine: Y.Map<unknown> | null = null;
  return {
    ready: new Promise<void>((resolve) => provider.on('synced', () => resolve())),
    sendUpdate(sequence) {
      if (!mine) {
        mine = new Y.Map<unknown>([['id', id], ['type', 'bench'], ['data', { seq: 0, t: 0 }], ['position', { x: 0, y: 0 }], ['created_at', new Date().toISOString()], ['created_by', id]]);
        objects.set(id, mine);
      }
      mine.set('data', { seq: sequence, t: performance.now() });
    },
    acks: () => acks,
    close() {
      provider.destroy();
      socket.destroy();
    },
  };
}
