import fc from 'fast-check';
import * as encoding from 'lib0/encoding';
import { describe, expect, it } from 'vitest';
import { encodeStatelessFrame, encodeSyncStatusFrame, encodeUpdateFrame, frameType, MessageType, peekFrame } from './wireFrames.js';

/** A frame of any type: an address (any length, session suffix included), a type, a body. */
function frame(address: string, type: number, body: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, address);
  encoding.writeVarUint(encoder, type);
  encoding.writeUint8Array(encoder, body);
  return encoding.toUint8Array(encoder);
}

describe('frameType', () => {
  it('reads the type peekFrame reads, for any address and type', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.nat(1_000), fc.uint8Array({ maxLength: 20 }), (address, type, body) => {
        const data = frame(address, type, body);
        expect(frameType(data)).toBe(type);
      }),
    );
    for (const data of [encodeSyncStatusFrame('board\0session', true), encodeUpdateFrame('a'.repeat(200), new Uint8Array([1, 2])), encodeStatelessFrame('b', { x: 1 })]) {
      expect(frameType(data)).toBe(peekFrame(data)!.type);
    }
    expect(frameType(encodeSyncStatusFrame('x'.repeat(130), false))).toBe(MessageType.SyncStatus);
  });

  it('answers -1 for a frame that ends inside its address or its type', () => {
    const data = frame('a'.repeat(200), 300, new Uint8Array());
    for (let length = 0; length < data.length; length += 1) expect(frameType(data.subarray(0, length))).toBe(-1);
    expect(frameType(data)).toBe(300);
  });
});
