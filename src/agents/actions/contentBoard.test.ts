import { describe, expect, it } from 'vitest';
import { AppError, errors } from '../../errors.js';
import { agentUserId } from '../agent.js';
import { ActionRefusal } from './action.js';
import { clusterSimilar, generateContent, summarize, validateDesign } from './contentBoard.js';
import { AGENT, besideAnswer, harness, note, run } from '../../../test/helpers/contentTestHarness.js';

describe('summarize', () => {
  const board = [
    note('n1', 'Solar power is cheap. Wind power is growing.'),
    note('n2', 'Solar power needs storage.'),
    note('n3', 'Wind power works at night.'),
  ];

  it('writes the summary and its points as a note at params.position', async () => {
    const { context, objects } = harness({ objects: board });
    const outcome = await run(summarize, { position: { x: 5, y: 6 }, maxPoints: 2 }, context);
    const [summary] = objects.created();
    expect(summary).toMatchObject({ type: 'sticky', position: { x: 5, y: 6 } });
    const lines = String(summary?.data.text).split('\n');
    expect(lines[0]).toMatch(/^3 notes; recurring themes: .*power/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines.slice(1).every((line) => line.startsWith('• '))).toBe(true);
    expect(outcome.result).toMatchObject({ createdObjectIds: [summary?.id] });
  });

  it('leaves the agent’s own notes out of what it summarizes', async () => {
    const own = note('mine', 'Earlier summary about power', { x: 0, y: 0 }, { created_by: agentUserId(AGENT) });
    const { context, requests } = harness({ objects: [...board, own] });
    await run(summarize, { deliver: 'none' }, context);
    expect(requests[0]?.objects.map(({ id }) => id)).toEqual(['n1', 'n2', 'n3']);
  });

  it('tells the hosts with deliver: notification', async () => {
    const { context, objects, notifications } = harness({ objects: board });
    await run(summarize, { deliver: 'notification' }, context);
    expect(objects.created()).toEqual([]);
    expect(notifications[0]).toMatchObject({ recipients: { kind: 'hosts' }, notification: { title: 'Summary' } });
  });
});

describe('cluster_similar', () => {
  const board = [
    note('s1', 'solar panels energy', { x: 500, y: 400 }),
    note('w1', 'wind turbines farm', { x: 900, y: 300 }),
    note('s2', 'solar energy panels cheap', { x: 700, y: 900 }),
    note('w2', 'wind farm turbines offshore', { x: 600, y: 350 }),
    note('x', 'lunch menu', { x: 0, y: 2_000 }),
  ];

  it('arranges each cluster in a labelled column from the clusters’ top-left', async () => {
    const { context, objects } = harness({ objects: board });
    const outcome = await run(clusterSimilar, {}, context);
    const at = (id: string) => objects.store.get(id)?.position;
    expect([at('s1'), at('s2')]).toEqual([{ x: 500, y: 300 }, { x: 500, y: 520 }]);
    expect([at('w1'), at('w2')]).toEqual([{ x: 760, y: 300 }, { x: 760, y: 520 }]);
    expect(at('x')).toEqual({ x: 0, y: 2_000 });
    const labels = objects.created();
    expect(labels.map(({ type, position }) => ({ type, position }))).toEqual([
      { type: 'text', position: { x: 500, y: 240 } },
      { type: 'text', position: { x: 760, y: 240 } },
    ]);
    expect(labels[0]?.data.text).toMatch(/solar|panels|energy/);
    expect(outcome.result).toMatchObject({ movedObjectIds: ['s1', 's2', 'w1', 'w2'], createdObjectIds: labels.map(({ id }) => id) });
  });

  it('starts at params.origin', async () => {
    const { context, objects } = harness({ objects: board });
    await run(clusterSimilar, { origin: { x: 0, y: 0 } }, context);
    expect(objects.store.get('w2')?.position).toEqual({ x: 260, y: 220 });
  });

  it('only labels the clusters with deliver: labels, and only logs with none', async () => {
    const labelled = harness({ objects: board });
    await run(clusterSimilar, { deliver: 'labels' }, labelled.context);
    expect(labelled.objects.calls.map(({ operation }) => operation)).toEqual(['add', 'add']);
    expect(labelled.objects.created().map(({ position }) => position)).toEqual([{ x: 500, y: 340 }, { x: 900, y: 240 }]);
    const quiet = harness({ objects: board });
    const outcome = await run(clusterSimilar, { deliver: 'none' }, quiet.context);
    expect(quiet.objects.calls).toEqual([]);
    expect((outcome.result.clusters as unknown[]).length).toBe(2);
  });

  it('reports what it moved when a move is refused midway', async () => {
    const { context, objects } = harness({ objects: board });
    objects.refusals = [{ operation: 'update', call: 2, error: errors.conflict('The new position lies in another zone') }];
    const failure = run(clusterSimilar, {}, context);
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining('moved 1 object(s) and created 0 label(s) before (s1)') });
  });
});

