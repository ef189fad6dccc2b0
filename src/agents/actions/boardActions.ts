import type { BoardObject } from '../../boards/boardObjects.js';
import { MAX_COORDINATE, type ObjectInput } from '../../boards/schemas.js';
import { contains } from '../../frames/zonePermissions.js';
import { fitToText, NOTE_TYPE } from '../content/noteLayout.js';
import { ActionRefusal, subjectIdOf, subjectIdsOf, type ActionContext, type ActionDefinition } from './action.js';

/** Where an agent puts a new object when the params do not say: beside the event's object. */
const BESIDE_GAP = 20;
const DEFAULT_SIZE = 200;
/** Objects whose neighbours an agent remembers (memory stays small). */
const MAX_REMEMBERED_PLACEMENTS = 1_000;
/** Most objects one action moves or locks. */
const MAX_OBJECTS_PER_ACTION = 200;

const coordinate = { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE };
const size = { type: 'number', exclusiveMinimum: 0, maximum: MAX_COORDINATE };
const position = { type: 'object', additionalProperties: false, required: ['x', 'y'], properties: { x: coordinate, y: coordinate } };
const objectId = { type: 'string', minLength: 1, maxLength: 255 };
const objectIds = { type: 'array', maxItems: MAX_OBJECTS_PER_ACTION, items: objectId };
const data = { type: 'object', freeJson: true };

const writes = { readOnly: false, destructive: false, idempotent: false, usesAi: false };

export const createObject: ActionDefinition = {
  type: 'create_object',
  description: 'Creates an object (default a sticky note) at `position`, or beside the object the event is about; a note is sized to show its whole `data.text`.',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { type: { type: 'string', minLength: 1, maxLength: 100 }, data, position, width: size, height: size },
  },
  hints: writes,
  async sanitize(params, context) {
    const object = { type: NOTE_TYPE, data: {}, ...params } as Omit<ObjectInput, 'position'>;
    return { ...object, position: params.position ?? (await besideSubject(context, fitToText(object).height)) };
  },
  async apply(params, context) {
    const created = await context.objects.add(context.caller, context.agent.boardId, fitToText(params as unknown as ObjectInput), context.cause);
    return { result: { objectId: created.id, zoneId: created.zone_id ?? null }, reasoning: `Created a ${created.type}` };
  },
};

export const updateObject: ActionDefinition = {
  type: 'update_object',
  description: "Changes an object: `data` is merged into the object's data; `position`, `width`, `height` replace.",
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { objectId, data, position, width: size, height: size },
  },
  hints: { ...writes, idempotent: true },
  async sanitize(params, context) {
    return { ...params, objectId: subjectIdOf(params, context) };
  },
  async apply(params, context) {
    const { objectId: id, data: patchData, ...rest } = params as { objectId: string; data?: Record<string, unknown> };
    const current = await context.objects.get(context.caller, context.agent.boardId, id);
    const patch = { ...rest, ...(patchData ? { data: { ...current.data, ...patchData } } : {}) };
    if (Object.keys(patch).length === 0) throw new ActionRefusal('Nothing to change: give data, position, width or height');
    await context.objects.update(context.caller, context.agent.boardId, id, patch, context.cause);
    return { result: { objectId: id, changed: Object.keys(patch) }, reasoning: `Updated ${Object.keys(patch).join(', ')}` };
  },
};

export const deleteObject: ActionDefinition = {
  type: 'delete_object',
  description: 'Removes an object (the one the event is about unless `objectId` says otherwise).',
  paramsSchema: { type: 'object', additionalProperties: false, properties: { objectId } },
  hints: { ...writes, destructive: true, idempotent: true },
  async sanitize(params, context) {
    return { objectId: subjectIdOf(params, context) };
  },
  async apply(params, context) {
    const removed = await context.objects.remove(context.caller, context.agent.boardId, params.objectId as string, context.cause);
    return { result: { objectId: removed.id, type: removed.type }, reasoning: `Removed a ${removed.type}` };
  },
};

