/**
 * Bounds on JSON values a client sends, checked before anything is stored. A value nested
 * thousands of levels deep breaks every recursive reader after it (lib0's Yjs encoder, JSON
 * tools, the browser), and a lone UTF-16 surrogate or a NUL character breaks the database
 * drivers; both are refused at the edge, REST and socket alike, with the field named.
 *
 * The walk is iterative (no recursion, so no stack to exhaust) and linear in the value.
 */

/** The bounds one walk applies. */
export interface JsonLimits {
  /** Levels of objects and arrays; `{}` is one level, `{a:{}}` two. */
  maxDepth: number;
  /** Characters of one string (keys included); Infinity for none. */
  maxStringLength: number;
  /** Keys of one object; Infinity for none. */
  maxKeys: number;
  /** Items of one array; Infinity for none. */
  maxArrayItems: number;
  /** Approximate size of the whole value written as JSON, in bytes; Infinity for none. */
  maxBytes: number;
}

/**
 * Free-form values that may enter a live board document: an object's `data` (REST, agents),
 * and every value a socket writes into a board document. A value's size is what a document
 * pays for (every client receives it, every edit rewrites it), so it is bounded as a whole;
 * one string in it is bounded by that size only, not by a length of its own.
 */
export const FREE_JSON_LIMITS: JsonLimits = {
  maxDepth: 32,
  maxStringLength: Infinity,
  maxKeys: 1_000,
  maxArrayItems: 10_000,
  maxBytes: 1_048_576,
};

/**
 * Free-form values kept as a field of a stored record, never in a live document: a board's
 * `external_data` and `mock_external_data`, a pinned component's `props`. Only the request
 * body bounds their size and their counts (http/jsonBody.ts: 10 MB, its values counted before
 * parsing); their depth is bounded for the recursive readers that meet them later
 * (`JSON.stringify`, webhook receivers, components).
 */
export const STORED_JSON_LIMITS: JsonLimits = {
  maxDepth: FREE_JSON_LIMITS.maxDepth,
  maxStringLength: Infinity,
  maxKeys: Infinity,
  maxArrayItems: Infinity,
  maxBytes: Infinity,
};

/** Where a value breaks a bound, and which one. */
export interface JsonViolation {
  /** Dotted path from the value's root (`data.a.b`), shortened when deep. */
  field: string;
  message: string;
}

/** Path segments shown before a deep path is cut short. */
const SHOWN_PATH_SEGMENTS = 8;

/** A lone surrogate (not part of a pair), or a NUL character. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const NOT_STORABLE_TEXT = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\u0000/;

/** Why a string cannot be stored as text, or null. */
export function textProblem(text: string, maxLength: number): string | null {
  if (text.length > maxLength) return `is longer than ${maxLength} characters`;
  const bad = NOT_STORABLE_TEXT.exec(text);
  if (!bad) return null;
  return bad[0] === '\u0000' ? 'must not contain NUL characters' : 'is not valid Unicode text (lone UTF-16 surrogate)';
}

/** A value waiting to be walked; its path is rebuilt from the parent links only when reported. */
interface Pending {
  value: unknown;
  parent: Pending | null;
  key: string | number | null;
  depth: number;
}

/**
 * The first bound `value` breaks, or null. `root` prefixes reported paths (`data`). Depth and
 * size are reported at the root (the value as a whole is too deep or too big); the other
 * bounds at the offending member. Only JSON values are expected (what `JSON.parse` or a Yjs
 * `ContentAny` yields); anything else, such as a typed array, is refused as not JSON.
 */
export function findJsonViolation(value: unknown, limits: JsonLimits, root: readonly (string | number)[] = []): JsonViolation | null {
  const stack: Pending[] = [{ value, parent: null, key: null, depth: 0 }];
  let bytes = 0;
  const at = (node: Pending | null, message: string): JsonViolation => ({ field: showPath([...root, ...pathOf(node)]), message });
  const tooBig = () => at(null, `is larger than ${limits.maxBytes} bytes as JSON`);
  while (stack.length > 0) {
    const node = stack.pop()!;
    const current = node.value;
    if (current === null || typeof current === 'boolean') {
      bytes += 5;
      continue;
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return at(node, 'must be a finite number');
      bytes += 24;
      continue;
    }
    if (typeof current === 'string') {
      const problem = textProblem(current, limits.maxStringLength);
      if (problem) return at(node, problem);
      bytes += Buffer.byteLength(current, 'utf8') + 2;
      if (bytes > limits.maxBytes) return tooBig();
      continue;
    }
    if (typeof current !== 'object' || ArrayBuffer.isView(current)) return at(node, 'is not a JSON value');
    if (node.depth + 1 > limits.maxDepth) return at(null, `nests deeper than ${limits.maxDepth} levels`);
    const depth = node.depth + 1;
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayItems) return at(node, `has more than ${limits.maxArrayItems} items`);
      bytes += 2 + current.length;
      for (let index = current.length - 1; index >= 0; index -= 1) stack.push({ value: current[index], parent: node, key: index, depth });
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.maxKeys) return at(node, `has more than ${limits.maxKeys} keys`);
    bytes += 2;
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const key = keys[index]!;
      const keyProblem = textProblem(key, limits.maxStringLength);
      if (keyProblem) return at(node, `has a key that ${keyProblem}`);
      bytes += Buffer.byteLength(key, 'utf8') + 3;
      stack.push({ value: (current as Record<string, unknown>)[key], parent: node, key, depth });
    }
    if (bytes > limits.maxBytes) return tooBig();
  }
  return null;
}

function pathOf(node: Pending | null): (string | number)[] {
  const path: (string | number)[] = [];
  for (let current = node; current && current.key !== null; current = current.parent) path.push(current.key);
  return path.reverse();
}

function showPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(body)';
  const shown = path.slice(0, SHOWN_PATH_SEGMENTS).join('.');
  return path.length > SHOWN_PATH_SEGMENTS ? `${shown}…` : shown;
}
