import { Router } from 'express';
import { callerOf } from '../boardCaller.js';
import { route, type Access, type BoardScope } from '../routeSteps.js';
import type { AgentService } from '../../agents/api/agentService.js';
import { lazy } from '../../util/lazy.js';

const SERVER_INFO = { name: 'whiteboard-agent', version: '1.0.0' };

/** The MCP SDK (and zod under it, about 15 MiB resident) is loaded by the first MCP request. */
const mcpSdk = lazy(async () => {
  const [{ Server }, { StreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema };
});

/**
 * The MCP endpoint of one agent, mounted at /api/v1/boards: `POST …/<board_id>/agents/<id>/mcp`
 * (streamable HTTP, stateless: each request is answered on its own). An external assistant
 * authenticated as the board's host (API key or host token) lists the action registry as
 * tools and calls them as that agent, under its rights, scope, rate, budget and action log.
 */
export function mcpRoutes(agents: AgentService, scope: BoardScope): Router {
  const router = Router();
  const boardAuth = scope.credential;
  const agentOf = (params: Record<string, unknown>) => [String(params.boardId), String(params.agentId)] as const;

  /** The agent, for the board's host: looked up before the JSON-RPC message is read. */
  const agent: Access = (caller, params) => agents.get(caller, ...agentOf(params));

  router.post('/:boardId/agents/:agentId/mcp', ...route({ credential: boardAuth, access: agent, body: 'any JSON' }, async (req, res) => {
    const tools = await agents.toolsOf(callerOf(res), ...agentOf(req.params));
    const { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema } = await mcpSdk();
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const result = await tools.call(request.params.name, request.params.arguments ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(result.data) }], structuredContent: asRecord(result.data), isError: !result.ok };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }));

  // Stateless: no server-sent stream to open and no session to end.
  router.all('/:boardId/agents/:agentId/mcp', boardAuth, (_req, res) => {
    res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, use POST' }, id: null });
  });

  return router;
}

function asRecord(data: unknown): Record<string, unknown> {
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : { value: data };
}
