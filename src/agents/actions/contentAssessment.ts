import type { BoardObject } from '../../boards/boardObjects.js';
import { NOTE_TYPE } from '../content/noteLayout.js';
import { objectText, truncate } from '../content/textTools.js';
import type { Recipients } from '../ports.js';
import { ActionRefusal, type ActionContext, type ActionDefinition } from './action.js';
import { addBeside, notify } from './contentLanding.js';
import { deliverOf, hasText, objectId, paramsOf, text, textList, textOrList, usesAi } from './contentParams.js';
import { runContent } from './contentRun.js';
import { recipientsOf } from './messageActions.js';

/**
 * The content actions about one participant's answer: evaluate_answer and generate_hint reply
 * to its author (or tell the hosts), check_sentiment guards the board against its wording.
 */

/** Hint levels kept per object; the oldest are forgotten first. */
const MAX_REMEMBERED_HINTS = 1_000;
/** What an answer is judged by; shared by evaluate_answer and generate_hint. */
const answerKey = { text, expected: textOrList, keywords: textList };

export const evaluateAnswer: ActionDefinition = {
  type: 'evaluate_answer',
  description:
    'Scores the answer on the object the event is about (or `text`) against `expected` or `keywords`; puts a feedback note beside it (`deliver: object`), or sends the feedback to its author (`notification`). `notifyTeacher` also tells the hosts the score.',
  paramsSchema: paramsOf({
    objectId,
    ...answerKey,
    caseSensitive: { type: 'boolean' },
    passScore: { type: 'number', minimum: 0, maximum: 1 },
    deliver: deliverOf('object', 'notification', 'none'),
    notifyTeacher: { type: 'boolean' },
  }),
  hints: usesAi,
  async sanitize(params, context) {
    return { ...withAnswer(params, context), deliver: params.deliver ?? 'object', notifyTeacher: params.notifyTeacher === true };
  },
  async apply(params, context) {
    const { output, reasoning, subject } = await runContent('evaluate_answer', params, context);
    const created: string[] = [];
    let notified = 0;
    if (params.deliver === 'object') {
      const data = { text: output.feedback, score: output.score, correct: output.correct, answerId: subject?.id ?? null };
      created.push((await addBeside(context, { type: 'feedback', data })).id);
    } else if (params.deliver === 'notification') {
      const level = output.correct === true ? 'success' : 'info';
      notified += notify(context, authorOf(subject, context), { level, title: 'Feedback on your answer', message: output.feedback, objectId: subject?.id });
    }
    if (params.notifyTeacher === true) {
      const verdict = output.correct === null ? 'not graded' : output.correct ? 'correct' : 'not correct yet';
      const message = `Answer ${describeSubject(subject, params)} scored ${Math.round(output.score * 100)}% (${verdict}). ${output.feedback}`;
      notified += notify(context, { kind: 'hosts' }, { level: 'info', title: 'Answer evaluated', message, objectId: subject?.id });
    }
    return { result: { ...output, createdObjectIds: created, notified }, reasoning };
  },
};

export const generateHint: ActionDefinition = {
  type: 'generate_hint',
  description:
    'Writes a hint for the answer on the object the event is about (or `text`), more direct with each hint for the same object (level 1-3, or `level`); as a note beside it (`deliver: object`) or a notification to its author.',
  paramsSchema: paramsOf({
    objectId,
    ...answerKey,
    level: { type: 'integer', minimum: 1, maximum: 3 },
    topic: text,
    deliver: deliverOf('object', 'notification', 'none'),
  }),
  hints: usesAi,
  async sanitize(params, context) {
    const withSubject = withAnswer(params, context);
    const given = typeof withSubject.objectId === 'string' ? (context.memory.hintsGiven?.[withSubject.objectId] ?? 0) : 0;
    return { ...withSubject, level: params.level ?? Math.min(3, given + 1), deliver: params.deliver ?? 'object' };
  },
  async apply(params, context) {
    const { output, reasoning, subject } = await runContent('generate_hint', params, context);
    const created: string[] = [];
    let notified = 0;
    if (params.deliver === 'object') {
      const data = { text: output.hint, hintFor: subject?.id ?? null, level: params.level };
      created.push((await addBeside(context, { type: NOTE_TYPE, data })).id);
    } else if (params.deliver === 'notification') {
      notified = notify(context, authorOf(subject, context), { level: 'info', title: 'Hint', message: output.hint, objectId: subject?.id });
    }
    if (subject && params.deliver !== 'none') rememberHint(context, subject.id);
    return { result: { ...output, level: params.level, createdObjectIds: created, notified }, reasoning };
  },
};

