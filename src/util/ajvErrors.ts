import type { ErrorObject } from 'ajv';

/**
 * How one ajv error is named and worded in `details[]`. Shared by the HTTP edge (request
 * bodies and queries) and domains that validate documents of their own (component manifests),
 * so a field is reported the same way wherever it was checked.
 */

/** The dotted path of the field an error is about (`dimensions.width`); `(body)` for the root. */
export function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (error.keyword === 'required') return [path, error.params.missingProperty].filter(Boolean).join('.');
  if (error.keyword === 'additionalProperties') return [path, error.params.additionalProperty].filter(Boolean).join('.');
  return path || '(body)';
}

/** The problem, worded to follow the field name (`is required`, `must be one of: a, b`). */
export function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}
