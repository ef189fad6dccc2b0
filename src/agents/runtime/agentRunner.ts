import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ActionWindows } from '../../store/actionWindows.js';
import type { PrismaClient } from '../../store/database.js';
import type { RunTurns } from '../../store/runTurns.js';
import { KeyedQueue } from '../../util/keyedQueue.js';
import { agentCaller, agentFromRow, type ActionType, type Agent, type AgentMemory } from '../agent.js';
import { ActionRefusal, type ActionContext, type AgentObjects } from '../actions/action.js';
import type { ActionRegistry } from '../actions/registry.js';
import { ContentEngineError, type ContentEngine, type ContentRequest, type ContentResult } from '../content/contentTypes.js';
import type { AgentFrames, AgentSockets, TriggerEvent } from '../ports.js';
import { AgentLog, type ActionLogRow } from './agentLog.js';
import { fillTemplates } from './templates.js';
import { conditionScope } from './triggers.js';

/** Most runs one agent may have waiting: a burst past it is logged as refused, not queued. */
const MAX_QUEUED_RUNS = 60;
/** Decisions kept in the working memory (context for the LLM). */
const MAX_RECENT_DECISIONS = 20;

/** One run to make: an action with its params, and what caused it. */
export interface RunRequest {
  agent: Agent;
  action: ActionType;
  params: Record<string, unknown>;
  /** The trigger event; null for a call from outside (MCP, `ai/generate`). */
  event: TriggerEvent | null;
  /** The log's `triggerEventType` and `triggerEventData`. */
  trigger: { type: string; data: Record<string, unknown> };
}

/** A run's log entry, as written. */
export interface RunOutcome {
  id: string;
  shouldAct: boolean;
  success: boolean;
  result: Record<string, unknown>;
  errorMessage: string | null;
  tokensUsed: number;
}

export interface AgentRunnerDependencies {
  /** The client itself (not a transaction's): a run's log entry and counters are written in one transaction. */
  db: PrismaClient;
  clock: Clock;
  logger: Logger;
  actions: ActionRegistry;
  objects: AgentObjects;
  frames: AgentFrames;
  sockets: AgentSockets;
  engine: ContentEngine;
  /** Counts one AI request against the plan (`ai_requests_monthly`); throws the quota's AppError. */
  consumeAiRequest(organizationId: string): Promise<void>;
  /** Called when an agent starts or stops thinking (presence shows it). */
  thinkingChanged(agent: Agent, thinking: boolean): void;
  /** Told of every run as it is logged (metrics). */
  runs?: AgentRunObserver;
  /** Each agent's runs in the last minute (`maxActionsPerMinute`), counted for the deployment. */
  windows: ActionWindows;
  /**
   * One instance at a time runs a given agent (several instances), until its run is logged:
   * the next run, wherever it is, sees its spending and memory.
   */
  turns: RunTurns;
}

/** How a logged run ended: acted, tried and failed, or did not act (refused, rate, budget). */
export type AgentRunOutcome = 'succeeded' | 'failed' | 'refused';

/** What the runner tells observability (metrics) of each run it logs. */
export interface AgentRunObserver {
  runLogged(outcome: AgentRunOutcome, tokensUsed: number): void;
}

/**
 * Runs agent actions, one at a time per agent, within the agent's rate (a sliding minute,
 * claimed when a run is queued, so a burst takes exactly `maxActionsPerMinute`) and its token
 * budget (checked before every content call), and logs every run, refused ones included.
 */
