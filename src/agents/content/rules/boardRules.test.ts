import { describe, expect, it } from 'vitest';
import { note, run } from '../../../../test/helpers/ruleTestKit.js';

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
