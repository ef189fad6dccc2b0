import { describe, expect, it } from 'vitest';
import { answerTo, note, run } from '../../../../test/helpers/ruleTestKit.js';

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
