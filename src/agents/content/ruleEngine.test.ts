import { describe, expect, it } from 'vitest';
import { CONTENT_ACTIONS, ContentEngineError, type ContentActionType } from './contentTypes.js';
import { answerTo, engine, note, request, run } from '../../../test/helpers/ruleTestKit.js';

describe('rule engine: cost, determinism and bounds', () => {
  it('counts token equivalents as ceil((characters read + output JSON) / 4), and estimates exactly that', async () => {
    const req = request('evaluate_answer', answerTo('Paris', { expected: 'Paris' }));
    const result = await engine.run(req);
    const read = 'Paris'.length + JSON.stringify(req.params).length;
    expect(result.tokensUsed).toBe(Math.ceil((read + JSON.stringify(result.output).length) / 4));
    expect(engine.estimateTokens(req)).toBe(result.tokensUsed);
    expect(result.reasoning).toBe('The answer matches an expected answer.');
  });

  it('answers the same request the same way, every time', async () => {
    const objects = Array.from({ length: 60 }, (_, i) => note(`o${i}`, `note ${i % 7} about topic ${i % 5} and cost ${i % 3}`));
    for (const action of ['summarize', 'cluster_similar', 'validate_design', 'generate_content', 'check_sentiment'] as const) {
      const req = request(action, { objects, subject: objects[3] ?? null, params: { prompt: 'ideas about cost' } });
      const first = await engine.run(req);
      expect(await engine.run(structuredClone(req))).toEqual(first);
    }
  });

  it('keeps every output within the schema bounds for a full, oversized scope', async () => {
    const huge = 'lorem ipsum dolor '.repeat(5_000);
    const objects = Array.from({ length: 200 }, (_, i) => note(`o${i}`, `${huge} ${i}`, { width: 50, height: 50 }));
    const params = { prompt: huge, expected: huge, keywords: [huge], rules: { maxTextLength: 1, noOverlap: true }, level: 3 };
    for (const action of CONTENT_ACTIONS) {
      const started = performance.now();
      await run(action, { objects, subject: objects[0] ?? null, params });
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('refuses an aborted run and an unknown action', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(engine.run(request('summarize'), { signal: controller.signal })).rejects.toThrow(ContentEngineError);
    await expect(engine.run(request('dance' as ContentActionType))).rejects.toThrow('Unknown content action "dance"');
  });
});
