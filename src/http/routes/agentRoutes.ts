import { Router } from 'express';
import { callerOf } from '../boardCaller.js';
import { route, type Access, type BoardScope } from '../routeSteps.js';
import { validateQuery } from '../validate.js';
import { presentAgent, presentAgentListItem } from '../../agents/agent.js';
import type { AgentService } from '../../agents/api/agentService.js';
import {
  actionLogQuerySchema,
  createAgentSchema,
  generateInputSchema,
  updateAgentSchema,
  type CreateAgentInput,
  type GenerateInput,
  type UpdateAgentInput,
} from '../../agents/api/schemas.js';

/**
 * The "AI agents" endpoints, mounted at /api/v1/boards: `…/<board_id>/agents[/<id>[/…]]`.
 * `scope.credential` accepts the organization's API key or a board token; only a host manages agents.
 */
export function agentRoutes(agents: AgentService, scope: BoardScope): Router {
  const router = Router();
  const boardAuth = scope.credential;
  const ids = (params: Record<string, unknown>) => [String(params.boardId), String(params.agentId)] as const;
  /** The agent, for the board's host (AgentService.get). */
  const agent: Access = (caller, params) => agents.get(caller, ...ids(params));
  const full = (agent: Parameters<typeof presentAgent>[0]) => presentAgent(agent, agents.isThinking(agent.id));

  router.post('/:boardId/agents', ...route({ credential: boardAuth, access: scope.host('manage agents'), body: createAgentSchema }, async (req, res) => {
    res.status(201).json(full(await agents.create(callerOf(res), String(req.params.boardId), req.body as CreateAgentInput)));
  }));

  router.get('/:boardId/agents', boardAuth, async (req, res) => {
    const list = await agents.list(callerOf(res), String(req.params.boardId));
    res.json(list.map((agent) => presentAgentListItem(agent, agents.isThinking(agent.id))));
  });

  router.get('/:boardId/agents/:agentId', boardAuth, async (req, res) => {
    res.json(full(await agents.get(callerOf(res), ...ids(req.params))));
  });

  router.patch('/:boardId/agents/:agentId', ...route({ credential: boardAuth, access: agent, body: updateAgentSchema }, async (req, res) => {
    res.json(full(await agents.update(callerOf(res), ...ids(req.params), req.body as UpdateAgentInput)));
  }));

  router.delete('/:boardId/agents/:agentId', boardAuth, async (req, res) => {
    await agents.remove(callerOf(res), ...ids(req.params));
    res.status(204).end();
  });

  router.post('/:boardId/agents/:agentId/pause', boardAuth, async (req, res) => {
    res.json(full(await agents.pause(callerOf(res), ...ids(req.params))));
  });

  router.post('/:boardId/agents/:agentId/resume', boardAuth, async (req, res) => {
    res.json(full(await agents.resume(callerOf(res), ...ids(req.params))));
  });

  router.post('/:boardId/agents/:agentId/reset', boardAuth, async (req, res) => {
    res.json(full(await agents.reset(callerOf(res), ...ids(req.params))));
  });

  router.get('/:boardId/agents/:agentId/actions', boardAuth, validateQuery(actionLogQuerySchema), async (req, res) => {
    res.json(await agents.actions(callerOf(res), ...ids(req.params), res.locals.query as { limit: number; offset: number }));
  });

  router.get('/:boardId/agents/:agentId/stats', boardAuth, async (req, res) => {
    res.json(await agents.stats(callerOf(res), ...ids(req.params)));
  });

  router.post('/:boardId/ai/generate', ...route({ credential: boardAuth, access: scope.host('manage agents'), body: generateInputSchema }, async (req, res) => {
    res.status(201).json(await agents.generate(callerOf(res), String(req.params.boardId), req.body as GenerateInput));
  }));

  return router;
}

/** `GET /agent-presets[/<persona>]`: ready-to-use instructions per persona (API key). */
export function agentPresetRoutes(agents: AgentService): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    res.json(agents.presets());
  });
  router.get('/:persona', (req, res) => {
    res.json(agents.preset(String(req.params.persona)));
  });
  return router;
}