export class AgentRunner {
  private readonly queue = new KeyedQueue<string>();
  private readonly queued = new Map<string, number>();
  private readonly thinking = new Set<string>();
  private readonly log: AgentLog;
  /**
   * Per agent, its state as of its last run (spending, counters, memory), ahead of the log
   * writes still in flight; dropped when the agent changes (`forget`), then read again.
   */
  private readonly states = new Map<string, Agent>();
  /** Per agent, the log writes still in flight: a re-read waits for them, so no spending is missed. */
  private readonly writes = new KeyedQueue<string>();
  /** Per agent, bumped by every change: a read that raced a change is not kept. */
  private readonly generations = new Map<string, number>();
  /** Aborted at shutdown: content calls in flight stop instead of holding the process. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: AgentRunnerDependencies) {
    this.log = new AgentLog(deps.db, deps.logger);
  }

  isThinking(agentId: string): boolean {
    return this.thinking.has(agentId);
  }

  /** Resolves once every run queued for the agent so far has finished and is logged. */
  async idle(agentId: string): Promise<void> {
    await this.queue.idle(agentId);
    await this.writes.idle(agentId);
  }

  /**
   * Takes `runs` slots of the agent's rate in one step, or none, for runs submitted right after
   * as `reserved`. Scans pace themselves with it: a scanned object's runs start together or
   * wait, and no other run (on any instance) can take their slots in between.
   */
  async reserve(agent: Agent, runs: number): Promise<boolean> {
    if ((this.queued.get(agent.id) ?? 0) + runs > MAX_QUEUED_RUNS) return false;
    return this.deps.windows.tryTake(agent.id, agent.maxActionsPerMinute, this.deps.clock.now().getTime(), runs);
  }

  /** The agent changed (paused, patched, reset): its next run reads it again. */
  changed(agentId: string): void {
    this.states.delete(agentId);
    this.generations.set(agentId, (this.generations.get(agentId) ?? 0) + 1);
  }

  /** Forgets an agent (it was deleted). */
  forget(agentId: string): void {
    this.changed(agentId);
    void this.deps.windows.forget(agentId);
    this.generations.delete(agentId);
  }

  /** Whether the agent has not changed since this snapshot of it was taken (presence shows only current agents). */
  isCurrent(agent: Agent): boolean {
    const known = this.states.get(agent.id);
    return known !== undefined && known.updatedAt.getTime() === agent.updatedAt.getTime();
  }

  /** Stops content calls in flight (shutdown): their runs end as failed. */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * Queues a run, or logs it refused at once when the agent's rate or queue is full. A run whose
   * slot was `reserved` is queued without asking again.
   */
  async submit(request: RunRequest, slot: 'take' | 'reserved' = 'take'): Promise<RunOutcome> {
    const { agent } = request;
    if (slot === 'take') {
      if ((this.queued.get(agent.id) ?? 0) >= MAX_QUEUED_RUNS) return this.logRefusal(request, `Too many runs waiting (${MAX_QUEUED_RUNS}); this one was dropped`);
      // Runs taking a slot meanwhile may pass the queue's bound by a few: the rate bounds them.
      if (!(await this.deps.windows.tryTake(agent.id, agent.maxActionsPerMinute, this.deps.clock.now().getTime()))) {
        return this.logRefusal(request, `Rate limit: ${agent.maxActionsPerMinute} actions per minute reached`);
      }
    }
    this.queued.set(agent.id, (this.queued.get(agent.id) ?? 0) + 1);
    let logged: { outcome: Promise<RunOutcome> };
    try {
      // Alone, the next run of the agent may start while this one's log entry is being written
      // (a promise inside an object, so the queue does not wait for it); with several
      // instances, the agent's turn lasts until it is written.
      logged = await this.queue.run(agent.id, () =>
        this.deps.turns.take(agent.id, (othersRanIt) => this.run(request, othersRanIt), ({ outcome }) => outcome, this.stopping.signal),
      );
    } finally {
      const left = (this.queued.get(agent.id) ?? 1) - 1;
      if (left > 0) this.queued.set(agent.id, left);
      else this.queued.delete(agent.id);
    }
    return logged.outcome;
  }

  /** The agent as its next run sees it: as its last run left it, or read again once it changed. */
  private async current(agentId: string): Promise<Agent | null> {
    const known = this.states.get(agentId);
    if (known) return known;
    const generation = this.generations.get(agentId) ?? 0;
    await this.writes.idle(agentId);
    const row = await this.deps.db.agent.findUnique({ where: { id: agentId } });
    const agent = row ? agentFromRow(row) : null;
    // A change that landed while the row was read may not be in it: keep it for this run only.
    if (agent && (this.generations.get(agentId) ?? 0) === generation) this.states.set(agentId, agent);
    return agent;
  }

