import type { BoardObject } from '../../boards/boardObjects.js';
import type { PlacedObject } from '../../boards/objectService.js';
import { MAX_COORDINATE, type ObjectInput } from '../../boards/schemas.js';
import { AppError } from '../../errors.js';
import { agentUserId } from '../agent.js';
import { MAX_CONTEXT_OBJECTS, MAX_GENERATED_OBJECTS, type ContentActionType, type ContentOutputOf } from '../content/contentTypes.js';
import { objectText, truncate } from '../content/textTools.js';
import type { AgentNotification, Recipients } from '../ports.js';
import { ActionRefusal, type ActionContext, type ActionDefinition } from './action.js';
import { besideSubject, objectsInScope } from './boardActions.js';
import { notificationOf, recipientsOf } from './messageActions.js';

/**
 * The content actions: the content engine (rules or LLM) computes a score, a hint, clusters…
 * and these actions land the answer on the board, as objects, moves or notifications, always
 * through the domain services so the agent's zone rights apply.
 */

const MAX_TEXT = 2_000;
const MAX_LIST = 100;
/** A summary note holds the summary and its points; longer would not read as a note. */
const MAX_NOTE_TEXT = 5_000;
/** Hint levels kept per object; the oldest are forgotten first. */
const MAX_REMEMBERED_HINTS = 1_000;
/** cluster_similar's layout: one column per cluster, its label above it. */
const COLUMN_STEP = 260;
const ROW_STEP = 220;
const LABEL_GAP = 60;
/** Ids an error message names when a landing stops midway. */
const MAX_LISTED_IDS = 20;

const text = { type: 'string', maxLength: MAX_TEXT };
const textList = { type: 'array', maxItems: MAX_LIST, items: text };
const textOrList = { anyOf: [text, textList] };
const objectId = { type: 'string', minLength: 1, maxLength: 255 };
const coordinate = { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE };
const position = { type: 'object', additionalProperties: false, required: ['x', 'y'], properties: { x: coordinate, y: coordinate } };
const deliverOf = (...modes: string[]) => ({ type: 'string', enum: modes });
const paramsOf = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, properties });
/** What an answer is judged by; shared by evaluate_answer and generate_hint. */
const answerKey = { text, expected: textOrList, keywords: textList };

const usesAi = { readOnly: false, destructive: false, idempotent: false, usesAi: true };

/** Params that say where a result lands: the engine never sees them. */
const DELIVERY_PARAMS = new Set(['objectId', 'deliver', 'notifyTeacher', 'position', 'origin', 'deleteFlagged', 'lockFlagged']);

type Point = { x: number; y: number };

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
      created.push((await addObject(context, { type: 'feedback', data, position: await besideSubject(context) })).id);
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
      created.push((await addObject(context, { type: 'sticky_note', data, position: await besideSubject(context) })).id);
    } else if (params.deliver === 'notification') {
      notified = notify(context, authorOf(subject, context), { level: 'info', title: 'Hint', message: output.hint, objectId: subject?.id });
    }
    if (subject && params.deliver !== 'none') rememberHint(context, subject.id);
    return { result: { ...output, level: params.level, createdObjectIds: created, notified }, reasoning };
  },
};

export const summarize: ActionDefinition = {
  type: 'summarize',
  description:
    "Summarizes the objects in the agent's scope (up to `maxPoints` key points) as a note at `position` or beside the event's object (`deliver: object`), or as a notification to the hosts.",
  paramsSchema: paramsOf({ maxPoints: { type: 'integer', minimum: 1, maximum: 10 }, position, deliver: deliverOf('object', 'notification', 'none') }),
  hints: usesAi,
  async sanitize(params) {
    return { ...params, deliver: params.deliver ?? 'object' };
  },
  async apply(params, context) {
    const { output, reasoning } = await runContent('summarize', params, context, { withoutOwn: true });
    const summaryText = [output.summary, ...output.points.map((point) => `• ${point}`)].join('\n');
    const created: string[] = [];
    let notified = 0;
    if (params.deliver === 'object') {
      const at = (params.position as Point | undefined) ?? (await besideSubject(context));
      created.push((await addObject(context, { type: 'sticky_note', data: { text: truncate(summaryText, MAX_NOTE_TEXT) }, position: at })).id);
    } else if (params.deliver === 'notification') {
      notified = notify(context, { kind: 'hosts' }, { level: 'info', title: 'Summary', message: summaryText });
    }
    return { result: { ...output, createdObjectIds: created, notified }, reasoning };
  },
};

