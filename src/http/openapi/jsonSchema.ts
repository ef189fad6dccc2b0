import type { SchemaObject } from 'ajv';
import { FREE_JSON_LIMITS, STORED_JSON_LIMITS } from '../../util/jsonBounds.js';
import { JSON_BODY_LIMIT_BYTES } from '../jsonBody.js';

/** A JSON Schema 2020-12 object as OpenAPI 3.1 publishes it. */
export type JsonSchema = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const SUBSCHEMA = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
]);
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** What the ajv keyword `freeJson` (util/ajvKeywords.ts) enforces, in words, by its value: OpenAPI has no keyword for it. */
export const FREE_JSON_NOTES: Record<'true' | 'stored', string> = {
  true:
    `Free-form JSON that enters the board's live document, bounded like every document value: at most ${FREE_JSON_LIMITS.maxDepth} levels deep, ` +
    `${FREE_JSON_LIMITS.maxKeys.toLocaleString('en')} keys per object, ${FREE_JSON_LIMITS.maxArrayItems.toLocaleString('en')} items per array, ` +
    `${FREE_JSON_LIMITS.maxBytes / 1_048_576} MiB in all.`,
  stored: `Free-form JSON, at most ${STORED_JSON_LIMITS.maxDepth} levels deep; only the request body bounds its size (${JSON_BODY_LIMIT_BYTES / 1_048_576} MB).`,
};

/**
 * A route's ajv schema as an OpenAPI 3.1 Schema Object (JSON Schema 2020-12): a copy, with the
 * ajv-only keyword `freeJson` turned into a description, and local references (`#/$defs/…`)
 * pointed at where the copy is published (`at`, a JSON pointer such as
 * `#/components/schemas/Name`): in the document `#` is the document, not the schema.
 * Walked keyword by keyword, so a property that happens to be named `freeJson` or `$ref` is left alone.
 */
export function openApiSchema(schema: SchemaObject | JsonSchema | boolean, at = '#'): JsonSchema | boolean {
  if (typeof schema === 'boolean') return schema;
  const translated: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'freeJson') continue;
    translated[keyword] = translateKeyword(keyword, value, at);
  }
  if (schema.freeJson === true || schema.freeJson === 'stored') {
    const note = FREE_JSON_NOTES[schema.freeJson === true ? 'true' : 'stored'];
    translated.description = typeof schema.description === 'string' ? `${schema.description} ${note}` : note;
  }
  return translated;
}

function translateKeyword(keyword: string, value: unknown, at: string): unknown {
  if (SUBSCHEMA.has(keyword)) return Array.isArray(value) ? value.map((item) => subschema(item, at)) : subschema(value, at);
  if (SUBSCHEMA_LIST.has(keyword) && Array.isArray(value)) return value.map((item) => subschema(item, at));
  if (SUBSCHEMA_MAP.has(keyword) && isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, subschema(item, at)]));
  }
  if (keyword === '$ref' && typeof value === 'string' && value.startsWith('#')) return `${at}${value.slice(1)}`;
  return structuredClone(value);
}

function subschema(value: unknown, at: string): unknown {
  return typeof value === 'boolean' || isObject(value) ? openApiSchema(value, at) : structuredClone(value);
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A reference to a published schema. */
export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The subschema of a property of an object schema (to publish part of a request schema on its own). */
export function propertyOf(schema: SchemaObject, name: string): SchemaObject {
  const properties = (schema as { properties?: Record<string, SchemaObject> }).properties;
  const property = properties?.[name];
  if (!property) throw new Error(`the schema has no property "${name}"`);
  return property;
}
