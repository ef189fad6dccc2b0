import { ERROR_KINDS } from '../../errors.js';
import { schemaRef, type JsonSchema } from './jsonSchema.js';
import type { HeaderSpec } from './operationSpec.js';

/**
 * The API's error body (http/errorBody.ts), published once per status of the error catalogue
 * (errors.ts `ERROR_KINDS`) with that status's `statusCode` and `error` fixed, plus the
 * top-level fields some refusals add (`AppError.extra`).
 */

const quotaFields = {
  quotaType: { type: 'string', description: 'The quota (see `GET /quota`).' },
  current: { type: 'number' },
  limit: { type: 'number' },
  upgradeUrl: { type: 'string', format: 'uri', description: 'Where the plan is raised.' },
};

/** Top-level fields beyond the common ones, by status. */
const EXTRA_FIELDS: Record<number, { properties: Record<string, JsonSchema>; required: string[] }> = {
  400: {
    properties: {
      validTypes: { type: 'array', items: { type: 'string' }, description: 'Only on `GET /quota/{type}` with an unknown type: the known types.' },
    },
    required: [],
  },
  402: { properties: quotaFields, required: Object.keys(quotaFields) },
  // A plan that lacks a feature altogether (its limit is "none") is refused with 403 and the same fields.
  403: { properties: quotaFields, required: [] },
  415: {
    properties: { acceptedTypes: { type: 'array', items: { type: 'string' }, description: 'The media types the operation takes.' } },
    required: ['acceptedTypes'],
  },
  429: { properties: { retryAfter: { type: 'integer', minimum: 0, description: 'Seconds to wait; repeated as `Retry-After`.' } }, required: ['retryAfter'] },
};

export const RATE_LIMIT_HEADERS: Record<string, HeaderSpec> = {
  'X-RateLimit-Limit': { description: 'Calls allowed in the tightest rate-limit window (API-key calls).', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Calls left in that window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When that window starts again, in Unix seconds.', schema: { type: 'integer' } },
};

const EXTRA_HEADERS: Record<number, Record<string, HeaderSpec>> = {
  429: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } }, ...RATE_LIMIT_HEADERS },
};

/** The generic error body and its `details[]` item. */
export const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  FieldError: {
    type: 'object',
    required: ['field', 'message'],
    properties: { field: { type: 'string', description: 'Dotted path of the field, or `(body)` / `(query)`.' }, message: { type: 'string' } },
  },
  Error: errorBody({ type: 'integer', minimum: 400, maximum: 599 }, { type: 'string' }, { properties: {}, required: [] }),
};

function errorBody(statusCode: JsonSchema, error: JsonSchema, extra: { properties: Record<string, JsonSchema>; required: string[] }): JsonSchema {
  return {
    type: 'object',
    required: ['statusCode', 'message', 'error', 'timestamp', 'path', ...extra.required],
    properties: {
      statusCode,
      message: {
        description: 'What went wrong; a list of problems for validation errors.',
        oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
      },
      error,
      details: { type: 'array', items: schemaRef('FieldError'), description: 'The fields at fault (validation errors).' },
      timestamp: { type: 'string', format: 'date-time' },
      path: { type: 'string', description: 'The request path, without its query.' },
      ...extra.properties,
    },
  };
}

/** The name a status's response is published under in components.responses (`Not Found` → `NotFound`). */
export function errorResponseName(status: number): string {
  const kind = Object.values(ERROR_KINDS).find((candidate) => candidate.statusCode === status);
  if (!kind) throw new Error(`no error kind answers ${status}`);
  return kind.error.replace(/[^A-Za-z]/g, '');
}

/** components.responses: one per status of the error catalogue. */
export function errorResponses(): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  for (const { statusCode, error } of Object.values(ERROR_KINDS)) {
    const schema = errorBody({ type: 'integer', const: statusCode }, { type: 'string', const: error }, EXTRA_FIELDS[statusCode] ?? { properties: {}, required: [] });
    responses[errorResponseName(statusCode)] = {
      description: error,
      ...(EXTRA_HEADERS[statusCode] ? { headers: EXTRA_HEADERS[statusCode] } : {}),
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}
