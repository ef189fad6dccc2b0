import { describe, expect, it } from 'vitest';
import { errors } from '../../errors.js';
import { ActionRefusal } from './action.js';
import { checkSentiment, evaluateAnswer, generateHint } from './contentAssessment.js';
import { AGENT, answer, besideAnswer, harness, note, run } from '../../../test/helpers/contentTestHarness.js';

describe('evaluate_answer', () => {
  it('puts a feedback object beside the answer, with the score', async () => {
    const { context, objects } = harness({ subject: answer });
    const outcome = await run(evaluateAnswer, { expected: 'paris' }, context);
    const [feedback] = objects.created();
    expect(feedback).toMatchObject({ type: 'feedback', position: besideAnswer, data: { score: 1, correct: true, answerId: 'answer' } });
    expect(feedback?.data.text).toMatch(/correct/i);
    expect(outcome.result).toMatchObject({ score: 1, correct: true, createdObjectIds: [feedback?.id] });
    expect(outcome.reasoning).toBe('The answer matches an expected answer.');
  });

  it('sends the feedback to the answer’s author instead with deliver: notification', async () => {
    const { context, objects, notifications } = harness({ subject: answer });
    await run(evaluateAnswer, { expected: 'Rome', deliver: 'notification' }, context);
    expect(objects.created()).toEqual([]);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]?.recipients).toEqual({ kind: 'users', userIds: ['student-1'] });
    expect(notifications[0]?.notification).toMatchObject({ objectId: 'answer', agent: { id: AGENT, name: 'Tutor' } });
  });

  it('sends it to everyone when the author is unknown', async () => {
    const { context, notifications } = harness({ subject: { ...answer, created_by: null } });
    await run(evaluateAnswer, { deliver: 'notification' }, context);
    expect(notifications[0]?.recipients).toEqual({ kind: 'all' });
  });

  it('tells the hosts the score with notifyTeacher', async () => {
    const { context, objects, notifications } = harness({ subject: note('a2', 'Lyon') });
    await run(evaluateAnswer, { expected: 'Paris', notifyTeacher: true }, context);
    expect(objects.created()).toHaveLength(1);
    expect(notifications).toEqual([
      { recipients: { kind: 'hosts' }, notification: expect.objectContaining({ message: expect.stringContaining('scored 0%') }) },
    ]);
  });

  it('only logs with deliver: none', async () => {
    const { context, objects, notifications } = harness({ subject: answer });
    const outcome = await run(evaluateAnswer, { expected: 'Paris', deliver: 'none' }, context);
    expect(objects.calls).toEqual([]);
    expect(notifications).toEqual([]);
    expect(outcome.result).toMatchObject({ correct: true, createdObjectIds: [] });
  });

  it('refuses without an object or text, and evaluates params.text', async () => {
    const { context } = harness();
    await expect(evaluateAnswer.sanitize({ expected: 'Paris' }, context)).rejects.toThrow(ActionRefusal);
    const outcome = await run(evaluateAnswer, { text: 'paris', expected: 'Paris', deliver: 'none' }, context);
    expect(outcome.result).toMatchObject({ correct: true });
  });

  it('reads the object named by objectId', async () => {
    const { context } = harness({ objects: [answer] });
    const outcome = await run(evaluateAnswer, { objectId: 'answer', expected: 'Paris' }, context);
    expect(outcome.result).toMatchObject({ correct: true });
    await expect(run(evaluateAnswer, { objectId: 'missing' }, context)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('lets a refused write propagate', async () => {
    const { context, objects } = harness({ subject: answer });
    objects.refusals = [{ operation: 'add', call: 1, error: errors.forbidden('The position lies in a zone this caller may not write') }];
    await expect(run(evaluateAnswer, { expected: 'Paris' }, context)).rejects.toMatchObject({ kind: 'forbidden' });
  });
});

describe('generate_hint', () => {
  it('gives more direct hints for the same object, counted in memory', async () => {
    const { context, objects } = harness({ subject: note('q', 'I am not sure') });
    const levels: unknown[] = [];
    for (let hint = 0; hint < 4; hint += 1) levels.push((await run(generateHint, { expected: 'chlorophyll' }, context)).result.level);
    expect(levels).toEqual([1, 2, 3, 3]);
    expect(context.memory.hintsGiven).toEqual({ q: 4 });
    const notes = objects.created();
    expect(notes.map(({ data }) => data.level)).toEqual([1, 2, 3, 3]);
    expect(notes[0]).toMatchObject({ type: 'sticky', data: { hintFor: 'q' } });
    expect(notes[0]?.data.text).not.toMatch(/chlorophyll/i);
    expect(notes[2]?.data.text).toMatch(/chlorophyll/);
  });

  it('takes an explicit level, and counts hints per object', async () => {
    const { context } = harness({ subject: note('q', 'hmm'), agent: { memory: { hintsGiven: { other: 2 } } } });
    const outcome = await run(generateHint, { level: 3, expected: 'chlorophyll' }, context);
    expect(outcome.result).toMatchObject({ level: 3, hint: expect.stringContaining('chlorophyll') });
    expect(context.memory.hintsGiven).toEqual({ other: 2, q: 1 });
  });

  it('sends the hint to the author with deliver: notification; deliver: none counts nothing', async () => {
    const { context, objects, notifications } = harness({ subject: note('q', 'hmm') });
    await run(generateHint, { deliver: 'notification' }, context);
    expect(objects.created()).toEqual([]);
    expect(notifications[0]?.recipients).toEqual({ kind: 'users', userIds: ['student-1'] });
    await run(generateHint, { deliver: 'none' }, context);
    expect(context.memory.hintsGiven).toEqual({ q: 1 });
  });

  it('refuses without an object or text', async () => {
    await expect(generateHint.sanitize({}, harness().context)).rejects.toThrow(ActionRefusal);
  });
});

describe('check_sentiment', () => {
  const rude = note('rude', 'You are stupid', { x: 10, y: 10 });

  it('tells the hosts about a flagged object, naming it and why', async () => {
    const { context, objects, notifications } = harness({ subject: rude });
    const outcome = await run(checkSentiment, {}, context);
    expect(outcome.result).toMatchObject({ flagged: true, handled: null });
    expect(objects.calls).toEqual([]);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]?.recipients).toEqual({ kind: 'hosts' });
    expect(notifications[0]?.notification).toMatchObject({ level: 'warning', title: 'Flagged content', objectId: 'rude' });
    expect(notifications[0]?.notification.message).toMatch(/"You are stupid" \(sticky_note rude\): abusive language: stupid/);
  });

  it('removes or locks a flagged object when asked', async () => {
    const removing = harness({ subject: rude });
    await run(checkSentiment, { deleteFlagged: true, lockFlagged: true }, removing.context);
    expect(removing.objects.store.has('rude')).toBe(false);
    expect(removing.notifications[0]?.notification.message).toMatch(/removed it/);
    const locking = harness({ subject: rude });
    const outcome = await run(checkSentiment, { lockFlagged: true, deliver: 'none' }, locking.context);
    expect(locking.objects.store.get('rude')?.locked).toBe(true);
    expect(locking.notifications).toEqual([]);
    expect(outcome.result).toMatchObject({ handled: 'locked' });
  });

  it('flags blocked words, notifies on a negative tone, and leaves a kind note alone', async () => {
    const blocked = harness({ subject: note('b', 'I copied this from chatgpt') });
    expect((await run(checkSentiment, { blockedWords: ['chatgpt'] }, blocked.context)).result).toMatchObject({ flagged: true });
    const negative = harness({ subject: note('n', 'This is terrible and awful') });
    await run(checkSentiment, {}, negative.context);
    expect(negative.notifications[0]?.notification.title).toBe('Negative tone');
    const kind = harness({ subject: note('k', 'What a great and helpful idea') });
    await run(checkSentiment, { deleteFlagged: true }, kind.context);
    expect(kind.notifications).toEqual([]);
    expect(kind.objects.calls).toEqual([]);
  });

  it('refuses without an object or text', async () => {
    await expect(checkSentiment.sanitize({}, harness().context)).rejects.toThrow(ActionRefusal);
  });
});
