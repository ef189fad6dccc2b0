import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/** Hocuspocus message types (packages/server/src/types.ts `MessageType`). */
export const MessageType = {
  Sync: 0,
  Awareness: 1,
  Auth: 2,
  QueryAwareness: 3,
  SyncReply: 4,
  Stateless: 5,
  BroadcastStateless: 6,
  Close: 7,
  SyncStatus: 8,
  Ping: 9,
  Pong: 10,
} as const;

/** y-protocols sync sub-types. */
export const SyncStep = { Step1: 0, Step2: 1, Update: 2 } as const;

/** What the header of a Hocuspocus frame says. */
export interface FrameHeader {
  /** The document name, without the optional `\0sessionId` suffix. */
  documentName: string;
  /** The raw address as sent (document name, possibly with a session suffix). */
  address: string;
  type: number;
  /** For Sync frames, the y-protocols sub-type. */
  syncStep?: number;
  /** For Sync update frames, the Yjs update itself. */
  update?: Uint8Array;
  /** For SyncStatus frames, whether the update was saved. */
  saved?: boolean;
}

/**
 * A frame's message type, read without decoding its address (no string, no header object);
 * -1 for a frame that ends too soon. Every frame a socket is sent goes through this once.
 */
export function frameType(data: Uint8Array): number {
  // The address length (a varuint), the address, then the type (a varuint).
  const addressAt = varUintEnd(data, 0);
  if (addressAt < 0) return -1;
  const typeAt = addressAt + varUintAt(data, 0);
  return varUintEnd(data, typeAt) < 0 ? -1 : varUintAt(data, typeAt);
}

/** The offset just past the varuint starting at `at`; -1 if the data ends inside it (or it is longer than 8 bytes). */
function varUintEnd(data: Uint8Array, at: number): number {
  for (let index = at; index < data.length && index - at < 8; index += 1) if (data[index]! < 0x80) return index + 1;
  return -1;
}

/** The value of the varuint starting at `at` (varUintEnd checked it is complete). */
function varUintAt(data: Uint8Array, at: number): number {
  let value = 0;
  for (let index = at, shift = 0; ; index += 1, shift += 7) {
    const byte = data[index]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
  }
}

/** Reads a frame's header; null for a frame that cannot be decoded. */
export function peekFrame(data: Uint8Array): FrameHeader | null {
  try {
    const decoder = decoding.createDecoder(data);
    const address = decoding.readVarString(decoder);
    const type = decoding.readVarUint(decoder);
    const header: FrameHeader = { address, documentName: address.split('\0')[0] ?? address, type };
    if (type === MessageType.Sync || type === MessageType.SyncReply) {
      header.syncStep = decoding.readVarUint(decoder);
      if (header.syncStep === SyncStep.Update) header.update = decoding.readVarUint8Array(decoder);
    } else if (type === MessageType.SyncStatus) {
      header.saved = decoding.readVarUint(decoder) === 1;
    }
    return header;
  } catch {
    return null;
  }
}

/** A Sync update frame carrying `update` for the document at `address`. */
export function encodeUpdateFrame(address: string, update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, MessageType.Sync);
  encoding.writeVarUint(encoder, SyncStep.Update);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** A SyncStatus frame (the server's acknowledgement of one update). */
export function encodeSyncStatusFrame(address: string, saved: boolean): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, MessageType.SyncStatus);
  encoding.writeVarUint(encoder, saved ? 1 : 0);
  return encoding.toUint8Array(encoder);
}

/** A stateless frame carrying a JSON payload for the document at `address`. */
export function encodeStatelessFrame(address: string, payload: unknown): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, MessageType.Stateless);
  encoding.writeVarString(encoder, JSON.stringify(payload));
  return encoding.toUint8Array(encoder);
}
