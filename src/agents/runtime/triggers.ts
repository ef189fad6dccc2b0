import type { BoardObject } from '../../boards/boardObjects.js';
import type { BusEvent } from '../../events/types.js';
import type { Frame } from '../../frames/frame.js';
import { contains } from '../../frames/zonePermissions.js';
import type { ActionType, Agent, TriggerEventType } from '../agent.js';
import { evaluateCondition, parseCondition, type ConditionNode } from '../conditions.js';
import type { EventParticipant, TriggerEvent } from '../ports.js';

/**
 * How deep a chain of agent actions may go: a person's change triggers an action (depth 1),
 * whose change may trigger another agent's (2), and so on; events of a change at this depth
 * trigger nothing, so no set of agents can loop without bound.
 */
export const MAX_CAUSE_DEPTH = 3;

/**
 * The trigger events a bus event raises (docs/decisions/agents/trigger-events.md):
 * object events from every change of a board's documents (REST, sockets, agents),
 * participant joins and leaves, and frame:left / frame:entered from a participant's reported
 * location moving between frames. Idle, timer and schedule events come from the runtime's tick.
 */
export function triggerEventsOf(event: BusEvent, frames: readonly Frame[]): TriggerEvent[] {
  const base = { boardId: event.payload.board_id, organizationId: event.payload.organization_id, occurredAt: event.occurredAt, idleSeconds: null };
  const cause = event.meta.cause ?? null;
  switch (event.name) {
    case 'object.created':
    case 'object.updated':
    case 'object.deleted': {
      const object = event.meta.object ?? null;
      const type = `object:${event.name.slice('object.'.length)}` as TriggerEventType;
      const by = event.name === 'object.created' ? event.payload.created_by : event.name === 'object.updated' ? event.payload.updated_by : event.payload.deleted_by;
      const data = { object_id: event.payload.object_id, object_type: event.payload.object_type, zone_id: event.payload.zone_id ?? null, by, version: event.payload.version };
      return [{ ...base, type, data, object, participant: null, frameId: object ? frameAt(object.position, frames) : null, cause }];
    }
    case 'participant.joined':
    case 'participant.left': {
      const { user } = event.payload;
      const participant: EventParticipant = { user_id: user.user_id, role: user.user_role, user_type: user.user_type };
      const type = event.name === 'participant.joined' ? 'participant:joined' : 'participant:left';
      const data = { user_id: user.user_id, user_role: user.user_role, user_type: user.user_type, participant_count: event.payload.participant_count };
      return [{ ...base, type, data, object: null, participant, frameId: null, cause: null }];
    }
    case 'participant.moved': {
      const { user_id, user_role, from_frame_id, to_frame_id } = event.payload;
      const raised: TriggerEvent[] = [];
      const participantIn = (frameId: string): EventParticipant => ({ user_id, role: user_role, frameId });
      if (from_frame_id) raised.push({ ...base, type: 'frame:left', data: { user_id, frame_id: from_frame_id, to_frame_id }, object: null, participant: participantIn(from_frame_id), frameId: from_frame_id, cause: null });
      if (to_frame_id) raised.push({ ...base, type: 'frame:entered', data: { user_id, frame_id: to_frame_id, from_frame_id }, object: null, participant: participantIn(to_frame_id), frameId: to_frame_id, cause: null });
      return raised;
    }
    default:
      return [];
  }
}

/** The trigger events a bus event may raise (the cheap question asked before any work). */
export function triggerTypesOf(eventName: string): readonly TriggerEventType[] {
  return TRIGGER_TYPES_BY_EVENT[eventName] ?? [];
}

const TRIGGER_TYPES_BY_EVENT: Readonly<Record<string, readonly TriggerEventType[]>> = {
  'object.created': ['object:created'],
  'object.updated': ['object:updated'],
  'object.deleted': ['object:deleted'],
  'participant.joined': ['participant:joined'],
  'participant.left': ['participant:left'],
  'participant.moved': ['frame:left', 'frame:entered'],
};

/** Whether an active agent among `agents` has a trigger on one of `types`. */
export function anyListens(agents: readonly Agent[], types: readonly TriggerEventType[]): boolean {
  return agents.some((agent) => agent.status === 'active' && agent.instructions.triggers.some((trigger) => types.includes(trigger.event)));
}

