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
  /** Characters of one string (keys included). */
  maxStringLength: number;
  /** Keys of one object. */
  maxKeys: number;
  /** Items of one array. */
  maxArrayItems: number;
  /** Approximate size of the whole value written as JSON, in bytes; Infinity for none. */
  maxBytes: number;
}

/**
 * Free-form values: an object's `data`, `external_data`, `mock_external_data`, component
 * `props`, provider `headers`, and every value a socket writes into a board document.
 */
export const FREE_JSON_LIMITS: JsonLimits = {
  maxDepth: 32,
  maxStringLength: 100_000,
  maxKeys: 1_000,
  maxArrayItems: 10_000,
  maxBytes: 1_048_576,
};

/**
 * A whole request body: a free-form value sits a few levels down (`initial_objects.3.data`),
 * and the body parser already caps the size (10 MB).
 */
export const REQUEST_BODY_LIMITS: JsonLimits = {
  maxDepth: FREE_JSON_LIMITS.maxDepth + 8,
  maxStringLength: FREE_JSON_LIMITS.maxStringLength,
  maxKeys: FREE_JSON_LIMITS.maxKeys,
  maxArrayItems: FREE_JSON_LIMITS.maxArrayItems,
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
const NOT_STORABLE_TEXT = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\u0000/;

/** Why a string cannot be stored as text, or null. */
export function textProblem(text: string, maxLength: number): string | null {
  if (text.length > maxLength) return `is longer than ${maxLength} characters`;
  const bad = NOT_STORABLE_TEXT.exec(text);
  if (!bad) return null;
  return bad[0] === '\u0000' ? 'must not contain NUL characters' : 'is not valid Unicode text (lone UTF-16 surrogate)';
}

interface Pending {
  value: unknown;
  path: readonly (string | number)[];
  depth: number;
}

/**
 * The first bound `value` breaks, or null. `root` prefixes reported paths (`data`).
 * Only JSON values are expected (what `JSON.parse` or a Yjs `ContentAny` yields); anything
 * else, such as a function or a typed array, is refused as not JSON.
 */
export function findJsonViolation(value: unknown, limits: JsonLimits, root: readonly (string | number)[] = []): JsonViolation | null {
  const stack: Pending[] = [{ value, path: root, depth: 0 }];
  let bytes = 0;
  const at = (path: readonly (string | number)[], message: string): JsonViolation => ({ field: showPath(path), message });
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (current === null || typeof current === 'boolean') {
      bytes += 5;
      continue;
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return at(path, 'must be a finite number');
      bytes += 24;
      continue;
    }
    if (typeof current === 'string') {
      const problem = textProblem(current, limits.maxStringLength);
      if (problem) return at(path, problem);
      bytes += Buffer.byteLength(current, 'utf8') + 2;
      if (bytes > limits.maxBytes) return at(root, `is larger than ${limits.maxBytes} bytes as JSON`);
      continue;
    }
    if (typeof current !== 'object' || current instanceof Uint8Array) return at(path, 'is not a JSON value');
    if (depth + 1 > limits.maxDepth) return at(path, `nests deeper than ${limits.maxDepth} levels`);
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayItems) return at(path, `has more than ${limits.maxArrayItems} items`);
      bytes += 2 + current.length;
      for (let index = current.length - 1; index >= 0; index -= 1) stack.push({ value: current[index], path: [...path, index], depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.maxKeys) return at(path, `has more than ${limits.maxKeys} keys`);
    bytes += 2;
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const key = keys[index]!;
      const keyProblem = textProblem(key, limits.maxStringLength);
      if (keyProblem) return at(path, `has a key that ${keyProblem}`);
      bytes += Buffer.byteLength(key, 'utf8') + 3;
      stack.push({ value: (current as Record<string, unknown>)[key], path: [...path, key], depth: depth + 1 });
    }
    if (bytes > limits.maxBytes) return at(root, `is larger than ${limits.maxBytes} bytes as JSON`);
  }
  return null;
}

function showPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(body)';
  const shown = path.slice(0, SHOWN_PATH_SEGMENTS).join('.');
  return path.length > SHOWN_PATH_SEGMENTS ? `${shown}…` : shown;
}
