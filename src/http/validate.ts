import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { RequestHandler } from 'express';
import { errors, type AppError, type FieldError } from '../errors.js';
import { fieldOf, messageOf } from '../util/ajvErrors.js';
import { freeJsonKeyword } from '../util/ajvKeywords.js';
import { findJsonViolation, textProblem, type JsonLimits } from '../util/jsonBounds.js';
import { lazy } from '../util/lazy.js';
import { readJsonBody } from './jsonBody.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Most problems one validation error lists; the rest are counted. */
export const MAX_VALIDATION_DETAILS = 100;
/** Longest query parameter value; ids and names in queries are far shorter. */
const MAX_QUERY_VALUE_LENGTH = 2_048;

/** Bodies are validated as sent: no coercion, so `"5"` is not a number. */
const bodyOptions = { strict: true, allowUnionTypes: true, strictRequired: false, useDefaults: false } as const;
const bodyAjv = lazy(() => withFreeJson(withFormats(new Ajv({ ...bodyOptions, allErrors: true }))));
/**
 * Stops at the first problem. Ajv checks an array's or object's size before its members, so
 * an oversized one is refused here without validating thousands of entries first.
 */
const firstErrorAjv = lazy(() => withFreeJson(withFormats(new Ajv({ ...bodyOptions, allErrors: false }))));
/** Query strings only carry strings, so their schemas coerce `"true"` and `"10"`. */
const queryAjv = lazy(() => withFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false, coerceTypes: true, useDefaults: true })));

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  return ajv;
}

function withFreeJson(ajv: Ajv): Ajv {
  return ajv.addKeyword(freeJsonKeyword);
}

/** Size keywords: when the first problem is one of these, it is the answer (see firstErrorAjv). */
const SIZE_KEYWORDS = new Set(['maxItems', 'maxProperties', 'maxLength', 'freeJson']);

/**
 * The API's 400 from a list of field problems: `message[]` and `details[]`, duplicates
 * dropped, at most MAX_VALIDATION_DETAILS of each and then a count. Linear in the problems,
 * so a body with thousands of bad entries costs no more than reading it.
 */
export function fieldErrors(problems: Iterable<FieldError>, where: 'body' | 'query'): AppError {
  const seen = new Set<string>();
  const details: FieldError[] = [];
  let more = 0;
  for (const problem of problems) {
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (details.length < MAX_VALIDATION_DETAILS) details.push(problem);
    else more += 1;
  }
  if (details.length === 0) details.push({ field: `(${where})`, message: 'is invalid' });
  const messages = details.map((d) => `${d.field} ${d.message}`);
  if (more > 0) messages.push(`…and ${more} more problems`);
  return errors.badRequest(messages, details);
}

/** Turns ajv's errors into the error body's `message[]` and `details[]`. */
export function validationError(ajvErrors: ErrorObject[] | null | undefined, where: 'body' | 'query'): AppError {
  return fieldErrors((ajvErrors ?? []).map((error) => ({ field: fieldOf(error), message: messageOf(error) })), where);
}

/**
 * A route's validator, compiled on the route's first request rather than at registration:
 * compiling every route's schemas (82 compilations) took 1.5 s and about 20 MiB of an idle
 * server's memory at start. A schema ajv refuses now fails its route's first request.
 */
function compile(ajv: () => Ajv, schema: SchemaObject): () => ValidateFunction {
  return lazy(() => ajv().compile(schema));
}

/**
 * What is checked of a whole body once its schema passed: text no database stores in any field
 * (NUL, lone surrogates), numbers JSON.parse made infinite (`1e400`), and a safety net on depth.
 * Its size and its counts were bounded before parsing (jsonBody.ts BODY_STRUCTURE_LIMITS), and
 * its free-form values by their schema (`freeJson`); no string is bounded by a length of its own.
 */
const BODY_LIMITS: JsonLimits = { maxDepth: 64, maxStringLength: Infinity, maxKeys: Infinity, maxArrayItems: Infinity, maxBytes: Infinity };

/**
 * Reads the JSON body (jsonBody.ts: only now, after the route's credential and access checks)
 * and validates it against a JSON schema compiled on the route's first request, then walks it
 * for what no schema should have to say (BODY_LIMITS). Ajv never descends into free-form values
 * (`freeJson` bounds them iteratively), and its errors are reported in linear time, so no body
 * can stall the loop. A missing body is validated as `{}`.
 */
export function validateBody(schema: SchemaObject): RequestHandler {
  const validator = compile(bodyAjv, schema);
  const firstErrorValidator = compile(firstErrorAjv, schema);
  return async (req, _res, next) => {
    const sent: unknown = req.body !== undefined ? req.body : await readJsonBody(req);
    // No body is an empty one; a body of `null` is not, and its schema refuses it.
    const body = sent === undefined ? {} : sent;
    const validateToFirstError = firstErrorValidator();
    if (!validateToFirstError(body)) {
      const first = validateToFirstError.errors ?? [];
      if (first.some((error) => SIZE_KEYWORDS.has(error.keyword))) return next(validationError(first, 'body'));
      const validate = validator();
      validate(body);
      return next(validationError(validate.errors, 'body'));
    }
    const violation = findJsonViolation(body, BODY_LIMITS);
    if (violation) return next(fieldErrors([violation], 'body'));
    req.body = body;
    next();
  };
}

/** Reads a JSON body without a schema of its own (MCP's JSON-RPC messages), for a handler that checks it itself. */
export const readJson: RequestHandler = async (req, _res, next) => {
  req.body ??= await readJsonBody(req);
  next();
};

/** Validates and coerces the query string; the result is left in `res.locals.query`. */
export function validateQuery(schema: SchemaObject): RequestHandler {
  const validator = compile(queryAjv, schema);
  return (req, res, next) => {
    const validate = validator();
    const query = { ...(req.query as Record<string, unknown>) };
    const problems = queryTextProblems(query);
    if (problems.length > 0) return next(fieldErrors(problems, 'query'));
    if (!validate(query)) return next(validationError(validate.errors, 'query'));
    res.locals.query = query;
    next();
  };
}

function queryTextProblems(query: Record<string, unknown>): FieldError[] {
  const problems: FieldError[] = [];
  for (const [name, value] of Object.entries(query)) {
    for (const text of Array.isArray(value) ? value : [value]) {
      const problem = typeof text === 'string' ? textProblem(text, MAX_QUERY_VALUE_LENGTH) : null;
      if (problem) problems.push({ field: name, message: problem });
    }
  }
  return problems;
}
