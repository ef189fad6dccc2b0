import { MAX_COORDINATE } from '../../boards/schemas.js';
import { ACTION_TYPES, PERSONAS, TRIGGER_EVENTS, VISIBILITIES, type AgentScope, type AgentVisibility, type Instructions, type Persona } from '../agent.js';

/** Bounds of an agent's name, rate and priority. */
export const MAX_AGENT_NAME = 100;
export const MAX_ACTIONS_PER_MINUTE = 60;
/** A budget beyond this is no budget (the column is a 32-bit integer on PostgreSQL). */
export const MAX_BUDGET_TOKENS = 1_000_000_000;
/** Enough for any real lesson plan, small enough to evaluate on every event. */
export const MAX_TRIGGERS = 50;
export const MAX_SCHEDULE_ENTRIES = 20;
export const MAX_SCOPE_ENTRIES = 200;

const shortText = { type: 'string', maxLength: 2_000 };
const textList = { type: 'array', maxItems: 50, items: shortText };
/** Action parameters: free-form, bounded like every client JSON value (http/validate.ts `freeJson`). */
const params = { type: 'object', freeJson: true };
const idList = { type: 'array', maxItems: MAX_SCOPE_ENTRIES, items: { type: 'string', minLength: 1, maxLength: 255 } };

const trigger = {
  type: 'object',
  additionalProperties: false,
  required: ['event', 'action'],
  properties: {
    event: { type: 'string', enum: [...TRIGGER_EVENTS] },
    condition: { type: 'string', maxLength: 500 },
    action: { type: 'string', enum: [...ACTION_TYPES] },
    params,
    allowSelfEvents: { type: 'boolean' },
  },
};

const scheduleEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['at', 'action'],
  properties: {
    at: { type: 'string', minLength: 1, maxLength: 200 },
    action: { type: 'string', enum: [...ACTION_TYPES] },
    params,
  },
};

const instructions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: shortText,
    goals: textList,
    rules: textList,
    triggers: { type: 'array', maxItems: MAX_TRIGGERS, items: trigger },
    schedule: { type: 'array', maxItems: MAX_SCHEDULE_ENTRIES, items: scheduleEntry },
  },
};

const scope = {
  type: 'object',
  additionalProperties: false,
  properties: { frames: idList, objectTypes: idList, participants: idList },
};

const fields = {
  name: { type: 'string', minLength: 1, maxLength: MAX_AGENT_NAME, pattern: '\\S' },
  instructions,
  scope,
  maxActionsPerMinute: { type: 'integer', minimum: 1, maximum: MAX_ACTIONS_PER_MINUTE },
  budgetTokens: { type: ['integer', 'null'], minimum: 0, maximum: MAX_BUDGET_TOKENS },
  priority: { type: 'integer', minimum: 1, maximum: 10 },
};

export const createAgentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'persona', 'instructions'],
  properties: {
    ...fields,
    persona: { type: 'string', enum: [...PERSONAS] },
    visibility: { type: 'string', enum: [...VISIBILITIES] },
    scanExisting: { type: 'boolean' },
  },
};

export const updateAgentSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: fields,
};

export const actionLogQuerySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
  },
};

/** `instructions` as a client sends it: every part optional. */
export type InstructionsInput = Partial<Instructions>;

export interface CreateAgentInput {
  name: string;
  persona: Persona;
  instructions: InstructionsInput;
  scope?: Partial<AgentScope>;
  maxActionsPerMinute?: number;
  budgetTokens?: number | null;
  priority?: number;
  visibility?: AgentVisibility;
  scanExisting?: boolean;
}

export interface UpdateAgentInput {
  name?: string;
  instructions?: InstructionsInput;
  scope?: Partial<AgentScope>;
  maxActionsPerMinute?: number;
  budgetTokens?: number | null;
  priority?: number;
}

/** Instructions with every part present. */
export function instructionsWithDefaults(input: InstructionsInput): Instructions {
  return {
    description: input.description ?? '',
    goals: input.goals ?? [],
    rules: input.rules ?? [],
    triggers: input.triggers ?? [],
    schedule: input.schedule ?? [],
  };
}

export function scopeWithDefaults(input: Partial<AgentScope> | undefined): AgentScope {
  return { frames: input?.frames ?? [], objectTypes: input?.objectTypes ?? [], participants: input?.participants ?? [] };
}

/** `POST /boards/<id>/ai/generate`. */
export interface GenerateInput {
  prompt: string;
  style?: 'sticky' | 'mindmap' | 'list' | 'grid';
  count?: number;
  position?: { x: number; y: number };
}

export const generateInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['prompt'],
  properties: {
    prompt: { type: 'string', minLength: 1, maxLength: 2_000, pattern: '\\S' },
    style: { type: 'string', enum: ['sticky', 'mindmap', 'list', 'grid'] },
    count: { type: 'integer', minimum: 1, maximum: 20 },
    position: {
      type: 'object',
      additionalProperties: false,
      required: ['x', 'y'],
      properties: { x: { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE }, y: { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE } },
    },
  },
};
