import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { BoardObject } from '../../boards/boardObjects.js';
import {
  CONTENT_ACTIONS,
  CONTENT_OUTPUT_SCHEMAS,
  ContentEngineError,
  type ContentActionType,
  type ContentOutputOf,
  type ContentRequest,
} from './contentTypes.js';
import { createRuleEngine } from './ruleEngine.js';

const engine = createRuleEngine();
const ajv = new Ajv({ allErrors: true, strict: false });

function note(id: string, text: string, extra: Partial<BoardObject> = {}): BoardObject {
  return { id, type: 'sticky', data: { text }, position: { x: 0, y: 0 }, created_at: '2026-01-01T00:00:00.000Z', created_by: null, ...extra };
}

function request(action: ContentActionType, extra: Partial<ContentRequest> = {}): ContentRequest {
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
async function run<A extends ContentActionType>(action: A, extra: Partial<ContentRequest> = {}): Promise<ContentOutputOf<A>> {
  const result = await engine.run(request(action, extra));
  const valid = ajv.validate(CONTENT_OUTPUT_SCHEMAS[action], result.output);
  expect(valid, ajv.errorsText()).toBe(true);
  return result.output as ContentOutputOf<A>;
}

const answerTo = (text: string, params: Record<string, unknown>) => ({ subject: note('s1', text), params });

describe('rule engine: evaluate_answer', () => {
  it('accepts an answer equal to an expected one, ignoring case, punctuation and spacing', async () => {
    expect(await run('evaluate_answer', answerTo('  paris! ', { expected: ['Lyon', 'Paris'] }))).toEqual({
      action: 'evaluate_answer',
      correct: true,
      score: 1,
      feedback: 'Correct, well done!',
    });
  });

  it('compares numbers by value, and respects caseSensitive', async () => {
    expect((await run('evaluate_answer', answerTo('3.50', { expected: '3.5' }))).correct).toBe(true);
    expect((await run('evaluate_answer', answerTo('3 5', { expected: '3.5' }))).correct).toBe(false);
    expect((await run('evaluate_answer', answerTo('paris', { expected: 'Paris', caseSensitive: true }))).correct).toBe(false);
  });

  it('scores keyword coverage, phrases and plurals included, against passScore', async () => {
    const params = { keywords: ['sunlight', 'carbon dioxide', 'water', 'chlorophyll'] };
    const partial = await run('evaluate_answer', answerTo('Plants use sunlight, waters and Carbon Dioxide', params));
    expect(partial).toEqual({
      action: 'evaluate_answer',
      correct: false,
      score: 0.75,
      feedback: 'Good start: your answer covers 3 of 4 key words. Add a little more detail.',
    });
    const lenient = await run('evaluate_answer', answerTo('Plants use sunlight, waters and Carbon Dioxide', { ...params, passScore: 0.7 }));
    expect(lenient.correct).toBe(true);
    expect((await run('evaluate_answer', answerTo('No idea', params))).feedback).toMatch(/^Not quite yet: your answer covers 0 of 4/);
  });

  it('falls back to the expected answer’s words when it is not matched exactly', async () => {
    const output = await run('evaluate_answer', answerTo('It was the French Revolution', { expected: 'The French Revolution of 1789' }));
    expect(output).toMatchObject({ correct: false, score: 0.67 });
  });

  it('without an expected answer: correct is null and the score rewards effort', async () => {
    expect(await run('evaluate_answer', answerTo('', {}))).toEqual({
      action: 'evaluate_answer',
      correct: null,
      score: 0,
      feedback: 'Give it a try: write your answer on the note.',
    });
    const short = await run('evaluate_answer', answerTo('I think it is the Seine river', {}));
    expect(short).toMatchObject({ correct: null, score: 0.28 });
    expect(short.feedback).toContain('good effort');
  });

  it('reads params.text when there is no subject, and an empty answer is wrong', async () => {
    expect((await run('evaluate_answer', { params: { text: 'Paris', expected: 'Paris' } })).correct).toBe(true);
    expect(await run('evaluate_answer', answerTo('  ', { expected: 'Paris' }))).toMatchObject({ correct: false, score: 0 });
  });
});

describe('rule engine: generate_hint', () => {
  const agent = { name: 'Ada', persona: 'tutor', description: '', goals: ['Learn that Paris is the capital of France'], rules: [] };

  it('gives progressive hints and the answer only at level 3', async () => {
    const hint = async (level: number) => (await run('generate_hint', { agent, subject: note('s1', ''), params: { level, expected: 'Paris' } })).hint;
    expect(await hint(1)).toBe('Keep the goal in mind: Learn that … is the capital of France. Start by writing down what you already know.');
    expect(await hint(2)).toBe('The answer is one word, starting with "P".');
    expect(await hint(3)).toBe('The answer is: Paris.');
  });

  it('uses params.topic and reports keyword progress with a first-letter clue', async () => {
    const subject = note('s1', 'Plants need sunlight');
    expect((await run('generate_hint', { subject, params: { topic: 'what plants need to grow' } })).hint).toBe(
      'Think about what plants need to grow. Look at your answer once more: what is still missing?',
    );
    expect((await run('generate_hint', { subject, params: { level: 2, keywords: ['sunlight', 'water', 'chlorophyll'] } })).hint).toBe(
      'A complete answer covers 3 key ideas; you have 1. One of the missing ones starts with "W".',
    );
  });

  it('never reveals the expected answer below level 3, even when a goal or topic contains it', async () => {
    const expectedAnswers = ['Paris', 'photosynthesis', 'The French Revolution', '42', 'H2O', 'Marie Curie'];
    for (const expected of expectedAnswers) {
      for (const level of [1, 2]) {
        for (const subjectText of ['', 'I do not know', expected.split(' ')[0] ?? '']) {
          const { hint } = await run('generate_hint', {
            agent: { ...agent, goals: [`Understand ${expected} well`] },
            subject: note('s1', subjectText),
            params: { level, expected, topic: level === 1 ? `why ${expected} matters` : undefined },
          });
          expect(hint.toLowerCase()).not.toContain(expected.toLowerCase());
        }
      }
    }
  });
});

describe('rule engine: summarize', () => {
  it('extracts recurring themes and the sentences that carry them', async () => {
    const objects = [
      note('a', 'We should reduce costs. Travel is expensive.'),
      note('b', 'Cut costs on travel'),
      note('c', 'Hire more engineers'),
      note('d', 'Engineers need better laptops'),
      note('e', ''),
    ];
    expect(await run('summarize', { objects, params: { maxPoints: 3 } })).toEqual({
      action: 'summarize',
      summary: '4 notes; recurring themes: cost, engineer, travel.',
      points: ['Cut costs on travel', 'Engineers need better laptops', 'We should reduce costs.'],
    });
  });

  it('says so when there is nothing to summarize', async () => {
    expect(await run('summarize', {})).toEqual({ action: 'summarize', summary: 'There is nothing to summarize yet.', points: [] });
  });
});

describe('rule engine: cluster_similar', () => {
  const objects = [
    note('a', 'Reduce travel costs'),
    note('b', 'Hire engineers'),
    note('c', 'Travel costs are too high'),
    note('d', 'More engineers for the backend'),
    note('e', 'Lunch on Fridays'),
    note('f', 'Cheaper travel costs via trains'),
    note('g', ''),
  ];

  it('groups notes by word overlap, largest cluster first, labelled by shared words', async () => {
    expect(await run('cluster_similar', { objects })).toEqual({
      action: 'cluster_similar',
      clusters: [
        { label: 'cost, travel', objectIds: ['a', 'c', 'f'] },
        { label: 'engineer', objectIds: ['b', 'd'] },
      ],
    });
  });

  it('follows the threshold and minClusterSize params', async () => {
    const strict = await run('cluster_similar', { objects, params: { threshold: 0.9 } });
    expect(strict.clusters).toEqual([]);
    const withSingles = await run('cluster_similar', { objects, params: { minClusterSize: 1 } });
    expect(withSingles.clusters.map(({ objectIds }) => objectIds)).toEqual([['a', 'c', 'f'], ['b', 'd'], ['e']]);
  });
});

describe('rule engine: check_sentiment', () => {
  const sentiment = (text: string, params: Record<string, unknown> = {}) => run('check_sentiment', answerTo(text, params));

  it('scores positive, negative and neutral text', async () => {
    expect(await sentiment('I love this, great work!')).toEqual({
      action: 'check_sentiment',
      sentiment: 'positive',
      score: 0.459,
      flagged: false,
      reasons: ['positive words: love, great'],
    });
    expect(await sentiment('The slides are boring')).toMatchObject({ sentiment: 'negative', score: -0.25 });
    expect(await sentiment('The meeting is at three')).toMatchObject({ sentiment: 'neutral', score: 0, reasons: [] });
  });

  it('handles negation and intensifiers', async () => {
    expect(await sentiment('This is not good')).toMatchObject({ sentiment: 'negative', score: -0.188, reasons: ['negative words: not good'] });
    expect(await sentiment('not bad at all')).toMatchObject({ sentiment: 'positive', reasons: ['positive words: not bad'] });
    const plain = await sentiment('good');
    const intense = await sentiment('really very good');
    expect(intense.score).toBeGreaterThan(plain.score);
  });

  it('flags abusive wording and blocked words, whole words only', async () => {
    expect(await sentiment('Shut up, you idiots', { blockedWords: ['banana split'] })).toMatchObject({
      flagged: true,
      reasons: ['abusive language: idiot, shut up'],
    });
    expect(await sentiment('I want a Banana Split', { blockedWords: ['banana split'] })).toMatchObject({
      flagged: true,
      reasons: ['blocked words: banana split'],
    });
    expect((await sentiment('A stupendous shutter')).flagged).toBe(false);
  });
});

describe('rule engine: generate_content', () => {
  it('turns "ideas about X" into template notes laid out as stickies', async () => {
    const output = await run('generate_content', { params: { prompt: '3 ideas about remote work' } });
    expect(output.objects).toEqual([
      { type: 'sticky', data: { text: 'remote work: why it matters' }, position: { x: 0, y: 0 }, width: 200, height: 200 },
      { type: 'sticky', data: { text: 'remote work: key questions' }, position: { x: 220, y: 0 }, width: 200, height: 200 },
      { type: 'sticky', data: { text: 'remote work: examples' }, position: { x: 440, y: 0 }, width: 200, height: 200 },
    ]);
  });

  it('splits lines (bullets stripped) and comma lists, per style', async () => {
    const list = await run('generate_content', { params: { prompt: '- apples\n- pears\n3. plums', style: 'list', objectType: 'note' } });
    expect(list.objects.map(({ type, data, position }) => [type, data.text, position.x, position.y])).toEqual([
      ['note', 'apples', 0, 0],
      ['note', 'pears', 0, 100],
      ['note', 'plums', 0, 200],
    ]);
    const grid = await run('generate_content', { params: { prompt: 'a, b; c, d, e', style: 'grid' } });
    expect(grid.objects.map(({ position }) => [position.x, position.y])).toEqual([
      [0, 0],
      [220, 0],
      [440, 0],
      [0, 220],
      [220, 220],
    ]);
  });

  it('puts the topic in the middle of a mindmap and the ideas around it, without overlap', async () => {
    const { objects } = await run('generate_content', { params: { prompt: 'ideas about recycling', style: 'mindmap', count: 8 } });
    expect(objects).toHaveLength(9);
    expect(objects[0]).toMatchObject({ data: { text: 'recycling' }, position: { x: 0, y: 0 } });
    expect(objects[1]?.position).toEqual({ x: 0, y: -440 });
    const overlaps = objects.flatMap((a, i) =>
      objects.slice(i + 1).filter((b) => Math.abs(a.position.x - b.position.x) < 200 && Math.abs(a.position.y - b.position.y) < 200),
    );
    expect(overlaps).toEqual([]);
  });

  it('caps the output at 20 objects and refuses an empty prompt', async () => {
    const many = await run('generate_content', { params: { prompt: Array.from({ length: 60 }, (_, i) => `item ${i}`).join('\n'), count: 500 } });
    expect(many.objects).toHaveLength(20);
    const templated = await run('generate_content', { params: { prompt: '99 ideas about the moon', style: 'mindmap' } });
    expect(templated.objects).toHaveLength(20);
    await expect(engine.run(request('generate_content', { params: { prompt: '  ' } }))).rejects.toThrow(ContentEngineError);
  });
});

describe('rule engine: validate_design', () => {
  const objects = [
    note('a', 'Short', { width: 100, height: 100 }),
    note('b', 'Overlapping one', { position: { x: 50, y: 50 }, width: 100, height: 100 }),
    note('c', 'Far away', { position: { x: 500, y: 0 }, width: 100, height: 100 }),
    note('d', 'Unsized notes are never checked for overlap'),
  ];

  it('reports each broken rule, with the object concerned', async () => {
    const rules = { minObjects: 5, maxObjects: 10, requiredTypes: ['sticky', 'frame'], maxTextLength: 20, noOverlap: true };
    expect(await run('validate_design', { objects, params: { rules } })).toEqual({
      action: 'validate_design',
      valid: false,
      issues: [
        { objectId: null, message: 'The board has 4 objects; at least 5 expected.' },
        { objectId: null, message: 'No object of type "frame".' },
        { objectId: 'd', message: 'Text is 43 characters; at most 20 allowed.' },
        { objectId: 'a', message: 'Overlaps b.' },
      ],
    });
  });

  it('checks overlap by default and is valid when every rule holds', async () => {
    expect((await run('validate_design', { objects })).issues).toEqual([{ objectId: 'a', message: 'Overlaps b.' }]);
    expect(await run('validate_design', { objects: objects.slice(2), params: { rules: { maxObjects: 2 } } })).toEqual({
      action: 'validate_design',
      valid: true,
      issues: [],
    });
  });

  it('lists at most 50 issues and counts the rest', async () => {
    const stacked = Array.from({ length: 40 }, (_, i) => note(`n${i}`, 'x', { width: 100, height: 100 }));
    const { issues } = await run('validate_design', { objects: stacked });
    expect(issues).toHaveLength(50);
    expect(issues[49]).toEqual({ objectId: null, message: '…and 731 more issues.' });
  });
});

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
