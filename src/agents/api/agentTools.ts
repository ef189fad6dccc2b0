import { ACTION_TYPES, agentCaller, type ActionType, type Agent } from '../agent.js';
import type { AgentObjects } from '../actions/action.js';
import type { ActionRegistry } from '../actions/registry.js';
import type { RunOutcome, RunRequest } from '../runtime/agentRunner.js';

/** A tool as MCP lists it (`tools/list`), with the MCP annotations. */
export interface AgentTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** What a tool call answers: its data, and whether it failed (MCP `isError`). */
export interface ToolResult {
  ok: boolean;
  data: unknown;
}

/** Objects one `list_objects` call answers at most. */
const MAX_LISTED_OBJECTS = 500;

/**
 * The action registry as tools for an external assistant (MCP): every action, plus
 * `list_objects`, run as one agent of the board, so the assistant works under that agent's
 * rights, scope, rate, budget and action log, exactly as the agent's own triggers do.
 */
export class AgentTools {
  constructor(
    private readonly deps: {
      actions: ActionRegistry;
      objects: AgentObjects;
      runNow(agent: Agent, request: Omit<RunRequest, 'agent'>): Promise<RunOutcome>;
    },
  ) {}

  list(): AgentTool[] {
    const listObjects: AgentTool = {
      name: 'list_objects',
      description: "Lists the board's objects the agent may see (id, type, data, position, size, zone).",
      inputSchema: { type: 'object', additionalProperties: false, properties: { type: { type: 'string', description: 'Only objects of this type' } } },
      annotations: { title: 'list objects', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    };
    return [
      listObjects,
      ...this.deps.actions.all().map(
        (action): AgentTool => ({
          name: action.type,
          description: action.description + (action.hints.usesAi ? ' Uses AI: spends tokens and counts against the plan’s AI requests.' : ''),
          inputSchema: forClients(action.paramsSchema),
          annotations: {
            title: action.type.replace(/_/g, ' '),
            readOnlyHint: action.hints.readOnly,
            destructiveHint: action.hints.destructive,
            idempotentHint: action.hints.idempotent,
            openWorldHint: false,
          },
        }),
      ),
    ];
  }

  async call(agent: Agent, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (name === 'list_objects') {
      if (agent.status !== 'active') return { ok: false, data: { error: 'The agent is not active' } };
      const objects = await this.deps.objects.list(agentCaller(agent), agent.boardId);
      const wanted = typeof args.type === 'string' ? objects.filter((object) => object.type === args.type) : objects;
      return { ok: true, data: { objects: wanted.slice(0, MAX_LISTED_OBJECTS), total: wanted.length } };
    }
    if (!(ACTION_TYPES as readonly string[]).includes(name)) return { ok: false, data: { error: `Unknown tool ${name}` } };
    const outcome = await this.deps.runNow(agent, { action: name as ActionType, params: args, event: null, trigger: { type: 'mcp:tool', data: { tool: name } } });
    return outcome.success ? { ok: true, data: outcome.result } : { ok: false, data: { error: outcome.errorMessage, logId: outcome.id } };
  }
}

/** A params schema as clients read it: the service's own `freeJson` keyword becomes a plain object. */
function forClients(schema: unknown): Record<string, unknown> {
  if (Array.isArray(schema)) return schema.map(forClients) as unknown as Record<string, unknown>;
  if (!schema || typeof schema !== 'object') return schema as Record<string, unknown>;
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'freeJson').map(([key, value]) => [key, typeof value === 'object' ? forClients(value) : value]));
}
