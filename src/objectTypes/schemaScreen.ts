import type { FormatName } from 'ajv-formats';
import type { FieldError } from '../errors.js';
import { patternProblem } from './regexSafety.js';

/**
 * Refuses, before ajv compiles it, any schema that could hang or exhaust the validator
 * (ajv treats schemas as trusted code, as its own security notes warn; docs/security.md).
 * What the checks below do not cover, ajv's strict mode refuses at compile
 * time: unknown keywords, unknown formats, keywords without their type.
 */
export const SCHEMA_LIMITS = {
  /** JSON text of the schema, in bytes. */
  maxBytes: 64 * 1024,
  /** Nesting of the JSON document (objects and arrays). */
  maxDepth: 32,
  /** Subschemas, counting every `$ref` as the subschemas it points to. */
  maxSubschemas: 500,
  /** The `maxLength` every `pattern`, `format` and `patternProperties` needs beside it. */
  maxStringLength: 10_000,
  /** The `maxItems` every `uniqueItems` needs beside it (the check is quadratic). */
  maxUniqueItems: 1_000,
  /** Problems reported at most. */
  maxProblems: 20,
};

/** Formats from ajv-formats (fast mode) that schemas may use. */
export const ALLOWED_FORMATS: readonly FormatName[] = ['date-time', 'date', 'email', 'uri', 'uuid'];

/** Keys that reach prototypes in JavaScript: refused in schemas and in object data. */
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const SINGLE_SCHEMA = new Set(['additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'items']);
const SCHEMA_ARRAY = new Set(['allOf', 'anyOf', 'oneOf', 'items']);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);

type Json = Record<string, unknown>;

/** Every problem of a schema (at most SCHEMA_LIMITS.maxProblems); empty when it may be compiled. */
export function screenSchema(schema: unknown): FieldError[] {
  if (tooDeep(schema, 1)) return [{ field: 'schema', message: `nests deeper than ${SCHEMA_LIMITS.maxDepth} levels` }];
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > SCHEMA_LIMITS.maxBytes) return [{ field: 'schema', message: `is ${bytes} bytes long; the limit is ${SCHEMA_LIMITS.maxBytes}` }];
  const walker = new Walker(schema);
  walker.forbiddenKeys(schema, ['schema']);
  walker.visit(schema, ['schema'], [schema]);
  return walker.problems;
}

function tooDeep(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth > SCHEMA_LIMITS.maxDepth) return true;
  return Object.values(value).some((child) => tooDeep(child, depth + 1));
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Walks the schema as ajv will compile it: subschemas only, `$ref`s followed in place. */
class Walker {
  readonly problems: FieldError[] = [];
  private readonly seen = new Set<string>();
  private subschemas = 0;

  constructor(private readonly root: unknown) {}

  forbiddenKeys(value: unknown, path: string[]): void {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key)) this.report([...path, key], 'is not allowed as a key');
      else this.forbiddenKeys(child, [...path, key]);
    }
  }

  /** `targets` holds the subschemas entered through `$ref` on the way here (and the root). */
  visit(node: unknown, path: string[], targets: unknown[]): void {
    if (this.subschemas > SCHEMA_LIMITS.maxSubschemas) return;
    this.subschemas += 1;
    if (this.subschemas > SCHEMA_LIMITS.maxSubschemas) {
      this.report(['schema'], `has more than ${SCHEMA_LIMITS.maxSubschemas} subschemas (each $ref counts as what it points to)`);
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      this.keyword(node, key, value, at, path.length === 1);
      if (key === '$ref' && typeof value === 'string') this.reference(value, at, targets);
      else if (SINGLE_SCHEMA.has(key) && !Array.isArray(value)) this.visit(value, at, targets);
      else if (SCHEMA_ARRAY.has(key) && Array.isArray(value)) value.forEach((item, index) => this.visit(item, [...at, String(index)], targets));
      else if (SCHEMA_MAP.has(key) && isObject(value)) {
        for (const [name, child] of Object.entries(value)) if (!Array.isArray(child)) this.visit(child, [...at, name], targets);
      }
    }
  }

  /** The checks of one keyword of a subschema. */
  private keyword(node: Json, key: string, value: unknown, at: string[], isRoot: boolean): void {
    if (key === '$id') this.report(at, 'is not allowed: schemas are anonymous, use local references ("#/...")');
    else if (key === '$data' || (isObject(value) && !SCHEMA_MAP.has(key) && !SINGLE_SCHEMA.has(key) && '$data' in value)) {
      this.report(at, '$data references are not supported');
    } else if (key === '$schema' && (!isRoot || typeof value !== 'string' || !DRAFT_07.test(value))) {
      this.report(at, 'may only name draft-07 (http://json-schema.org/draft-07/schema#), at the root');
    } else if (key === '$ref' && (typeof value !== 'string' || !/^#(\/|$)/.test(value))) {
      this.report(at, 'must be a local reference ("#" or "#/..."); remote schemas are never loaded');
    } else if (key === 'pattern' && typeof value === 'string') {
      this.regex(value, at);
      this.bounded(node, 'maxLength', SCHEMA_LIMITS.maxStringLength, at);
    } else if (key === 'format') {
      if (typeof value !== 'string' || !(ALLOWED_FORMATS as readonly string[]).includes(value)) this.report(at, `must be one of: ${ALLOWED_FORMATS.join(', ')}`);
      this.bounded(node, 'maxLength', SCHEMA_LIMITS.maxStringLength, at);
    } else if (key === 'patternProperties' && isObject(value)) {
      for (const name of Object.keys(value)) this.regex(name, [...at, name]);
      const names = node.propertyNames;
      if (!isObject(names)) this.report(at, `needs "propertyNames" with a maxLength of at most ${SCHEMA_LIMITS.maxStringLength} beside it`);
      else this.bounded(names, 'maxLength', SCHEMA_LIMITS.maxStringLength, at, 'propertyNames.maxLength');
    } else if (key === 'uniqueItems' && value === true) {
      this.bounded(node, 'maxItems', SCHEMA_LIMITS.maxUniqueItems, at);
    }
  }

  private reference(ref: string, at: string[], targets: unknown[]): void {
    if (!/^#(\/|$)/.test(ref)) return;
    const pointer = pointerPath(ref);
    const target = resolve(this.root, pointer);
    if (target === undefined) this.report(at, `points to nothing (${ref})`);
    else if (targets.includes(target)) this.report(at, 'makes the schema recursive, which is not supported');
    else this.visit(target, ['schema', ...pointer], [...targets, target]);
  }

  private regex(pattern: string, at: string[]): void {
    const problem = patternProblem(pattern);
    if (problem) this.report(at, `"${pattern.slice(0, 100)}" ${problem}`);
  }

  private bounded(node: Json, keyword: string, limit: number, at: string[], name = keyword): void {
    const bound = node[keyword];
    if (typeof bound !== 'number' || bound > limit) this.report(at, `needs ${name} of at most ${limit} beside it`);
  }

  private report(path: string[], message: string): void {
    const field = path.join('.');
    const key = `${field}\u0000${message}`;
    if (this.seen.has(key) || this.problems.length >= SCHEMA_LIMITS.maxProblems) return;
    this.seen.add(key);
    this.problems.push({ field, message });
  }
}

/** The segments of a local JSON pointer reference (`#/a/b~1c` → `a`, `b/c`). */
function pointerPath(ref: string): string[] {
  const pointer = ref.slice(1);
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // Not percent-encoded: taken as written.
      }
      return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

function resolve(root: unknown, path: string[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Json)[segment];
  }
  return current;
}