  private async run(request: RunRequest, othersRanIt: boolean): Promise<{ outcome: Promise<RunOutcome> }> {
    // Another instance's runs changed its spending and memory: what this one keeps is stale.
    if (othersRanIt) this.changed(request.agent.id);
    // The agent may have been paused, changed or deleted while the run waited.
    const agent = await this.current(request.agent.id);
    if (!agent || agent.status !== 'active') {
      return { outcome: Promise.resolve({ id: '', shouldAct: false, success: false, result: {}, errorMessage: 'The agent is no longer active', tokensUsed: 0 }) };
    }
    const started = performance.now();
    const spent = { tokens: 0 };
    const memory: AgentMemory = structuredClone(agent.memory);
    this.setThinking(agent, true);
    let outcome: Omit<RunOutcome, 'id' | 'tokensUsed'> & { reasoning: string; params: Record<string, unknown> };
    try {
      outcome = await this.act(agent, request, memory, spent);
    } finally {
      this.setThinking(agent, false);
    }
    const latencyMs = Math.round(performance.now() - started);
    remember(memory, request, outcome.reasoning, this.deps.clock.now());
    return { outcome: this.record(agent, request, { ...outcome, tokensUsed: spent.tokens }, latencyMs, memory) };
  }

  /** Sanitizes and applies the action; any failure becomes the outcome. */
  private async act(agent: Agent, request: RunRequest, memory: AgentMemory, spent: { tokens: number }) {
    const definition = this.deps.actions.get(request.action);
    const frames = await this.deps.frames.framesOfBoard(agent.boardId);
    let params = fillTemplates(request.params, conditionScope(request.event, frames));
    try {
      const problems = this.deps.actions.paramsProblems(request.action, params, 'params');
      if (problems.length > 0) throw new ActionRefusal(problems.map(({ field, message }) => `${field} ${message}`).join('; '));
      const context = this.contextFor(agent, request, memory, spent);
      params = await definition.sanitize(params, context);
      const { result, reasoning } = await definition.apply(params, context);
      return { shouldAct: true, success: true, result, errorMessage: null, reasoning, params };
    } catch (error) {
      const refused = error instanceof ActionRefusal;
      const message = error instanceof AppError || refused || error instanceof ContentEngineError ? error.message : 'The action failed unexpectedly';
      if (!refused && !(error instanceof AppError) && !(error instanceof ContentEngineError)) {
        this.deps.logger.error({ err: error, board_id: agent.boardId, agent_id: agent.id, action: request.action }, 'agent action failed');
      }
      const reasoning = refused ? `Did not act: ${message}` : `The action failed: ${message}`;
      return { shouldAct: !refused, success: false, result: {}, errorMessage: message, reasoning, params };
    }
  }

  private contextFor(agent: Agent, request: RunRequest, memory: AgentMemory, spent: { tokens: number }): ActionContext {
    return {
      agent,
      event: request.event,
      caller: agentCaller(agent),
      cause: { agentId: agent.id, depth: (request.event?.cause?.depth ?? 0) + 1 },
      objects: this.deps.objects,
      frames: this.deps.frames,
      sockets: this.deps.sockets,
      memory,
      content: (content) => this.runContent(agent, content, spent),
    };
  }

  /** One content engine call, if the budget and the plan allow it; its tokens count even when it fails. */
  private async runContent(agent: Agent, request: Omit<ContentRequest, 'agent'>, spent: { tokens: number }): Promise<ContentResult> {
    const { name, persona } = agent;
    const { description, goals, rules } = agent.instructions;
    const full: ContentRequest = { ...request, agent: { name, persona, description, goals, rules } };
    if (agent.budgetTokens !== null) {
      const estimate = this.deps.engine.estimateTokens(full);
      const remaining = agent.budgetTokens - agent.spentTokens - spent.tokens;
      if (estimate > remaining) throw new ActionRefusal(`Token budget: this call may need ${estimate} tokens, ${Math.max(0, remaining)} remain`);
    }
    try {
      await this.deps.consumeAiRequest(agent.organizationId);
    } catch (error) {
      if (error instanceof AppError) throw new ActionRefusal(`AI requests: ${error.message}`);
      throw error;
    }
    try {
      const result = await this.deps.engine.run(full, { signal: this.stopping.signal });
      spent.tokens += result.tokensUsed;
      return result;
    } catch (error) {
      if (error instanceof ContentEngineError) spent.tokens += error.tokensUsed;
      throw error;
    }
  }