describe('generate_content', () => {
  it('creates each generated object at origin plus its position', async () => {
    const { context, objects } = harness();
    const outcome = await run(generateContent, { prompt: 'alpha\nbeta\ngamma', style: 'list', origin: { x: 1_000, y: 50 } }, context);
    const created = objects.created();
    expect(created.map(({ data, position }) => ({ text: data.text, position }))).toEqual([
      { text: 'alpha', position: { x: 1_000, y: 50 } },
      { text: 'beta', position: { x: 1_000, y: 150 } },
      { text: 'gamma', position: { x: 1_000, y: 250 } },
    ]);
    expect(outcome.result).toMatchObject({ createdObjectIds: created.map(({ id }) => id) });
  });

  it('starts beside the event’s object, from its text when there is no prompt', async () => {
    const { context, objects } = harness({ subject: note('topic', 'sun, wind', { x: 100, y: 100 }, { width: 200, height: 200 }) });
    await run(generateContent, {}, context);
    expect(objects.created().map(({ position }) => position)).toEqual([besideAnswer, { x: 540, y: 120 }]);
  });

  it('stops at the first refused object and says what it created', async () => {
    const { context, objects } = harness();
    objects.refusals = [{ operation: 'add', call: 3, error: errors.forbidden('The position lies in a zone this caller may not write') }];
    const failure = run(generateContent, { prompt: '5 ideas about recycling' }, context);
    await expect(failure).rejects.toMatchObject({ kind: 'forbidden', message: expect.stringContaining('created 2 of 5 object(s) before (new-1, new-2)') });
    expect(objects.created()).toHaveLength(2);
  });

  it('refuses without a prompt, text or object; only logs with deliver: none', async () => {
    const { context, objects } = harness();
    await expect(generateContent.sanitize({ style: 'grid' }, context)).rejects.toThrow(ActionRefusal);
    const outcome = await run(generateContent, { prompt: 'a, b', deliver: 'none' }, context);
    expect(objects.calls).toEqual([]);
    expect((outcome.result.objects as unknown[]).length).toBe(2);
  });
});

describe('validate_design', () => {
  const overlapping = [note('a', 'one', { x: 0, y: 0 }, { width: 100, height: 100 }), note('b', 'two', { x: 50, y: 50 }, { width: 100, height: 100 })];

  it('tells the hosts the issues of an invalid design', async () => {
    const { context, notifications } = harness({ objects: overlapping });
    const outcome = await run(validateDesign, {}, context);
    expect(outcome.result).toMatchObject({ valid: false, notified: 1 });
    expect(notifications[0]?.recipients).toEqual({ kind: 'hosts' });
    expect(notifications[0]?.notification).toMatchObject({ level: 'warning', title: 'Design check', message: '1 issue(s):\n• Overlaps b. (a)' });
  });

  it('stays quiet for a valid design, and with deliver: none', async () => {
    const valid = harness({ objects: overlapping });
    expect((await run(validateDesign, { rules: { minObjects: 2 } }, valid.context)).result).toMatchObject({ valid: true });
    const quiet = harness({ objects: overlapping });
    await run(validateDesign, { rules: { requiredTypes: ['image'] }, deliver: 'none' }, quiet.context);
    expect([...valid.notifications, ...quiet.notifications]).toEqual([]);
  });

  it('reads at most 200 objects of the scope', async () => {
    const many = Array.from({ length: 250 }, (_, index) => note(`o${index}`, 'x', { x: index * 300, y: 0 }));
    const { context, requests } = harness({ objects: many });
    await run(validateDesign, { deliver: 'none' }, context);
    expect(requests[0]?.objects).toHaveLength(200);
  });
});
