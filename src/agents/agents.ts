import type { Board } from '../boards/board.js';
import type { Caller } from '../boards/caller.js';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { ActionWindows } from '../store/actionWindows.js';
import type { PrismaClient } from '../store/database.js';
import type { RunTurns } from '../store/runTurns.js';
import type { AgentObjects } from './actions/action.js';
import { createActionRegistry } from './actions/registry.js';
import { AgentRuntime } from './runtime/agentRuntime.js';
import { AgentService } from './api/agentService.js';
import type { AgentLifecycle } from './ports.js';
import { AgentTools } from './api/agentTools.js';
import { BoardAssistant } from './api/boardAssistant.js';
import { createLlmEngine } from './content/llmEngine.js';
import { createRuleEngine } from './content/ruleEngine.js';
import type { ContentEngine } from './content/contentTypes.js';
import type { AgentRunObserver } from './runtime/agentRunner.js';
import type { AgentFrames, AgentSockets } from './ports.js';

export interface AgentsOptions {
  db: PrismaClient;
  clock: Clock;
  logger: Logger;
  bus: EventBus;
  boards: { get(caller: Caller, id: string): Promise<Board> };
  objects: AgentObjects;
  frames: AgentFrames;
  sockets: AgentSockets;
  /** Counts one AI request against the organization's plan (`ai_requests_monthly`). */
  consumeAiRequest(organizationId: string): Promise<void>;
  /** `LLM_*` settings; unset = the built-in rule engine. */
  llm?: { baseUrl: string; apiKey: string; model: string; timeoutMs: number };
  tickMs?: number;
  /** Tells the other instances that an agent of a board changed (multi-instance mode). */
  announceChange?: (boardId: string, agentId: string) => void;
  /** Each agent's runs in the last minute, counted for the deployment (limiterStore.ts). */
  windows: ActionWindows;
  /** One instance at a time runs a given agent (the instance mode's). */
  turns: RunTurns;
  /** Whether this instance is the deployment's first to claim `key` (instance channels). */
  claimOnce?: (key: string, ttlMs: number) => Promise<boolean>;
  /** Told of every agent run logged (metrics). */
  runs?: AgentRunObserver;
}

/** The agents domain, assembled: the Agents API's service and the runtime that runs them. */
export interface Agents {
  service: AgentService;
  runtime: AgentRuntime;
  engine: ContentEngine;
}

export function createAgents(options: AgentsOptions): Agents {
  const actions = createActionRegistry();
  const engine = options.llm ? createLlmEngine(options.llm) : createRuleEngine();
  const runtime = new AgentRuntime({ ...options, actions, engine });
  const tools = new AgentTools({ actions, objects: options.objects, runNow: (agent, request) => runtime.runNow(agent, request) });
  const assistant = new BoardAssistant({ ...options, engine });
  const lifecycle: AgentLifecycle = {
    agentsChanged(boardId, agentId, change) {
      runtime.agentsChanged(boardId, agentId, change);
      options.announceChange?.(boardId, agentId);
    },
    isThinking: (agentId) => runtime.isThinking(agentId),
  };
  const service = new AgentService({ db: options.db, clock: options.clock, boards: options.boards, frames: options.frames, actions, lifecycle, tools, assistant });
  return { service, runtime, engine };
}
