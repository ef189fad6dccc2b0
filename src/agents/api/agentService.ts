import { randomUUID } from 'node:crypto';
import type { Board } from '../../boards/board.js';
import { requireHost, type Caller } from '../../boards/caller.js';
import type { Clock } from '../../clock.js';
import { errors, type FieldError } from '../../errors.js';
import type { Db } from '../../store/database.js';
import { agentFromRow, PERSONAS, presentAction, type Agent, type AgentScope, type Instructions, type Persona } from '../agent.js';
import type { ActionRegistry } from '../actions/registry.js';
import { ConditionSyntaxError, parseCondition } from '../conditions.js';
import { PRESETS, type AgentPreset } from './presets.js';
import { parseSchedulePattern } from '../schedules.js';
import { instructionsWithDefaults, scopeWithDefaults, type CreateAgentInput, type GenerateInput, type UpdateAgentInput } from './schemas.js';
import { statsOf, type AgentStats } from './agentStats.js';
import type { AgentTools } from './agentTools.js';
import type { BoardAssistant } from './boardAssistant.js';
import type { AgentFrames, AgentLifecycle } from '../ports.js';

export interface AgentServiceDependencies {
  db: Db;
  clock: Clock;
  boards: { get(caller: Caller, id: string): Promise<Board> };
  frames: AgentFrames;
  actions: ActionRegistry;
  lifecycle: AgentLifecycle;
  tools: AgentTools;
  assistant: BoardAssistant;
}

/**
 * The rules of the Agents API: who may manage agents (the organization's API key and the
 * board's host), what valid instructions are, and the agent's status machine (docs/agents.md).
 */
export class AgentService {
  constructor(private readonly deps: AgentServiceDependencies) {}

  isThinking(agentId: string): boolean {
    return this.deps.lifecycle.isThinking(agentId);
  }

  async create(caller: Caller, boardId: string, input: CreateAgentInput): Promise<Agent> {
    const board = await this.hostBoard(caller, boardId);
    const instructions = instructionsWithDefaults(input.instructions);
    const scope = scopeWithDefaults(input.scope);
    await this.check(board, instructions, scope);
    const now = this.deps.clock.now();
    const row = await this.deps.db.agent.create({
      data: {
        id: randomUUID(),
        boardId: board.id,
        organizationId: board.organizationId,
        name: input.name,
        persona: input.persona,
        status: 'active',
        instructions: JSON.stringify(instructions),
        scope: JSON.stringify(scope),
        priority: input.priority ?? 5,
        visibility: input.visibility ?? 'visible',
        maxActionsPerMinute: input.maxActionsPerMinute ?? 10,
        budgetTokens: input.budgetTokens ?? null,
        scanPending: input.scanExisting === true,
        createdBy: caller.userId ?? 'api-key',
        createdAt: now,
        updatedAt: now,
      },
    });
    this.deps.lifecycle.agentsChanged(board.id, row.id);
    return agentFromRow(row);
  }

