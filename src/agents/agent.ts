import type { Agent as AgentRow, AgentAction as AgentActionRow } from '../../generated/sqlite/index.js';
import type { Caller } from '../boards/caller.js';
import { CONTENT_ACTIONS } from './content/contentTypes.js';

/** What an agent is for (its `persona`); each has a preset (agents/api/presets.ts). */
export const PERSONAS = ['tutor', 'moderator', 'timer', 'facilitator', 'custom'] as const;
export type Persona = (typeof PERSONAS)[number];

/** Where an agent is in its life (docs/agents.md): running, paused, done, or stopped by an error. */
export const AGENT_STATUSES = ['active', 'paused', 'completed', 'error'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const VISIBILITIES = ['visible', 'stealth'] as const;
export type AgentVisibility = (typeof VISIBILITIES)[number];

/** The ten trigger events an agent can listen to; docs/decisions/agents/trigger-events.md says which board operation raises which. */
export const TRIGGER_EVENTS = [
  'object:created',
  'object:updated',
  'object:deleted',
  'participant:joined',
  'participant:left',
  'participant:idle',
  'frame:entered',
  'frame:left',
  'timer:tick',
  'schedule:trigger',
] as const;
export type TriggerEventType = (typeof TRIGGER_EVENTS)[number];

/** Every action an agent may take (agents/actions/ defines each once): board and message actions, then content actions. */
export const ACTION_TYPES = [
  'create_object',
  'update_object',
  'delete_object',
  'move_objects',
  'send_notification',
  'move_to_frame',
  'notify_teacher',
  'lock_objects',
  ...CONTENT_ACTIONS,
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export interface Trigger {
  event: TriggerEventType;
  /** An expression over `{event, object, participant, frame, idleSeconds}` (agents/conditions.ts). */
  condition?: string;
  action: ActionType;
  params?: Record<string, unknown>;
  /** React to changes this agent made itself (default false). */
  allowSelfEvents?: boolean;
}

export interface ScheduleEntry {
  /** `every:5min`, `at:09:00`, `cron:<expression>` or the elapsed `HH:MM:SS` (agents/schedules.ts). */
  at: string;
  action: ActionType;
  params?: Record<string, unknown>;
}

export interface Instructions {
  description: string;
  goals: string[];
  rules: string[];
  triggers: Trigger[];
  schedule: ScheduleEntry[];
}

/** Where an agent looks and acts: empty lists mean the whole board. */
export interface AgentScope {
  /** Frames (and zones) the agent reacts in and writes in. */
  frames: string[];
  /** Object types the agent reacts to. */
  objectTypes: string[];
  /** Participants (user ids) the agent reacts to and notifies. */
  participants: string[];
}

/** An agent as stored, with its JSON columns read. */
export interface Agent {
  id: string;
  boardId: string;
  organizationId: string;
  name: string;
  persona: Persona;
  status: AgentStatus;
  instructions: Instructions;
  scope: AgentScope;
  priority: number;
  visibility: AgentVisibility;
  maxActionsPerMinute: number;
  budgetTokens: number | null;
  spentTokens: number;
  actionsCount: number;
  lastActionAt: Date | null;
  memory: AgentMemory;
  scanPending: boolean;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What an agent keeps between runs, cleared by reset: how many hints it gave per object (hints
 * grow more direct), and its last decisions (context for the LLM).
 */
export interface AgentMemory {
  hintsGiven?: Record<string, number>;
  /** How far below the top of each object the agent's next object beside it goes (px): below the ones before. */
  besideOffsets?: Record<string, number>;
  recent?: Array<{ at: string; event: string; action: string; summary: string }>;
}

/** The id an agent's changes are attributed to (`created_by`, `updated_by`): never a person's. */
export function agentUserId(agentId: string): string {
  return `agent:${agentId}`;
}

/**
 * An agent as a caller of the domain services: the rights of the host who created it (the
 * API key or a host token), confined to its scope's frames when it has some, its changes
 * attributed to it.
 */
export function agentCaller(agent: Pick<Agent, 'id' | 'organizationId' | 'boardId' | 'scope'>): Caller {
  return {
    organizationId: agent.organizationId,
    role: 'host',
    userId: agentUserId(agent.id),
    boardId: agent.boardId,
    ...(agent.scope.frames.length > 0 ? { confinedTo: agent.scope.frames } : {}),
  };
}

export function agentFromRow(row: AgentRow): Agent {
  return {
    id: row.id,
    boardId: row.boardId,
    organizationId: row.organizationId,
    name: row.name,
    persona: row.persona as Persona,
    status: row.status as AgentStatus,
    instructions: JSON.parse(row.instructions) as Instructions,
    scope: JSON.parse(row.scope) as AgentScope,
    priority: row.priority,
    visibility: row.visibility as AgentVisibility,
    maxActionsPerMinute: row.maxActionsPerMinute,
    budgetTokens: row.budgetTokens,
    spentTokens: row.spentTokens,
    actionsCount: row.actionsCount,
    lastActionAt: row.lastActionAt,
    memory: JSON.parse(row.memory) as AgentMemory,
    scanPending: row.scanPending,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The full agent record, as the Agents API answers it. */
export function presentAgent(agent: Agent, isThinking: boolean) {
  return {
    ...presentAgentListItem(agent, isThinking),
    instructions: agent.instructions,
    scope: agent.scope,
  };
}

/** A list item: the record without `instructions` and `scope`. */
export function presentAgentListItem(agent: Agent, isThinking: boolean) {
  return {
    id: agent.id,
    boardUuid: agent.boardId,
    name: agent.name,
    persona: agent.persona,
    status: agent.status,
    priority: agent.priority,
    visibility: agent.visibility,
    isThinking,
    maxActionsPerMinute: agent.maxActionsPerMinute,
    budgetTokens: agent.budgetTokens,
    spentTokens: agent.spentTokens,
    stats: { actionsCount: agent.actionsCount, tokensSpent: agent.spentTokens, lastActionAt: agent.lastActionAt?.toISOString() ?? null },
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
    createdBy: agent.createdBy,
  };
}

/** One action log entry, as the Agents API answers it. */
export function presentAction(row: AgentActionRow) {
  return {
    id: row.id,
    agentId: row.agentId,
    triggerEventType: row.triggerEventType,
    triggerEventData: JSON.parse(row.triggerEventData) as unknown,
    shouldAct: row.shouldAct,
    reasoning: row.reasoning,
    actionType: row.actionType,
    actionParams: JSON.parse(row.actionParams) as unknown,
    success: row.success,
    result: JSON.parse(row.result) as unknown,
    errorMessage: row.errorMessage,
    tokensUsed: row.tokensUsed,
    latencyMs: row.latencyMs,
    createdAt: row.createdAt.toISOString(),
  };
}
