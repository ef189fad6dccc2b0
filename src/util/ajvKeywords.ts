import type { ErrorObject, FuncKeywordDefinition } from 'ajv';
import { FREE_JSON_LIMITS, findJsonViolation, STORED_JSON_LIMITS, type JsonLimits } from './jsonBounds.js';

/**
 * `freeJson` marks a free-form value: whatever its shape, it must stay within its bounds, so
 * nothing stored can break a reader later. `true`: a value that may enter a live board document
 * (an object's `data`, agent action parameters), within FREE_JSON_LIMITS like every document
 * value. `'stored'`: a value kept as a field of a record (`external_data`, component `props`),
 * within STORED_JSON_LIMITS (its depth; the request body bounds the rest).
 */
export const freeJsonKeyword: FuncKeywordDefinition = {
  keyword: 'freeJson',
  schemaType: ['boolean', 'string'],
  metaSchema: { enum: [true, false, 'stored'] },
  errors: true,
  validate: function freeJson(kind: boolean | 'stored', data: unknown, _schema?: unknown, context?: { instancePath: string }) {
    if (kind === false) return true;
    const limits: JsonLimits = kind === 'stored' ? STORED_JSON_LIMITS : FREE_JSON_LIMITS;
    const violation = findJsonViolation(data, limits);
    if (!violation) return true;
    const inside = violation.field === '(body)' ? '' : `/${violation.field.replace(/\./g, '/')}`;
    (freeJson as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      { keyword: 'freeJson', instancePath: `${context?.instancePath ?? ''}${inside}`, message: violation.message },
    ];
    return false;
  },
};
