import type { Caller } from '../../boards/caller.js';
import type { ObjectService } from '../../objects/objectService.js';
import type { ChangeCause } from '../../boards/ports.js';
import type { ActionType, Agent, AgentMemory } from '../agent.js';
import type { ContentRequest, ContentResult } from '../content/contentTypes.js';
import type { AgentFrames, AgentSockets, TriggerEvent } from '../ports.js';

/** The object operations an agent acts through: the same functions REST calls. */
export type AgentObjects = Pick<ObjectService, 'add' | 'list' | 'get' | 'update' | 'remove'>;

/** Everything one action run may use. */
export interface ActionContext {
  agent: Agent;
  /** The event that triggered the run; null for a call from outside (MCP, `ai/generate`). */
  event: TriggerEvent | null;
  /** The agent as a caller of the domain services: the host's rights, confined to its scope's frames. */
  caller: Caller;
  /** Attached to every change the action makes, so the events it raises know their cause. */
  cause: ChangeCause;
  objects: AgentObjects;
  frames: AgentFrames;
  sockets: AgentSockets;
  /** Runs the content engine, within the agent's token budget and the plan's AI requests. */
  content(request: Omit<ContentRequest, 'agent'>): Promise<ContentResult>;
  /** The agent's working memory; changes are kept after the run. */
  memory: AgentMemory;
}

/** What an action did: the log entry's `result` and `reasoning`. */
export interface ActionOutcome {
  result: Record<string, unknown>;
  reasoning: string;
}

/** What MCP clients and the LLM are told about an action (MCP tool annotations). */
export interface ActionHints {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  /** Runs the content engine: spends tokens and counts against `ai_requests_monthly`. */
  usesAi: boolean;
}

/**
 * One action type, defined once for the trigger runtime, the LLM and MCP: the JSON schema of
 * its params, a sanitize step that fills what the event implies or refuses (ActionRefusal),
 * and the apply step that acts through the domain services.
 */
export interface ActionDefinition {
  type: ActionType;
  description: string;
  paramsSchema: Record<string, unknown>;
  hints: ActionHints;
  sanitize(params: Record<string, unknown>, context: ActionContext): Promise<Record<string, unknown>>;
  apply(params: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome>;
}

/** An action that cannot be done as asked; logged with `success: false` and this message. */
export class ActionRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionRefusal';
  }
}

/** The subject object of an action: named in params, else the one the event is about. */
export function subjectIdOf(params: Record<string, unknown>, context: ActionContext): string {
  const named = typeof params.objectId === 'string' ? params.objectId : null;
  const id = named ?? context.event?.object?.id ?? null;
  if (!id) throw new ActionRefusal('No object to act on: give params.objectId or trigger on an object event');
  return id;
}

/** Object ids named in params (`objectIds`, `objectId`), else the event's object. */
export function subjectIdsOf(params: Record<string, unknown>, context: ActionContext): string[] {
  if (Array.isArray(params.objectIds)) return params.objectIds.filter((id): id is string => typeof id === 'string');
  return [subjectIdOf(params, context)];
}
