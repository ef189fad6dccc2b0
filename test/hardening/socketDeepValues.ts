import * as Y from 'yjs';

/**
 * Values nested thousands of levels deep, for tests. Encoding or decoding one with lib0 on a
 * normal stack overflows it, in the test as in the server, so updates carrying one are
 * written by hand: a Yjs update is made with PLACEHOLDER as the value, and the bytes lib0
 * writes for that string are replaced by the bytes of the deep value (the v1 update format
 * writes a value's bytes as they are, without a length in front).
 */
export const PLACEHOLDER = 'deep-value-placeholder-5c1e9a';

/** lib0 `writeAny` tags: an object, a string. */
const OBJECT_TAG = 118;
const STRING_TAG = 119;

/** `{a: {a: … 'x'}}`, `depth` objects deep, built without recursion. */
export function deepValue(depth: number): Record<string, unknown> {
  let value: unknown = 'x';
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value as Record<string, unknown>;
}

/** The bytes lib0's `writeAny` writes for `deepValue(depth)`. */
export function deepValueBytes(depth: number): Uint8Array {
  const bytes = new Uint8Array(depth * 4 + 3);
  for (let level = 0; level < depth; level += 1) bytes.set([OBJECT_TAG, 1, 1, 0x61], level * 4);
  bytes.set([STRING_TAG, 1, 0x78], depth * 4);
  return bytes;
}

/** `update` (v1) with its one PLACEHOLDER value replaced by `deepValue(depth)`. */
export function withDeepValue(update: Uint8Array, depth: number): Uint8Array {
  const marker = Buffer.concat([Buffer.from([STRING_TAG, PLACEHOLDER.length]), Buffer.from(PLACEHOLDER)]);
  const bytes = Buffer.from(update);
  const at = bytes.indexOf(marker);
  if (at < 0 || bytes.indexOf(marker, at + 1) >= 0) throw new Error('the update must hold the placeholder exactly once');
  return new Uint8Array(Buffer.concat([bytes.subarray(0, at), deepValueBytes(depth), bytes.subarray(at + marker.length)]));
}

/** Whether `bytes` hold a run of more than `levels` nested one-key objects (a deep value's trace). */
export function carriesDeepValue(bytes: Uint8Array, levels = 32): boolean {
  return Buffer.from(bytes).includes(Buffer.from(deepValueBytes(levels + 1).subarray(0, (levels + 1) * 4)));
}

/**
 * The update that `change` makes to a copy of `doc` (so `doc` itself never holds what it
 * writes), with PLACEHOLDER replaced by a value `depth` levels deep.
 */
export function deepUpdateOn(doc: Y.Doc, depth: number, change: (copy: Y.Doc) => void): Uint8Array {
  const copy = new Y.Doc();
  Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
  const before = Y.encodeStateVector(copy);
  change(copy);
  const update = Y.encodeStateAsUpdate(copy, before);
  copy.destroy();
  return withDeepValue(update, depth);
}
