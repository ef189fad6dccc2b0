import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { RequestHandler } from 'express';
import { errors, type FieldError } from '../errors.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Bodies are validated as sent: no coercion, so `"5"` is not a number. */
const bodyAjv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false, useDefaults: false });
/** Query strings only carry strings, so their schemas coerce `"true"` and `"10"`. */
const queryAjv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false, coerceTypes: true, useDefaults: true });
addFormats(bodyAjv);
addFormats(queryAjv);

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') return [path, error.params.missingProperty].filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties') return [path, error.params.additionalProperty].filter(Boolean).join('.');
  return path || '(body)';
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Turns ajv's errors into the spec's `message[]` and `details[]`. */
export function validationError(ajvErrors: ErrorObject[] | null | undefined, where: 'body' | 'query') {
  const details: FieldError[] = (ajvErrors ?? []).map((error) => ({ field: fieldOf(error), message: messageOf(error) }));
  const unique = details.filter((d, i) => details.findIndex((o) => o.field === d.field && o.message === d.message) === i);
  if (unique.length === 0) unique.push({ field: `(${where})`, message: 'is invalid' });
  return errors.badRequest(unique.map((d) => `${d.field} ${d.message}`), unique);
}

function compile(ajv: Ajv, schema: SchemaObject): ValidateFunction {
  return ajv.compile(schema);
}

/** Validates `req.body` against a JSON schema compiled once at route registration. */
export function validateBody(schema: SchemaObject): RequestHandler {
  const validate = compile(bodyAjv, schema);
  return (req, _res, next) => {
    const body: unknown = req.body === undefined ? {} : req.body;
    if (!validate(body)) return next(validationError(validate.errors, 'body'));
    req.body = body;
    next();
  };
}

/** Validates and coerces the query string; the result is left in `res.locals.query`. */
export function validateQuery(schema: SchemaObject): RequestHandler {
  const validate = compile(queryAjv, schema);
  return (req, res, next) => {
    const query = { ...(req.query as Record<string, unknown>) };
    if (!validate(query)) return next(validationError(validate.errors, 'query'));
    res.locals.query = query;
    next();
  };
}
