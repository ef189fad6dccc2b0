import { Ajv } from 'ajv';
import { expect } from 'vitest';
import type { BoardObject } from '../../src/boards/boardObjects.js';
import { CONTENT_OUTPUT_SCHEMAS, type ContentActionType, type ContentOutputOf, type ContentRequest } from '../../src/agents/content/contentTypes.js';
import { createRuleEngine } from '../../src/agents/content/ruleEngine.js';

/** What the rule engine's tests share: the engine, requests and objects to feed it, and a schema-checked run. */

export const engine = createRuleEngine();
const ajv = new Ajv({ allErrors: true, strict: false });

export function note(id: string, text: string, extra: Partial<BoardObject> = {}): BoardObject {
  return { id, type: 'sticky', data: { text }, position: { x: 0, y: 0 }, created_at: '2026-01-01T00:00:00.000Z', created_by: null, ...extra };
}

export function request(action: ContentActionType, extra: Partial<ContentRequest> = {}): ContentRequest {
  return {
    action,
    params: {},
    agent: { name: 'Ada', persona: 'tutor', description: '', goals: [], rules: [] },
    subject: null,
    objects: [],
    ...extra,
  };
}

/** Runs an action and checks its output against the schema the LLM's answers must pass too. */
export async function run<A extends ContentActionType>(action: A, extra: Partial<ContentRequest> = {}): Promise<ContentOutputOf<A>> {
  const result = await engine.run(request(action, extra));
  const valid = ajv.validate(CONTENT_OUTPUT_SCHEMAS[action], result.output);
  expect(valid, ajv.errorsText()).toBe(true);
  return result.output as ContentOutputOf<A>;
}

export const answerTo = (text: string, params: Record<string, unknown>) => ({ subject: note('s1', text), params });
