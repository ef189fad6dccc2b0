import { actionLogQuerySchema, createAgentSchema, generateInputSchema, updateAgentSchema } from '../../../agents/api/schemas.js';
import { assignSchema, bulkAssignSchema, cloneFrameSchema, createFrameSchema, listFramesQuerySchema, updateFrameSchema } from '../../../frames/schemas.js';
import { schemaRef } from '../jsonSchema.js';
import type { OperationSpec } from '../operationSpec.js';
import { listOf } from '../schemas/common.js';

/** http/routes/frameRoutes.ts, agentRoutes.ts and mcpRoutes.ts. */

const frames = 'Frames and zones';
const agents = 'Agents';
const frame = (description: string) => ({ 200: { description, schema: 'Frame' } });
const agent = (description: string) => ({ 200: { description, schema: 'Agent' } });

export const FRAME_OPERATIONS: OperationSpec[] = [
  {
    method: 'post', path: '/boards/{boardId}/frames', tag: frames, summary: 'Create a frame or a zone', credential: 'board', body: { name: 'CreateFrameRequest', schema: createFrameSchema },
    description: 'A frame with `assigned_participant_id` or `assigned_user_id` is a student zone (`assigned_user_id` wins when both are given); zones may not overlap (409). Only the host creates zones or sets a `lock_mode` other than `none` (403).',
    responses: { 201: { description: 'The frame.', schema: 'Frame' } }, errors: [409],
  },
  {
    method: 'get', path: '/boards/{boardId}/frames', tag: frames, summary: 'List frames', credential: 'board', query: listFramesQuerySchema,
    description: 'In presentation order; zones hidden from the caller are left out.',
    responses: { 200: { description: 'The frames.', schema: listOf(schemaRef('Frame')) } }, errors: [],
  },
  {
    method: 'get', path: '/boards/{boardId}/frames/{frameId}', tag: frames, summary: 'Read a frame', credential: 'board',
    responses: frame('The frame.'), errors: [],
  },
  {
    method: 'patch', path: '/boards/{boardId}/frames/{frameId}', tag: frames, summary: 'Change a frame', credential: 'board', body: { name: 'UpdateFrameRequest', schema: updateFrameSchema },
    description: 'Zones are changed by the host only; moving a zone moves the objects inside it.',
    responses: frame('The frame.'), errors: [409],
  },
  {
    method: 'delete', path: '/boards/{boardId}/frames/{frameId}', tag: frames, summary: 'Archive a frame', credential: 'board',
    description: 'The frame becomes `archived`; its objects are kept, and a zone loses its assignment.',
    responses: { 200: { description: 'Archived.', schema: 'Message' } }, errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/frames/{frameId}/clone', tag: frames, summary: 'Clone a frame', credential: 'board', body: { name: 'CloneFrameRequest', schema: cloneFrameSchema },
    description: "Copies bounds (moved by `offsetX`, `offsetY`), lock mode and color, not objects. A guest's copy is unlocked (`none`): only the host locks frames.",
    responses: { 201: { description: 'The copy, its `parent_frame_id` the source.', schema: 'Frame' } }, errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/frames/{frameId}/assign', tag: frames, summary: 'Assign a frame (make it a zone)', credential: 'board', body: { name: 'AssignRequest', schema: assignSchema },
    responses: frame('The zone.'), errors: [409],
  },
  {
    method: 'post', path: '/boards/{boardId}/frames/{frameId}/unassign', tag: frames, summary: 'Unassign a zone', credential: 'board',
    responses: frame('The frame, both assignments null.'), errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/zones/bulk-assign', tag: frames, summary: 'Assign many zones', credential: 'board', body: { name: 'BulkAssignRequest', schema: bulkAssignSchema },
    description: 'Each entry succeeds or fails on its own. With `issue_links`, each assigned user gets a personal link (created where missing).',
    responses: { 200: { description: 'One result per entry.', schema: 'BulkAssignResult' } }, errors: [],
  },
];

const agentPath = '/boards/{boardId}/agents/{agentId}';