export const clusterSimilar: ActionDefinition = {
  type: 'cluster_similar',
  description:
    "Groups similar objects in the agent's scope; `deliver: arrange` moves each group into a labelled column (from `origin`, else the groups' top-left), `labels` only labels each group.",
  paramsSchema: paramsOf({
    threshold: { type: 'number', minimum: 0, maximum: 1 },
    minClusterSize: { type: 'integer', minimum: 1, maximum: MAX_CONTEXT_OBJECTS },
    origin: position,
    deliver: deliverOf('arrange', 'labels', 'none'),
  }),
  hints: usesAi,
  async sanitize(params) {
    return { ...params, deliver: params.deliver ?? 'arrange' };
  },
  async apply(params, context) {
    const { output, reasoning, objects } = await runContent('cluster_similar', params, context, { withoutOwn: true });
    const clusters = clustersOf(output, objects);
    const landed = params.deliver === 'none' ? { moved: [], labels: [] } : await landClusters(clusters, params, context);
    return { result: { ...output, movedObjectIds: landed.moved, createdObjectIds: landed.labels }, reasoning };
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

export const generateContent: ActionDefinition = {
  type: 'generate_content',
  description:
    "Creates notes from `prompt` (lines, comma items, or \"5 ideas about X\"; else the event's object's text), laid out as `style`, from `origin` or beside the event's object.",
  paramsSchema: paramsOf({
    objectId,
    text,
    prompt: text,
    style: { type: 'string', enum: ['sticky', 'mindmap', 'list', 'grid'] },
    count: { type: 'integer', minimum: 1, maximum: MAX_GENERATED_OBJECTS },
    objectType: { type: 'string', minLength: 1, maxLength: 100 },
    origin: position,
    deliver: deliverOf('object', 'none'),
  }),
  hints: usesAi,
  async sanitize(params, context) {
    const subjectId = typeof params.objectId === 'string' ? params.objectId : context.event?.object?.id;
    if (!hasText(params.prompt) && !hasText(params.text) && !subjectId) throw new ActionRefusal('generate_content needs params.prompt, params.text or an object to start from');
    return { ...params, ...(subjectId ? { objectId: subjectId } : {}), deliver: params.deliver ?? 'object' };
  },
  async apply(params, context) {
    const { output, reasoning } = await runContent('generate_content', params, context);
    if (params.deliver === 'none') return { result: { ...output, createdObjectIds: [] }, reasoning };
    const origin = (params.origin as Point | undefined) ?? (await besideSubject(context));
    const created: string[] = [];
    try {
      for (const object of output.objects) {
        const at = clampPoint({ x: origin.x + object.position.x, y: origin.y + object.position.y });
        created.push((await addObject(context, { ...object, position: at })).id);
      }
    } catch (error) {
      throw withProgress(error, `created ${created.length} of ${output.objects.length} object(s) before${listed(created)}`);
    }
    return { result: { ...output, createdObjectIds: created }, reasoning };
  },
};

export const validateDesign: ActionDefinition = {
  type: 'validate_design',
  description: "Checks the objects in the agent's scope against `rules` (default: no overlaps) and tells the hosts the issues (`deliver: notify`).",
  paramsSchema: paramsOf({
    rules: paramsOf({
      minObjects: { type: 'integer', minimum: 0 },
      maxObjects: { type: 'integer', minimum: 0 },
      requiredTypes: { type: 'array', maxItems: MAX_LIST, items: { type: 'string', maxLength: 100 } },
      maxTextLength: { type: 'integer', minimum: 0 },
      noOverlap: { type: 'boolean' },
    }),
    deliver: deliverOf('notify', 'none'),
  }),
  hints: usesAi,
  async sanitize(params) {
    return { ...params, deliver: params.deliver ?? 'notify' };
  },
  async apply(params, context) {
    const { output, reasoning } = await runContent('validate_design', params, context);
    let notified = 0;
    if (!output.valid && params.deliver === 'notify') {
      const lines = output.issues.map((issue) => `• ${issue.message}${issue.objectId ? ` (${issue.objectId})` : ''}`);
      const message = `${output.issues.length} issue(s):\n${lines.join('\n')}`;
      notified = notify(context, { kind: 'hosts' }, { level: 'warning', title: 'Design check', message });
    }
    return { result: { ...output, notified }, reasoning };
  },
};

export const CONTENT_ACTION_DEFINITIONS: ActionDefinition[] = [evaluateAnswer, generateHint, summarize, clusterSimilar, checkSentiment, generateContent, validateDesign];

// ── running the engine ───────────────────────────────────────────────────────────────────

interface ContentRun<A extends ContentActionType> {
  output: ContentOutputOf<A>;
  reasoning: string;
  subject: BoardObject | null;
  objects: BoardObject[];
}

/**
 * Runs the engine on the subject and the scope's objects. `withoutOwn` leaves out what this
 * agent created, so a summary or a cluster label does not feed the next summary or clustering.
 */
async function runContent<A extends ContentActionType>(
  action: A,
  params: Record<string, unknown>,
  context: ActionContext,
  options: { withoutOwn?: boolean } = {},
): Promise<ContentRun<A>> {
  const subject = await subjectOf(params, context);
  const own = agentUserId(context.agent.id);
  const inScope = await objectsInScope(context);
  const objects = (options.withoutOwn ? inScope.filter((object) => object.created_by !== own) : inScope).slice(0, MAX_CONTEXT_OBJECTS);
  const engineParams = Object.fromEntries(Object.entries(params).filter(([key]) => !DELIVERY_PARAMS.has(key)));
  const { output, reasoning } = await context.content({ action, params: engineParams, subject, objects });
  if (output.action !== action) throw new Error(`The content engine answered ${output.action} to ${action}`);
  return { output: output as ContentOutputOf<A>, reasoning, subject, objects };
}

/** The object named by `objectId` (sanitize fills it from the event), else the event's object. */
async function subjectOf(params: Record<string, unknown>, context: ActionContext): Promise<BoardObject | null> {
  const eventObject = context.event?.object ?? null;
  if (typeof params.objectId !== 'string' || params.objectId === eventObject?.id) return eventObject;
  return context.objects.get(context.caller, context.agent.boardId, params.objectId);
}

/** Fills `objectId` from the event; refuses when there is neither an object nor `text` to judge. */
function withAnswer(params: Record<string, unknown>, context: ActionContext): Record<string, unknown> {
  const subjectId = typeof params.objectId === 'string' ? params.objectId : context.event?.object?.id;
  if (subjectId) return { ...params, objectId: subjectId };
  if (hasText(params.text)) return params;
  throw new ActionRefusal('No answer to work on: trigger on an object event, or give params.objectId or params.text');
}

function hasText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

// ── landing results ──────────────────────────────────────────────────────────────────────

function addObject(context: ActionContext, input: ObjectInput): Promise<PlacedObject> {
  return context.objects.add(context.caller, context.agent.boardId, input, context.cause);
}

interface NotificationParams {
  message: string;
  level: AgentNotification['level'];
  title: string;
  /** The object it is about; else the event's. */
  objectId?: string;
}

function notify(context: ActionContext, recipients: Recipients, notification: NotificationParams): number {
  const message = truncate(notification.message, MAX_TEXT);
  return context.sockets.notify(context.agent.boardId, notificationOf({ ...notification, message }, context), recipients);
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

interface Cluster {
  label: string;
  members: BoardObject[];
}

/** The engine's clusters as objects of the scope: unknown ids and repeats are dropped. */
function clustersOf(output: ContentOutputOf<'cluster_similar'>, objects: BoardObject[]): Cluster[] {
  const byId = new Map(objects.map((object) => [object.id, object]));
  const seen = new Set<string>();
  return output.clusters
    .map(({ label, objectIds }) => ({
      label,
      members: objectIds.flatMap((id) => {
        const object = byId.get(id);
        if (!object || seen.has(id)) return [];
        seen.add(id);
        return [object];
      }),
    }))
    .filter(({ members }) => members.length > 0);
}

/** `arrange`: each cluster moved into a column with its label above; `labels`: labels only. */
async function landClusters(clusters: Cluster[], params: Record<string, unknown>, context: ActionContext): Promise<{ moved: string[]; labels: string[] }> {
  const { caller, cause, agent } = context;
  const origin = (params.origin as Point | undefined) ?? topLeftOf(clusters.flatMap(({ members }) => members));
  const moved: string[] = [];
  const labels: string[] = [];
  const label = async (textOfLabel: string, at: Point) => labels.push((await addObject(context, { type: 'text', data: { text: textOfLabel }, position: clampPoint(at) })).id);
  try {
    for (const [column, { label: name, members }] of clusters.entries()) {
      const first = members[0] as BoardObject;
      if (params.deliver === 'labels') {
        await label(name, { x: first.position.x, y: first.position.y - LABEL_GAP });
        continue;
      }
      const x = origin.x + column * COLUMN_STEP;
      for (const [row, member] of members.entries()) {
        await context.objects.update(caller, agent.boardId, member.id, { position: clampPoint({ x, y: origin.y + row * ROW_STEP }) }, cause);
        moved.push(member.id);
      }
      await label(name, { x, y: origin.y - LABEL_GAP });
    }
  } catch (error) {
    throw withProgress(error, `moved ${moved.length} object(s) and created ${labels.length} label(s) before${listed([...moved, ...labels])}`);
  }
  return { moved, labels };
}

function topLeftOf(objects: BoardObject[]): Point {
  if (objects.length === 0) return { x: 0, y: 0 };
  return { x: Math.min(...objects.map(({ position }) => position.x)), y: Math.min(...objects.map(({ position }) => position.y)) };
}

function clampPoint({ x, y }: Point): Point {
  const clamp = (value: number) => Math.min(MAX_COORDINATE, Math.max(-MAX_COORDINATE, value));
  return { x: clamp(x), y: clamp(y) };
}

/** The first ids done, for an error message that must stay short. */
function listed(ids: string[]): string {
  if (ids.length === 0) return '';
  return ` (${ids.slice(0, MAX_LISTED_IDS).join(', ')}${ids.length > MAX_LISTED_IDS ? ', …' : ''})`;
}

/**
 * A refusal midway through a multi-object landing, saying what was already done: the domain's
 * error keeps its kind (the log shows it as refused); anything else is rethrown as it was.
 */
function withProgress(error: unknown, progress: string): unknown {
  if (!(error instanceof AppError)) return error;
  return new AppError(error.kind, `${error.message}; ${progress}`, error.details, error.extra);
}
