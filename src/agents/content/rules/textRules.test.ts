import { describe, expect, it } from 'vitest';
import { ContentEngineError } from '../contentTypes.js';
import { answerTo, engine, request, run } from '../../../../test/helpers/ruleTestKit.js';

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