export const AGENT_OPERATIONS: OperationSpec[] = [
  {
    method: 'post', path: '/boards/{boardId}/agents', tag: agents, summary: 'Create an agent', credential: 'board', body: { name: 'CreateAgentRequest', schema: createAgentSchema },
    responses: { 201: { description: 'The agent.', schema: 'Agent' } }, errors: [],
  },
  {
    method: 'get', path: '/boards/{boardId}/agents', tag: agents, summary: "List a board's agents", credential: 'board',
    responses: { 200: { description: 'The agents, without instructions and scope.', schema: listOf(schemaRef('AgentListItem')) } }, errors: [],
  },
  { method: 'get', path: agentPath, tag: agents, summary: 'Read an agent', credential: 'board', responses: agent('The agent.'), errors: [] },
  {
    method: 'patch', path: agentPath, tag: agents, summary: 'Change an agent', credential: 'board', body: { name: 'UpdateAgentRequest', schema: updateAgentSchema },
    responses: agent('The agent.'), errors: [409],
  },
  {
    method: 'delete', path: agentPath, tag: agents, summary: 'Delete an agent', credential: 'board',
    responses: { 204: { description: 'Deleted, with its action log.' } }, errors: [],
  },
  {
    method: 'post', path: `${agentPath}/pause`, tag: agents, summary: 'Pause an agent', credential: 'board',
    responses: agent('The agent, `paused`.'), errors: [400, 409],
  },
  {
    method: 'post', path: `${agentPath}/resume`, tag: agents, summary: 'Resume a paused agent', credential: 'board',
    responses: agent('The agent, `active`.'), errors: [400, 409],
  },
  {
    method: 'post', path: `${agentPath}/reset`, tag: agents, summary: "Clear an agent's working memory", credential: 'board',
    responses: agent('The agent; its instructions are kept.'), errors: [],
  },
  {
    method: 'get', path: `${agentPath}/actions`, tag: agents, summary: "Read an agent's action log", credential: 'board', query: actionLogQuerySchema,
    responses: { 200: { description: 'Newest first.', schema: listOf(schemaRef('AgentAction')) } }, errors: [],
  },
  {
    method: 'get', path: `${agentPath}/stats`, tag: agents, summary: "Read an agent's statistics", credential: 'board',
    responses: { 200: { description: 'The statistics.', schema: 'AgentStats' } }, errors: [],
  },
  {
    method: 'post', path: `${agentPath}/mcp`, tag: agents, summary: 'Use the board as one agent over MCP', credential: 'board',
    description:
      "A stateless Model Context Protocol endpoint (streamable HTTP, JSON answers): `tools/list` lists the agents' action registry, `tools/call` acts as this agent, " +
      'under its scope, rate, budget and action log. Send `Accept: application/json, text/event-stream`. Host only.',
    rawBody: { contentType: 'application/json', schema: schemaRef('JsonRpcMessage'), description: 'A JSON-RPC 2.0 request or notification.' },
    responses: {
      200: { description: 'The JSON-RPC answer.', schema: 'JsonRpcMessage' },
      202: { description: 'A notification, accepted (no body).' },
      406: { description: 'The `Accept` header does not accept JSON and event streams (a JSON-RPC error).', schema: 'JsonRpcMessage' },
    },
    errors: [],
  },
  {
    method: 'get', path: `${agentPath}/mcp`, tag: agents, summary: 'Refused: the MCP endpoint is stateless', credential: 'board',
    description: 'No server-sent stream to open: answers 405 (any method but POST does).',
    responses: { 405: { description: 'A JSON-RPC error; `Allow: POST`.', schema: 'JsonRpcMessage' } }, errors: [],
  },
  {
    method: 'delete', path: `${agentPath}/mcp`, tag: agents, summary: 'Refused: the MCP endpoint has no sessions', credential: 'board',
    responses: { 405: { description: 'A JSON-RPC error; `Allow: POST`.', schema: 'JsonRpcMessage' } }, errors: [],
  },
  {
    method: 'post', path: '/boards/{boardId}/ai/generate', tag: agents, summary: 'Generate notes from a prompt', credential: 'board', body: { name: 'GenerateRequest', schema: generateInputSchema },
    description: "Creates objects with the caller's rights (host only); spends one of the plan's AI requests.",
    responses: { 201: { description: 'The objects created.', schema: 'GeneratedObjects' } }, errors: [],
  },
  {
    method: 'get', path: '/agent-presets', tag: agents, summary: 'List agent presets', credential: 'apiKey',
    responses: { 200: { description: 'One preset per persona.', schema: listOf(schemaRef('AgentPreset')) } }, errors: [],
  },
  {
    method: 'get', path: '/agent-presets/{persona}', tag: agents, summary: "Read a persona's preset", credential: 'apiKey',
    responses: { 200: { description: 'The preset.', schema: 'AgentPreset' } }, errors: [404],
  },
];
