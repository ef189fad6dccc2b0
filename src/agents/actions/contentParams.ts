import { MAX_COORDINATE } from '../../boards/schemas.js';

/** The pieces the content actions' params schemas are built from, and the hints they all share. */

export const MAX_TEXT = 2_000;
export const MAX_LIST = 100;

export const text = { type: 'string', maxLength: MAX_TEXT };
export const textList = { type: 'array', maxItems: MAX_LIST, items: text };
export const textOrList = { anyOf: [text, textList] };
export const objectId = { type: 'string', minLength: 1, maxLength: 255 };
const coordinate = { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE };
export const position = { type: 'object', additionalProperties: false, required: ['x', 'y'], properties: { x: coordinate, y: coordinate } };
export const deliverOf = (...modes: string[]) => ({ type: 'string', enum: modes });
export const paramsOf = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties });

export const usesAi = { readOnly: false, destructive: false, idempotent: false, usesAi: true };

export function hasText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
