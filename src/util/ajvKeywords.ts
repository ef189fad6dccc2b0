import type { ErrorObject, FuncKeywordDefinition } from 'ajv';
import { FREE_JSON_LIMITS, findJsonViolation } from './jsonBounds.js';

/**
 * `freeJson: true` marks a free-form value (an object's `data`, `external_data`, component
 * `props`…): whatever its shape, it must stay within FREE_JSON_LIMITS (depth, lengths, keys,
 * items, size), so nothing stored can break a reader later.
 */
export const freeJsonKeyword: FuncKeywordDefinition = {
  keyword: 'freeJson',
  schemaType: 'boolean',
  errors: true,
  validate: function freeJson(enabled: boolean, data: unknown, _schema?: unknown, context?: { instancePath: string }) {
    if (!enabled) return true;
    const violation = findJsonViolation(data, FREE_JSON_LIMITS);
    if (!violation) return true;
    const inside = violation.field === '(body)' ? '' : `/${violation.field.replace(/\./g, '/')}`;
    (freeJson as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      { keyword: 'freeJson', instancePath: `${context?.instancePath ?? ''}${inside}`, message: violation.message },
    ];
    return false;
  },
};