export const moveObjects: ActionDefinition = {
  type: 'move_objects',
  description: 'Moves objects by `dx`/`dy`, or one object to `position`.',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { objectIds, objectId, dx: coordinate, dy: coordinate, position },
  },
  hints: { ...writes, idempotent: false },
  async sanitize(params, context) {
    const ids = subjectIdsOf(params, context);
    if (params.position && ids.length !== 1) throw new ActionRefusal('`position` moves one object; use dx/dy for several');
    if (!params.position && params.dx === undefined && params.dy === undefined) throw new ActionRefusal('Give dx/dy or position');
    return { ...params, objectIds: ids };
  },
  async apply(params, context) {
    const { objectIds: ids, dx = 0, dy = 0, position: to } = params as { objectIds: string[]; dx?: number; dy?: number; position?: { x: number; y: number } };
    const moved: string[] = [];
    for (const id of ids) {
      const object = await context.objects.get(context.caller, context.agent.boardId, id);
      const target = to ?? { x: object.position.x + dx, y: object.position.y + dy };
      await context.objects.update(context.caller, context.agent.boardId, id, { position: target }, context.cause);
      moved.push(id);
    }
    return { result: { moved }, reasoning: `Moved ${moved.length} object(s)` };
  },
};

export const lockObjects: ActionDefinition = {
  type: 'lock_objects',
  description: "Locks objects (guests can no longer change them) or, with `locked: false`, unlocks them; `all: true` takes every object in the agent's scope.",
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { objectIds, objectId, all: { type: 'boolean' }, locked: { type: 'boolean' } },
  },
  hints: { ...writes, idempotent: true },
  async sanitize(params, context) {
    const ids = params.all === true ? (await objectsInScope(context)).map((object) => object.id) : subjectIdsOf(params, context);
    return { objectIds: ids.slice(0, MAX_OBJECTS_PER_ACTION), locked: params.locked !== false };
  },
  async apply(params, context) {
    const { objectIds: ids, locked } = params as { objectIds: string[]; locked: boolean };
    for (const id of ids) await context.objects.update(context.caller, context.agent.boardId, id, { locked }, context.cause);
    return { result: { objectIds: ids, locked }, reasoning: `${locked ? 'Locked' : 'Unlocked'} ${ids.length} object(s)` };
  },
};

/** The objects an agent may act on: those it can see, within its scope's frames and object types. */
export async function objectsInScope(context: ActionContext): Promise<BoardObject[]> {
  const { scope, boardId } = context.agent;
  const all = await context.objects.list(context.caller, boardId);
  const frames = scope.frames.length > 0 ? (await context.frames.framesOfBoard(boardId)).filter((frame) => scope.frames.includes(frame.id)) : null;
  return all.filter((object) => {
    if (scope.objectTypes.length > 0 && !scope.objectTypes.includes(object.type)) return false;
    return !frames || frames.some((frame) => contains(frame.bounds, object.position));
  });
}

/**
 * Where a new object goes when the params do not say: to the right of the event's object,
 * below what the agent already put beside it (`height`, the new object's, moves the next one
 * further down), kept inside the frame that holds it (so a hint stays in the student's zone);
 * else the top-left of the agent's first frame; else the origin.
 */
export async function besideSubject(context: ActionContext, height = DEFAULT_SIZE): Promise<{ x: number; y: number }> {
  const frames = await context.frames.framesOfBoard(context.agent.boardId);
  const subject = context.event?.object;
  if (!subject) {
    const first = frames.find((frame) => context.agent.scope.frames.includes(frame.id));
    return first ? { x: first.bounds.x + BESIDE_GAP, y: first.bounds.y + BESIDE_GAP } : { x: 0, y: 0 };
  }
  const offsets = (context.memory.besideOffsets ??= {});
  const known = Object.hasOwn(offsets, subject.id);
  const offset = known ? (offsets[subject.id] ?? 0) : 0;
  if (!known && Object.keys(offsets).length >= MAX_REMEMBERED_PLACEMENTS) context.memory.besideOffsets = {};
  // Each object the agent puts beside the same one goes below the previous: feedback, then hints.
  (context.memory.besideOffsets ??= {})[subject.id] = offset + height + BESIDE_GAP;
  const point = { x: subject.position.x + (subject.width ?? DEFAULT_SIZE) + BESIDE_GAP, y: subject.position.y + BESIDE_GAP + offset };
  const holder = frames.find((frame) => contains(frame.bounds, subject.position));
  if (!holder) return point;
  const { x, y, width, height: frameHeight } = holder.bounds;
  return { x: Math.min(Math.max(point.x, x), x + width), y: Math.min(Math.max(point.y, y), y + frameHeight) };
}
