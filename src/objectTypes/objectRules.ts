import * as Y from 'yjs';
import type { FieldError } from '../errors.js';
import type { CompiledSchema } from './schemaCompiler.js';
import { FORBIDDEN_KEYS, SCHEMA_LIMITS } from './schemaScreen.js';

/**
 * The rules every board object must pass, over REST and over sockets alike: no key that
 * reaches a prototype anywhere in it, and for a registered type, `data` that matches the
 * type's schema. An object may be a plain value (a REST body, a JSON value in the document)
 * or a Y.Map holding its fields.
 */
export function objectProblems(object: unknown, types: ReadonlyMap<string, CompiledSchema>, prefix = ''): FieldError[] {
  const keys = forbiddenKeyProblems(object, prefix);
  if (keys.length > 0) return keys;
  const fields = (object instanceof Y.Map ? object.toJSON() : object) as { type?: unknown; data?: unknown } | null;
  if (typeof fields !== 'object' || fields === null || typeof fields.type !== 'string') return [];
  const schema = types.get(fields.type);
  return schema ? schema.problems(fields.data, join(prefix, 'data')) : [];
}

/** The forbidden keys as bytes: Yjs updates carry map keys and JSON keys as plain UTF-8 text. */
const FORBIDDEN_KEY_BYTES = [...FORBIDDEN_KEYS].map((key) => Buffer.from(key, 'utf8'));

/**
 * Whether an encoded Yjs update might write a forbidden key. False means it cannot, since
 * every key it writes appears in its bytes as text (true may be a false alarm, such as the
 * word in a text value, which the full check then clears).
 */
export function mentionsForbiddenKey(update: Uint8Array): boolean {
  const bytes = Buffer.from(update.buffer, update.byteOffset, update.byteLength);
  return FORBIDDEN_KEY_BYTES.some((key) => bytes.includes(key));
}

/**
 * Forbidden keys anywhere in a value, without recursion (data may nest deeply). A plain
 * object whose prototype is not Object's was decoded from a `__proto__` key (JSON decoders
 * assign keys, and assigning `__proto__` sets the prototype): it counts as that key.
 */
function forbiddenKeyProblems(value: unknown, prefix: string): FieldError[] {
  const problems: FieldError[] = [];
  const pending: Array<[unknown, string]> = [[value, prefix]];
  while (pending.length > 0 && problems.length < SCHEMA_LIMITS.maxProblems) {
    const [node, path] = pending.pop()!;
    for (const [key, child] of entriesOf(node)) {
      const field = join(path, key);
      if (FORBIDDEN_KEYS.has(key)) problems.push({ field, message: 'is not allowed as a key' });
      else pending.push([child, field]);
    }
  }
  return problems;
}

function entriesOf(node: unknown): Array<[string, unknown]> {
  if (node instanceof Y.Map) return [...node.entries()];
  if (node instanceof Y.Array) return node.toArray().map((item, index) => [String(index), item]);
  if (Array.isArray(node)) return node.map((item, index) => [String(index), item]);
  if (typeof node !== 'object' || node === null || node instanceof Y.AbstractType || ArrayBuffer.isView(node)) return [];
  const entries = Object.keys(node).map((key): [string, unknown] => [key, (node as Record<string, unknown>)[key]]);
  const prototype = Object.getPrototypeOf(node) as unknown;
  if (prototype !== Object.prototype && prototype !== null) entries.push(['__proto__', prototype]);
  return entries;
}

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}
