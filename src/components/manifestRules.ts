import type { FieldError } from '../errors.js';
import type { Access, JsonValue, ValueSpec } from './manifestTypes.js';

export type { Access, ValueSpec };

/**
 * The rules a manifest sets on values and roles, with no dependency beyond types: the server
 * checks props, storage values and defaults with them, and the browser client imports the same
 * functions (so the page answers a component as the server would judge it).
 */

/** Why `value` does not fit `spec`, worded as ajv words it (propsSchema checks the same later; component storage checks values with it). */
export function valueProblem(value: JsonValue, spec: ValueSpec, field: string): FieldError | null {
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (actual !== spec.type) return { field, message: `must be ${spec.type}` };
  if (spec.enum && !spec.enum.includes(value as string | number)) return { field, message: `must be one of: ${spec.enum.join(', ')}` };
  if (typeof value === 'number' && spec.minimum !== undefined && value < spec.minimum) return { field, message: `must be >= ${spec.minimum}` };
  if (typeof value === 'number' && spec.maximum !== undefined && value > spec.maximum) return { field, message: `must be <= ${spec.maximum}` };
  if (Array.isArray(value) && spec.items) {
    for (const [index, item] of value.entries()) {
      const problem = valueProblem(item, spec.items, `${field}.${index}`);
      if (problem) return problem;
    }
  }
  return null;
}

/** Whether a role's grants (`permissions.storage.guest`, …) include `access` (`*`: everything). */
export function grants(granted: readonly Access[], access: 'read' | 'write'): boolean {
  return granted.includes(access) || granted.includes('*');
}