  private setThinking(agent: Agent, thinking: boolean): void {
    if (thinking) this.thinking.add(agent.id);
    else this.thinking.delete(agent.id);
    this.deps.thinkingChanged(agent, thinking);
  }

  /** Logs a run refused before it was queued (rate, queue): nothing else changes. */
  private async logRefusal(request: RunRequest, message: string): Promise<RunOutcome> {
    const outcome = { shouldAct: false, success: false, result: {}, errorMessage: message, reasoning: `Did not act: ${message}`, params: request.params, tokensUsed: 0 };
    const id = randomUUID();
    this.deps.runs?.runLogged('refused', 0);
    await this.writes.run(request.agent.id, () => this.log.add({ row: logRow(id, request, outcome, 0, this.deps.clock.now()) }));
    return { id, ...outcome };
  }

  /**
   * Moves the agent's state on at once (the next run sees this one's spending) and queues the
   * log entry and counters for the group commit; the promise resolves once they are written.
   */
  private record(
    agent: Agent,
    request: RunRequest,
    outcome: Omit<RunOutcome, 'id'> & { reasoning: string; params: Record<string, unknown> },
    latencyMs: number,
    memory: AgentMemory,
  ): Promise<RunOutcome> {
    const now = this.deps.clock.now();
    const id = randomUUID();
    // The agent changed during the run (a reset, a patch): its memory is not written over the new one.
    const current = this.states.get(agent.id) === agent;
    if (current) {
      this.states.set(agent.id, {
        ...agent,
        memory,
        spentTokens: agent.spentTokens + outcome.tokensUsed,
        ...(outcome.shouldAct ? { actionsCount: agent.actionsCount + 1, lastActionAt: now } : {}),
      });
    }
    const row = logRow(id, request, outcome, latencyMs, now);
    this.deps.runs?.runLogged(outcome.shouldAct ? (outcome.success ? 'succeeded' : 'failed') : 'refused', outcome.tokensUsed);
    return this.writes
      .run(agent.id, () => this.log.add({ row, ...(current ? { memory: JSON.stringify(memory) } : {}) }))
      .then(() => ({ id, shouldAct: outcome.shouldAct, success: outcome.success, result: outcome.result, errorMessage: outcome.errorMessage, tokensUsed: outcome.tokensUsed }));
  }
}

function logRow(id: string, request: RunRequest, outcome: Omit<RunOutcome, 'id'> & { reasoning: string; params: Record<string, unknown> }, latencyMs: number, now: Date): ActionLogRow {
  return {
    id,
    agentId: request.agent.id,
    triggerEventType: request.trigger.type,
    triggerEventData: JSON.stringify(request.trigger.data),
    shouldAct: outcome.shouldAct,
    reasoning: outcome.reasoning.slice(0, 2_000),
    actionType: request.action,
    actionParams: JSON.stringify(outcome.params),
    success: outcome.success,
    result: JSON.stringify(outcome.result),
    errorMessage: outcome.errorMessage,
    tokensUsed: outcome.tokensUsed,
    latencyMs,
    createdAt: now,
  };
}

function remember(memory: AgentMemory, request: RunRequest, summary: string, now: Date): void {
  const recent = memory.recent ?? [];
  recent.push({ at: now.toISOString(), event: request.trigger.type, action: request.action, summary: summary.slice(0, 200) });
  memory.recent = recent.slice(-MAX_RECENT_DECISIONS);
}