/** The frame holding a point (the smallest, when frames nest), or null. */
export function frameAt(point: { x: number; y: number }, frames: readonly Frame[]): string | null {
  let best: Frame | null = null;
  for (const frame of frames) {
    if (!contains(frame.bounds, point)) continue;
    if (!best || frame.bounds.width * frame.bounds.height < best.bounds.width * best.bounds.height) best = frame;
  }
  return best?.id ?? null;
}

/** A trigger of an agent that an event fires, with the action to run. */
export interface FiredTrigger {
  index: number;
  action: ActionType;
  params: Record<string, unknown>;
}

/** Parsed conditions, per condition text: parsed once, evaluated on every event. */
const parsedConditions = new Map<string, ConditionNode>();
const MAX_CACHED_CONDITIONS = 10_000;

function conditionOf(source: string): ConditionNode {
  let node = parsedConditions.get(source);
  if (!node) {
    // Checked when the agent was saved; a condition that no longer parses never holds.
    node = parseCondition(source);
    if (parsedConditions.size >= MAX_CACHED_CONDITIONS) parsedConditions.clear();
    parsedConditions.set(source, node);
  }
  return node;
}

/**
 * The triggers of `agent` that `event` fires: the event's type, the agent's scope (frames,
 * object types, participants), its own changes unless `allowSelfEvents`, the depth bound of
 * chains, and each trigger's condition.
 */
export function firedTriggers(agent: Agent, event: TriggerEvent, frames: readonly Frame[]): FiredTrigger[] {
  if (agent.status !== 'active' || !isInScope(agent, event, frames)) return [];
  if (event.cause && event.cause.depth >= MAX_CAUSE_DEPTH) return [];
  const fired: FiredTrigger[] = [];
  // Built once per event, and only if a condition needs it.
  let scope: Record<string, unknown> | null = null;
  agent.instructions.triggers.forEach((trigger, index) => {
    if (trigger.event !== event.type) return;
    if (event.cause?.agentId === agent.id && trigger.allowSelfEvents !== true) return;
    if (trigger.condition && trigger.condition.trim() !== '' && !holds(trigger.condition, (scope ??= conditionScope(event, frames)))) return;
    fired.push({ index, action: trigger.action, params: trigger.params ?? {} });
  });
  return fired;
}

function isInScope(agent: Agent, event: TriggerEvent, boardFrames: readonly Frame[]): boolean {
  const { frames, objectTypes, participants } = agent.scope;
  if (frames.length > 0 && !isInFrames(frames, event, boardFrames)) return false;
  if (objectTypes.length > 0 && event.object && !objectTypes.includes(event.object.type)) return false;
  if (participants.length > 0 && event.participant && !participants.includes(event.participant.user_id)) return false;
  return true;
}

/**
 * Whether an event happened inside one of the scope's frames: its object's position lies in
 * one (frames may nest: an object in an inner frame is inside the outer one too), or the frame
 * a participant reported is one of them or lies inside one.
 */
function isInFrames(scopeFrames: readonly string[], event: TriggerEvent, boardFrames: readonly Frame[]): boolean {
  const scoped = boardFrames.filter((frame) => scopeFrames.includes(frame.id));
  if (event.object) return scoped.some((frame) => contains(frame.bounds, event.object!.position));
  if (event.frameId === null) return false;
  if (scopeFrames.includes(event.frameId)) return true;
  const reported = boardFrames.find((frame) => frame.id === event.frameId);
  return reported !== undefined && scoped.some((frame) => contains(frame.bounds, reported.bounds));
}

function holds(condition: string, scope: Record<string, unknown>): boolean {
  try {
    return evaluateCondition(conditionOf(condition), scope);
  } catch {
    return false;
  }
}

/** What conditions and `{{…}}` templates read: `{event, object, participant, frame, idleSeconds}`. */
export function conditionScope(event: TriggerEvent | null, frames: readonly Frame[]): Record<string, unknown> {
  if (!event) return {};
  const frame = event.frameId ? frames.find((candidate) => candidate.id === event.frameId) : undefined;
  return {
    event: { type: event.type, ...event.data, at: event.occurredAt.toISOString() },
    object: event.object ? plainObject(event.object) : null,
    participant: event.participant ?? null,
    frame: frame ? { id: frame.id, name: frame.name, ...frame.bounds, zone: frame.assignedUserId ?? frame.assignedParticipantId } : null,
    idleSeconds: event.idleSeconds,
  };
}

function plainObject(object: BoardObject): Record<string, unknown> {
  return JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
}
