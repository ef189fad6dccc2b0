import type { JsonSchema } from '../jsonSchema.js';

/** Shorthands for the response schemas: each says what the presenters write. */

export const isoTime: JsonSchema = { type: 'string', format: 'date-time' };
export const text: JsonSchema = { type: 'string' };
export const count: JsonSchema = { type: 'integer', minimum: 0 };
export const flag: JsonSchema = { type: 'boolean' };
export const url: JsonSchema = { type: 'string', format: 'uri' };
/** A JSON object whose members the API does not fix. */
export const anyObject: JsonSchema = { type: 'object' };

/** The value, or null. */
export function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/** One of the listed strings. */
export function oneOfValues(values: readonly string[]): JsonSchema {
  return { type: 'string', enum: [...values] };
}

/** An object with these properties; `required` lists those always present (default: all). */
export function record(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema {
  return { type: 'object', required, properties };
}

export function listOf(items: JsonSchema): JsonSchema {
  return { type: 'array', items };
}

/**
 * Every member of a string union, checked by the compiler both ways: a value outside the union
 * does not compile, nor does a list missing one (the domain types are the source of the enums).
 */
export function everyValue<T extends string>() {
  return <const V extends readonly T[]>(...values: V & ([T] extends [V[number]] ? unknown : 'a member of the union is missing')): readonly string[] =>
    values;
}
