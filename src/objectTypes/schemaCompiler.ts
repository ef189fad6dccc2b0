import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../errors.js';
import { ALLOWED_FORMATS, SCHEMA_LIMITS } from './schemaScreen.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Compiled schemas stay usable after the Ajv instance that made them is dropped, but an
 * instance keeps a little of every schema it ever compiled (a known ajv trait): a fresh one is
 * started after this many compiles.
 */
const COMPILES_PER_INSTANCE = 500;

/** A registered type's schema, compiled once, checking `data` of objects. */
export interface CompiledSchema {
  /** Why `data` breaks the schema (at most 20 problems), fields named from `field` (`data`); empty when valid. */
  problems(data: unknown, field: string): FieldError[];
}

/**
 * The one Ajv setup for untrusted schemas: strict, fail-fast (allErrors would defeat the
 * maxLength and maxItems guards that screening demands), no $data, no coercion, no defaults,
 * nothing ever loaded from elsewhere, and only the allowed formats in ajv-formats' fast mode.
 */
function createAjv(): Ajv {
  const ajv = new Ajv({
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: false,
    $data: false,
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
    ownProperties: true,
    loadSchema: undefined,
    // Halves compile time of large schemas (registration runs on the event loop); the
    // generated code is barely slower.
    code: { optimize: false },
  });
  addFormats(ajv, { mode: 'fast', formats: [...ALLOWED_FORMATS] });
  return ajv;
}

/** Compiles screened schemas (objectTypes/schemaScreen.ts) on one Ajv instance at a time. */
export class SchemaCompiler {
  private ajv = createAjv();
  private compiles = 0;
  private sequence = 0;

  /** Compiles a schema; throws ajv's error when it is not a valid, strict draft-07 schema. */
  compile(schema: SchemaObject): CompiledSchema {
    if (this.compiles >= COMPILES_PER_INSTANCE) {
      this.ajv = createAjv();
      this.compiles = 0;
    }
    this.compiles += 1;
    const ajv = this.ajv;
    const key = `urn:object-type:${(this.sequence += 1)}`;
    const registered = [key];
    ajv.addSchema(schema, key);
    try {
      const validate = ajv.getSchema(key)!;
      // One fail-fast validator per top-level property, compiled as a fragment of the whole
      // schema (its `#/...` references still resolve), so a failure can name every field.
      const fields = new Map<string, ValidateFunction>();
      const properties = schema.properties as Record<string, unknown> | undefined;
      for (const name of Object.keys(properties ?? {})) {
        const fragment = `${key}#/properties/${encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'))}`;
        registered.push(fragment);
        const field = ajv.getSchema(fragment);
        if (field) fields.set(name, field);
      }
      const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
      return new Compiled(validate, fields, required);
    } finally {
      for (const registeredKey of registered) ajv.removeSchema(registeredKey);
    }
  }
}

class Compiled implements CompiledSchema {
  constructor(
    private readonly validate: ValidateFunction,
    private readonly fields: Map<string, ValidateFunction>,
    private readonly required: string[],
  ) {}

  problems(data: unknown, field: string): FieldError[] {
    if (this.validate(data)) return [];
    const first = this.validate.errors?.[0];
    const found: FieldError[] = [];
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
      const object = data as Record<string, unknown>;
      for (const [name, validate] of this.fields) {
        if (Object.hasOwn(object, name) && !validate(object[name])) found.push(fieldError(validate.errors?.[0], `${field}.${name}`));
      }
      for (const name of this.required) {
        if (!Object.hasOwn(object, name)) found.push({ field: `${field}.${name}`, message: `must have required property '${name}'` });
      }
    }
    const firstError = fieldError(first, field);
    if (!found.some((problem) => problem.field === firstError.field && problem.message === firstError.message)) found.unshift(firstError);
    return found.slice(0, SCHEMA_LIMITS.maxProblems);
  }
}

/** An ajv error as a `details[]` entry: the failing field as a dotted path under `base`. */
function fieldError(error: ErrorObject | undefined, base: string): FieldError {
  if (!error) return { field: base, message: 'is invalid' };
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return { field: [base, ...segments].join('.'), message: error.message ?? 'is invalid' };
}
