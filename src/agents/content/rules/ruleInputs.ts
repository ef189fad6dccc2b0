import type { BoardObject } from '../../../boards/boardObjects.js';
import type { ContentActionType, ContentOutputOf, ContentRequest } from '../contentTypes.js';
import { objectText } from '../textTools.js';

/**
 * What every rule reads its request through: the text of objects, bounded, and params of the
 * right type (a wrong type counts as absent), plus the few formatting helpers the rules share.
 */

/** One rule's answer; the engine adds the token count. */
export interface RuleAnswer<A extends ContentActionType> {
  output: ContentOutputOf<A>;
  reasoning: string;
}

/** Characters read from one object: enough for any note, bounded for pathological ones. */
const MAX_TEXT_READ = 10_000;
const MAX_LIST_PARAM = 100;

export function textOf(object: BoardObject): string {
  return objectText(object).slice(0, MAX_TEXT_READ);
}

/** The subject's text, else `params.text`. */
export function answerText(request: ContentRequest): string {
  return request.subject ? textOf(request.subject) : (stringParam(request.params, 'text') ?? '').slice(0, MAX_TEXT_READ);
}

export function stringParam(params: Record<string, unknown>, key: string): string | null {
  const value = params[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

export function stringListParam(params: Record<string, unknown>, key: string): string[] {
  const value = params[key];
  const list: unknown[] = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return list.filter((item): item is string => typeof item === 'string' && item.trim() !== '').slice(0, MAX_LIST_PARAM);
}

/** A number param clamped into [min, max]; `fallback` when absent or not a finite number. */
export function numberParam(params: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const value = params[key];
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

export const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
export const withoutFinalStop = (text: string) => text.trim().replace(/[.!?]+$/, '');
