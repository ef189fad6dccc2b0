import type { SchemaObject } from 'ajv';
import { AGENT_STATUSES, PERSONAS, VISIBILITIES } from '../../../agents/agent.js';
import { createAgentSchema } from '../../../agents/api/schemas.js';
import { FRAME_VISIBILITIES, LOCK_MODES, ZONE_VISIBILITIES } from '../../../frames/frame.js';
import { openApiSchema, propertyOf, type JsonSchema } from '../jsonSchema.js';
import { count, flag, isoTime, listOf, nullable, oneOfValues, record, text, url } from './common.js';

/**
 * Response bodies of the frame, zone and agent endpoints, as frames/frame.ts `presentFrame`,
 * frames/frameService.ts `bulkAssign` and agents/agent.ts, api/agentStats.ts and api/presets.ts write them.
 */

const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const pixels: JsonSchema = { type: 'number' };

/** A request schema's object property with every part present, as the service stores it with defaults filled in. */
function complete(schema: SchemaObject, name: string): JsonSchema {
  const translated = openApiSchema(propertyOf(schema, name)) as JsonSchema & { properties: Record<string, unknown> };
  return { ...translated, required: Object.keys(translated.properties) };
}

const issuedLink = record({ user_id: text, token: text, link: url, expires_at: isoTime });
const assigned = record({ frame_id: text, success: { const: true }, zone_version: count, participant_link: issuedLink }, ['frame_id', 'success', 'zone_version']);
const refused = record({
  frame_id: text,
  success: { const: false },
  zone_version: { ...nullable(count), description: "The frame's current version; null when no such frame exists." },
  error: record({ statusCode: { type: 'integer' }, message: text }),
});

const agentListItemFields = {
  id: uuid,
  boardUuid: uuid,
  name: text,
  persona: oneOfValues(PERSONAS),
  status: oneOfValues(AGENT_STATUSES),
  priority: { type: 'integer', minimum: 1, maximum: 10 },
  visibility: oneOfValues(VISIBILITIES),
  isThinking: flag,
  maxActionsPerMinute: { type: 'integer', minimum: 1 },
  budgetTokens: { ...nullable(count), description: 'Null: unlimited.' },
  spentTokens: count,
  stats: record({ actionsCount: count, tokensSpent: count, lastActionAt: nullable(isoTime) }),
  createdAt: isoTime,
  updatedAt: isoTime,
  createdBy: text,
};
const instructions = complete(createAgentSchema, 'instructions');

/** Any JSON value: what a trigger or an action carried. */
const anyJson: JsonSchema = {};

export const FRAME_AGENT_SCHEMAS: Record<string, JsonSchema> = {
  Frame: record({
    id: uuid,
    board_id: uuid,
    name: text,
    order: count,
    bounds_x: pixels,
    bounds_y: pixels,
    bounds_width: pixels,
    bounds_height: pixels,
    lock_mode: oneOfValues(LOCK_MODES),
    background_color: nullable(text),
    visibility: oneOfValues(FRAME_VISIBILITIES),
    parent_frame_id: nullable(text),
    assigned_participant_id: nullable(text),
    assigned_user_id: nullable(text),
    zone_visibility: oneOfValues(ZONE_VISIBILITIES),
    zone_version: { type: 'integer', minimum: 1 },
    created_at: isoTime,
    updated_at: isoTime,
  }),
  Message: record({ message: text }),
  BulkAssignResult: record({ assigned: count, failed: count, results: listOf({ oneOf: [assigned, refused] }) }),
  AgentListItem: record(agentListItemFields),
  Agent: record({ ...agentListItemFields, instructions, scope: complete(createAgentSchema, 'scope') }),
  AgentAction: record({
    id: uuid,
    agentId: uuid,
    triggerEventType: text,
    triggerEventData: anyJson,
    shouldAct: flag,
    reasoning: text,
    actionType: text,
    actionParams: anyJson,
    success: flag,
    result: anyJson,
    errorMessage: nullable(text),
    tokensUsed: count,
    latencyMs: { type: 'number', minimum: 0 },
    createdAt: isoTime,
  }),
  AgentStats: record({
    actionsCount: count,
    tokensSpent: count,
    lastActionAt: nullable(isoTime),
    successRate: { type: 'number', minimum: 0, maximum: 1 },
    averageLatencyMs: { type: 'number', minimum: 0 },
    actionsByType: { type: 'object', additionalProperties: count },
    budgetRemaining: { ...nullable(count), description: 'Null when the budget is unlimited.' },
    budgetPercentUsed: { type: 'number', minimum: 0, maximum: 100 },
  }),
  AgentPreset: record({
    persona: oneOfValues(PERSONAS),
    name: text,
    summary: text,
    instructions,
    maxActionsPerMinute: { type: 'integer', minimum: 1 },
    priority: { type: 'integer', minimum: 1, maximum: 10 },
    adapt: { ...listOf(text), description: 'What to change before using the preset.' },
  }),
  GeneratedObjects: record({ objectIds: listOf(text), tokensUsed: count, engine: oneOfValues(['rules', 'llm']) }),
  JsonRpcMessage: {
    type: 'object',
    required: ['jsonrpc'],
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol (streamable HTTP transport).',
    properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, method: text, params: { type: 'object' }, result: {}, error: record({ code: { type: 'integer' }, message: text, data: {} }, ['code', 'message']) },
  },
};
