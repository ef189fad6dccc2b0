import type { BoardObject } from '../../boards/boardObjects.js';
import { MAX_CONTEXT_OBJECTS, MAX_GENERATED_OBJECTS, type ContentOutputOf } from '../content/contentTypes.js';
import { fitToText, NOTE_TYPE } from '../content/noteLayout.js';
import { truncate } from '../content/textTools.js';
import { ActionRefusal, type ActionContext, type ActionDefinition } from './action.js';
import { besideSubject } from './boardActions.js';
import { addBeside, addObject, clampPoint, listed, notify, withProgress, type Point } from './contentLanding.js';
import { deliverOf, hasText, MAX_LIST, objectId, paramsOf, position, text, usesAi } from './contentParams.js';
import { runContent } from './contentRun.js';

/**
 * The content actions about the board as a whole: summarize and validate_design read the
 * agent's scope and report on it, cluster_similar arranges it, generate_content adds to it.
 */

/** A summary note holds the summary and its points; longer would not read as a note. */
const MAX_NOTE_TEXT = 5_000;
/** cluster_similar's layout: one column per cluster, its label above it. */
const COLUMN_STEP = 260;
const ROW_STEP = 220;
const LABEL_GAP = 60;

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
      const note = { type: NOTE_TYPE, data: { text: truncate(summaryText, MAX_NOTE_TEXT) } };
      const at = params.position as Point | undefined;
      created.push((at ? await addObject(context, { ...note, position: at }) : await addBeside(context, note)).id);
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
    const origin = (params.origin as Point | undefined) ?? (await besideSubject(context, extentOf(output.objects)));
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

/** How far generated objects reach below their origin, each at its fitted size: what lands beside an object next goes below. */
function extentOf(objects: ContentOutputOf<'generate_content'>['objects']): number {
  return Math.max(0, ...objects.map((object) => object.position.y + (fitToText(object).height ?? 0)));
}

function topLeftOf(objects: BoardObject[]): Point {
  if (objects.length === 0) return { x: 0, y: 0 };
  return { x: Math.min(...objects.map(({ position }) => position.x)), y: Math.min(...objects.map(({ position }) => position.y)) };
}
