import { CONDITION_ROOTS, FORBIDDEN_KEYS } from '../conditions.js';

/**
 * `{{path}}` placeholders in the string params of triggers and schedules, filled from the
 * event when the action runs: `"{{participant.user_id}} has been idle for {{idleSeconds}} s"`.
 * Paths start at the names conditions read (`event`, `object`, `participant`, `frame`,
 * `idleSeconds`) and walk own properties only; an unknown path fills in as empty text.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const ROOTS: ReadonlySet<string> = new Set(CONDITION_ROOTS);
/** A filled string never grows past this (a note's text, not a document). */
const MAX_FILLED_LENGTH = 2_000;
/** Placeholders filled per string; the rest stay as written (no string can make the server build megabytes). */
const MAX_PLACEHOLDERS = 20;

/** A copy of `params` with every placeholder filled; nothing else changes. */
export function fillTemplates(params: Record<string, unknown>, scope: Record<string, unknown>): Record<string, unknown> {
  return fill(params, scope, 0) as Record<string, unknown>;
}

function fill(value: unknown, scope: Record<string, unknown>, depth: number): unknown {
  // Params were bounded at create (freeJson): depth 32.
  if (depth > 40) return value;
  if (typeof value === 'string') return value.includes('{{') ? fillString(value, scope) : value;
  if (Array.isArray(value)) return value.map((item) => fill(item, scope, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, scope, depth + 1)]));
  }
  return value;
}

function fillString(text: string, scope: Record<string, unknown>): string {
  let filled = 0;
  let length = 0;
  const result = text.slice(0, MAX_FILLED_LENGTH * 4).replace(PLACEHOLDER, (match, path: string) => {
    if (filled >= MAX_PLACEHOLDERS || length >= MAX_FILLED_LENGTH) return match;
    filled += 1;
    const value = valueText(read(path.split('.'), scope)).slice(0, MAX_FILLED_LENGTH);
    length += value.length;
    return value;
  });
  return result.slice(0, MAX_FILLED_LENGTH);
}

function valueText(value: unknown): string {
  if (value === undefined || value === null) return '';
  // Scope values are JSON data: objects and arrays, or primitives.
  return typeof value === 'object' ? JSON.stringify(value) : `${value as string | number | boolean}`;
}

function read(path: string[], scope: Record<string, unknown>): unknown {
  if (!ROOTS.has(path[0]!)) return undefined;
  let current: unknown = scope;
  for (const key of path) {
    if (FORBIDDEN_KEYS.has(key) || current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