export const checkSentiment: ActionDefinition = {
  type: 'check_sentiment',
  description:
    'Rates the tone of the object the event is about (or `text`) and flags abusive or `blockedWords` wording; tells the hosts about flagged or negative content (`deliver: notify`), and removes (`deleteFlagged`) or locks (`lockFlagged`) a flagged object.',
  paramsSchema: paramsOf({
    objectId,
    text,
    blockedWords: textList,
    deliver: deliverOf('notify', 'none'),
    deleteFlagged: { type: 'boolean' },
    lockFlagged: { type: 'boolean' },
  }),
  hints: { ...usesAi, destructive: true },
  async sanitize(params, context) {
    return { ...withAnswer(params, context), deliver: params.deliver ?? 'notify', deleteFlagged: params.deleteFlagged === true, lockFlagged: params.lockFlagged === true };
  },
  async apply(params, context) {
    const { output, reasoning, subject } = await runContent('check_sentiment', params, context);
    const { boardId } = context.agent;
    let handled: 'removed' | 'locked' | null = null;
    if (output.flagged && subject && params.deleteFlagged === true) {
      await context.objects.remove(context.caller, boardId, subject.id, context.cause);
      handled = 'removed';
    } else if (output.flagged && subject && params.lockFlagged === true) {
      await context.objects.update(context.caller, boardId, subject.id, { locked: true }, context.cause);
      handled = 'locked';
    }
    let notified = 0;
    if ((output.flagged || output.sentiment === 'negative') && params.deliver === 'notify') {
      const reasons = output.reasons.length > 0 ? output.reasons.join('; ') : `${output.sentiment} tone`;
      const message = `${describeSubject(subject, params)}: ${reasons}.${handled ? ` The agent ${handled} it.` : ''}`;
      const title = output.flagged ? 'Flagged content' : 'Negative tone';
      notified = notify(context, { kind: 'hosts' }, { level: 'warning', title, message, objectId: subject?.id });
    }
    return { result: { ...output, handled, notified }, reasoning };
  },
};

/** Fills `objectId` from the event; refuses when there is neither an object nor `text` to judge. */
function withAnswer(params: Record<string, unknown>, context: ActionContext): Record<string, unknown> {
  const subjectId = typeof params.objectId === 'string' ? params.objectId : context.event?.object?.id;
  if (subjectId) return { ...params, objectId: subjectId };
  if (hasText(params.text)) return params;
  throw new ActionRefusal('No answer to work on: trigger on an object event, or give params.objectId or params.text');
}

/** Who wrote the subject (everyone when nobody is known), within the agent's participants. */
function authorOf(subject: BoardObject | null, context: ActionContext): Recipients {
  return recipientsOf(subject?.created_by ? [subject.created_by] : 'all', context);
}

function describeSubject(subject: BoardObject | null, params: Record<string, unknown>): string {
  const shown = subject ? objectText(subject) : typeof params.text === 'string' ? params.text : '';
  const excerpt = `"${truncate(shown.replace(/\s+/g, ' ').trim(), 80)}"`;
  return subject ? `${excerpt} (${subject.type} ${subject.id})` : excerpt;
}

/** Counts one more hint for the object, forgetting the oldest objects beyond the bound. */
function rememberHint(context: ActionContext, subjectId: string): void {
  const { [subjectId]: given = 0, ...others } = context.memory.hintsGiven ?? {};
  const kept = Object.entries(others).slice(-(MAX_REMEMBERED_HINTS - 1));
  context.memory.hintsGiven = { ...Object.fromEntries(kept), [subjectId]: given + 1 };
}
