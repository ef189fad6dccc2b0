import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { freeJsonKeyword } from '../../util/ajvKeywords.js';
import { CONTENT_ACTIONS } from '../content/contentTypes.js';
import { CONTENT_ACTION_DEFINITIONS, evaluateAnswer } from './contentActions.js';
import { answer, harness, run } from '../../../test/helpers/contentTestHarness.js';

describe('content action definitions', () => {
  it('define the seven content actions, using AI, with schemas a strict validator compiles', () => {
    expect(CONTENT_ACTION_DEFINITIONS.map(({ type }) => type).sort()).toEqual([...CONTENT_ACTIONS].sort());
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false });
    ajv.addKeyword(freeJsonKeyword);
    for (const definition of CONTENT_ACTION_DEFINITIONS) {
      expect(definition.hints.usesAi).toBe(true);
      expect(definition.paramsSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(() => ajv.compile(definition.paramsSchema)).not.toThrow();
    }
  });

  it('refuse unknown params and oversized strings', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false });
    const validate = ajv.compile(evaluateAnswer.paramsSchema);
    expect(validate({ expected: ['Paris'], deliver: 'object' })).toBe(true);
    expect(validate({ surprise: 1 })).toBe(false);
    expect(validate({ text: 'x'.repeat(2_001) })).toBe(false);
    expect(validate({ keywords: Array.from({ length: 101 }, () => 'a') })).toBe(false);
  });

  it('pass the engine its own params only, never the delivery params', async () => {
    const { context, requests } = harness({ subject: answer });
    await run(evaluateAnswer, { expected: 'Paris', deliver: 'none', notifyTeacher: false }, context);
    expect(requests[0]?.params).toEqual({ expected: 'Paris' });
    expect(requests[0]?.subject).toBe(answer);
  });
});