  async list(caller: Caller, boardId: string): Promise<Agent[]> {
    const board = await this.hostBoard(caller, boardId);
    const rows = await this.deps.db.agent.findMany({ where: { boardId: board.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(agentFromRow);
  }

  async get(caller: Caller, boardId: string, agentId: string): Promise<Agent> {
    return this.agentOf(await this.hostBoard(caller, boardId), agentId);
  }

  /** Changes only the fields given; `budgetTokens: null` makes the budget unlimited. */
  async update(caller: Caller, boardId: string, agentId: string, input: UpdateAgentInput): Promise<Agent> {
    const board = await this.hostBoard(caller, boardId);
    const agent = await this.agentOf(board, agentId);
    const instructions = input.instructions ? instructionsWithDefaults(input.instructions) : agent.instructions;
    const scope = input.scope ? scopeWithDefaults(input.scope) : agent.scope;
    await this.check(board, instructions, scope);
    return this.save(agent, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.instructions ? { instructions: JSON.stringify(instructions) } : {}),
      ...(input.scope ? { scope: JSON.stringify(scope) } : {}),
      ...(input.maxActionsPerMinute !== undefined ? { maxActionsPerMinute: input.maxActionsPerMinute } : {}),
      ...(input.budgetTokens !== undefined ? { budgetTokens: input.budgetTokens } : {}),
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
    });
  }

  /** Removes the agent and its action history. */
  async remove(caller: Caller, boardId: string, agentId: string): Promise<void> {
    const agent = await this.get(caller, boardId, agentId);
    await this.deps.db.agent.deleteMany({ where: { id: agent.id } });
    this.deps.lifecycle.agentsChanged(agent.boardId, agent.id);
  }

  async pause(caller: Caller, boardId: string, agentId: string): Promise<Agent> {
    const agent = await this.get(caller, boardId, agentId);
    if (agent.status === 'paused') throw errors.badRequest('The agent is already paused');
    return this.moveStatus(agent, 'paused');
  }

  async resume(caller: Caller, boardId: string, agentId: string): Promise<Agent> {
    const agent = await this.get(caller, boardId, agentId);
    if (agent.status !== 'paused') throw errors.badRequest('The agent is not paused');
    return this.moveStatus(agent, 'active');
  }

  /** Clears the working memory; instructions, status, spending and history stay. */
  async reset(caller: Caller, boardId: string, agentId: string): Promise<Agent> {
    const agent = await this.get(caller, boardId, agentId);
    return this.save(agent, { memory: '{}' });
  }

  async actions(caller: Caller, boardId: string, agentId: string, page: { limit: number; offset: number }) {
    const agent = await this.get(caller, boardId, agentId);
    const rows = await this.deps.db.agentAction.findMany({
      where: { agentId: agent.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
    });
    return rows.map(presentAction);
  }

  async stats(caller: Caller, boardId: string, agentId: string): Promise<AgentStats> {
    const agent = await this.get(caller, boardId, agentId);
    return statsOf(this.deps.db, agent);
  }

  /** The tools an external assistant (MCP) may use as one agent of the board: host only, like every agent route. */
  async toolsOf(caller: Caller, boardId: string, agentId: string) {
    const agent = await this.get(caller, boardId, agentId);
    return {
      agent,
      list: () => this.deps.tools.list(),
      call: (name: string, args: Record<string, unknown>) => this.deps.tools.call(agent, name, args),
    };
  }

  /** `ai/generate`: notes from a prompt, created with the caller's rights (host only: it spends the plan's AI requests). */
  async generate(caller: Caller, boardId: string, input: GenerateInput) {
    const board = await this.hostBoard(caller, boardId);
    return this.deps.assistant.generate(caller, board, input);
  }

  /** The ready-to-use instructions of every persona. */
  presets(): AgentPreset[] {
    return PERSONAS.map((persona) => PRESETS[persona]);
  }

  preset(persona: string): AgentPreset {
    if (!(PERSONAS as readonly string[]).includes(persona)) throw errors.notFound('Preset');
    return PRESETS[persona as Persona];
  }

  private async moveStatus(agent: Agent, status: 'active' | 'paused'): Promise<Agent> {
    const moved = await this.deps.db.agent.updateMany({ where: { id: agent.id, status: agent.status }, data: { status, updatedAt: this.deps.clock.now() } });
    if (moved.count === 0) throw errors.conflict('The agent changed concurrently; retry');
    this.deps.lifecycle.agentsChanged(agent.boardId, agent.id, status === 'active' ? 'resumed' : undefined);
    return { ...agent, status };
  }

  private async save(agent: Agent, data: Record<string, unknown>): Promise<Agent> {
    const row = await this.deps.db.agent.update({ where: { id: agent.id }, data: { ...data, updatedAt: this.deps.clock.now() } });
    this.deps.lifecycle.agentsChanged(agent.boardId, agent.id);
    return agentFromRow(row);
  }

  private async agentOf(board: Board, agentId: string): Promise<Agent> {
    const row = await this.deps.db.agent.findFirst({ where: { id: agentId, boardId: board.id } });
    if (!row) throw errors.notFound('Agent');
    return agentFromRow(row);
  }

  /** The board, if the caller may manage its agents (API key or the board's host). */
  private async hostBoard(caller: Caller, boardId: string): Promise<Board> {
    const board = await this.deps.boards.get(caller, boardId);
    requireHost(caller, 'manage agents');
    return board;
  }

  /** Refuses (400, naming each field) conditions, schedules, params and frames that cannot work. */
  private async check(board: Board, instructions: Instructions, scope: AgentScope): Promise<void> {
    const problems: FieldError[] = [];
    instructions.triggers.forEach((trigger, index) => {
      const field = `instructions.triggers.${index}`;
      if (trigger.condition !== undefined && trigger.condition.trim() !== '') {
        try {
          parseCondition(trigger.condition);
        } catch (error) {
          if (!(error instanceof ConditionSyntaxError)) throw error;
          problems.push({ field: `${field}.condition`, message: error.message });
        }
      }
      problems.push(...this.deps.actions.paramsProblems(trigger.action, trigger.params ?? {}, `${field}.params`));
    });
    instructions.schedule.forEach((entry, index) => {
      const field = `instructions.schedule.${index}`;
      const pattern = parseSchedulePattern(entry.at);
      if ('problem' in pattern) problems.push({ field: `${field}.at`, message: pattern.problem });
      problems.push(...this.deps.actions.paramsProblems(entry.action, entry.params ?? {}, `${field}.params`));
    });
    if (scope.frames.length > 0) {
      const frameIds = new Set((await this.deps.frames.framesOfBoard(board.id)).map((frame) => frame.id));
      scope.frames.forEach((id, index) => {
        if (!frameIds.has(id)) problems.push({ field: `scope.frames.${index}`, message: 'is not a frame of this board' });
      });
    }
    if (problems.length > 0) throw errors.badRequest(problems.map(({ field, message }) => `${field} ${message}`), problems);
  }
}
