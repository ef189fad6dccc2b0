import type { EventBus } from '../../events/bus.js';
import type { BusEvent, EventName } from '../../events/types.js';
import type { Frame } from '../../frames/frame.js';
import type { Logger } from '../../logger.js';
import { LoadedCache } from '../../util/loadedCache.js';
import { agentFromRow, agentUserId, type Agent } from '../agent.js';
import { AgentRunner, type AgentRunnerDependencies, type RunRequest } from './agentRunner.js';
import { AgentScheduler } from './agentScheduler.js';
import type { AgentLifecycle } from '../ports.js';
import type { TriggerEvent } from '../ports.js';
import { TickEvents, TIMER_TICK_MS } from './tickEvents.js';
import { anyListens, firedTriggers, triggerEventsOf, triggerTypesOf } from './triggers.js';

/** How often the runtime looks at the clock: idle participants, timer ticks, schedules, scans. */
const DEFAULT_TICK_MS = 5_000;
/** A run lasting longer than this shows its agent as thinking. */
const THINKING_SHOWN_AFTER_MS = 200;
/** Boards whose agents are kept in memory at once. */
const MAX_CACHED_BOARDS = 5_000;

export interface AgentRuntimeDependencies extends Omit<AgentRunnerDependencies, 'thinkingChanged'> {
  bus: EventBus;
  tickMs?: number;
  /** Whether this instance is the deployment's first to claim `key` (a timer tick due on every instance with the board's participants). */
  claimOnce?: (key: string, ttlMs: number) => Promise<boolean>;
}

/**
 * The agent runtime: turns what happens on boards into trigger events, picks the agents each
 * one fires (by priority), and hands their runs to the runner; on every tick of the clock it
 * raises idle and timer events, runs due schedules and works through `scanExisting` scans.
 * One board's agents never hold up another's, nor the events' publishers.
 */
export class AgentRuntime implements AgentLifecycle {
  private readonly logger: Logger;
  private readonly runner: AgentRunner;
  private readonly scheduler: AgentScheduler;
  private readonly ticks: TickEvents;
  private readonly agentsByBoard = new LoadedCache<string, Agent[]>(MAX_CACHED_BOARDS);
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Per agent in a run: the timer that will show it thinking, or `shown` once it does. */
  private readonly thinkingShows = new Map<string, NodeJS.Timeout | 'shown'>();
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(private readonly deps: AgentRuntimeDependencies) {
    this.logger = deps.logger.child({ component: 'agents' });
    this.runner = new AgentRunner({ ...deps, logger: this.logger, thinkingChanged: (agent, thinking) => this.thinkingChanged(agent, thinking) });
    this.scheduler = new AgentScheduler({
      db: deps.db,
      clock: deps.clock,
      logger: this.logger,
      sessionStartedAt: (boardId) => deps.sockets.sessionStartedAt(boardId),
      submit: (request) => this.runner.submit(request),
      track: (work) => this.track(work),
    });
    this.ticks = new TickEvents(deps.clock, deps.sockets, deps.frames);
  }

  /** Listens to the bus, shows visible agents, and starts the tick. */
  async start(): Promise<void> {
    this.unsubscribe = this.deps.bus.subscribe(
      (event) => this.onEvent(event),
      (name, scope) => this.wants(name, scope.boardId),
    );
    const active = await this.deps.db.agent.findMany({ where: { status: 'active', board: { status: 'active' } } });
    for (const row of active) this.show(agentFromRow(row), false);
    const tickMs = this.deps.tickMs ?? DEFAULT_TICK_MS;
    this.timer = setInterval(() => void this.tick(), tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.runner.stop();
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.settled();
    for (const pending of this.thinkingShows.values()) if (pending !== 'shown') clearTimeout(pending);
    this.thinkingShows.clear();
  }

  isThinking(agentId: string): boolean {
    return this.runner.isThinking(agentId);
  }

  /** Re-reads the board's agents, shows or withdraws the changed one, and syncs its schedule. */
  agentsChanged(boardId: string, agentId: string, change?: 'resumed'): void {
    void this.track(
      (async () => {
        const agent = await this.reread(boardId, agentId);
        if (!agent) return;
        await this.scheduler.sync(agent, { skipMissed: change === 'resumed' });
        if (agent.scanPending && agent.status === 'active' && !this.ticks.isScanning(agent.id)) {
          await this.ticks.startScan(agent, this.deps.objects);
          await this.tick();
        }
      })(),
    );
  }

  /**
   * Another instance changed an agent of the board (multi-instance mode): what this one keeps
   * of it is read again, so a paused or deleted agent stops here too. Its schedule and scan are
   * the changing instance's to start.
   */
  agentChangedElsewhere(boardId: string, agentId: string): void {
    void this.track(this.reread(boardId, agentId));
  }

  /** Drops what is kept of the board's agents and reads the changed one again: shown or withdrawn; null once deleted. */
  private async reread(boardId: string, agentId: string): Promise<Agent | null> {
    this.agentsByBoard.delete(boardId);
    this.runner.changed(agentId);
    const row = await this.deps.db.agent.findUnique({ where: { id: agentId } });
    if (!row || row.status !== 'active') this.ticks.forget(agentId);
    if (!row) {
      this.runner.forget(agentId);
      this.deps.sockets.showAgent(boardId, agentId, null);
      return null;
    }
    const agent = agentFromRow(row);
    this.show(agent, this.runner.isThinking(agent.id));
    return agent;
  }

  /** One look at the clock: idle and timer events, due schedules, scans. Tests call it after moving a ManualClock. */
  tick(): Promise<void> {
    this.ticking ??= (async () => {
      try {
        const boards = await this.boardsWithActiveAgents();
        for (const boardId of boards) {
          const agents = await this.agentsOf(boardId);
          // Not awaited: one board's slow runs (an LLM call) never hold up another board's events.
          for (const event of this.ticks.eventsOf(boardId, agents)) {
            if (event.deploymentKey && !(await this.claimOnce(event.deploymentKey))) continue;
            void this.track(this.dispatch(event.event, agents, event.only));
          }
        }
        await this.scheduler.runDue();
        const scanRunner = {
          reserve: (agent: Agent, runs: number) => this.runner.reserve(agent, runs),
          submitReserved: (request: RunRequest) => this.track(this.runner.submit(request, 'reserved')),
        };
        await this.ticks.continueScans(scanRunner, (agent) => this.finishScan(agent));
      } catch (error) {
        this.logger.error({ err: error }, 'agent tick failed');
      } finally {
        this.ticking = null;
      }
    })();
    return this.ticking;
  }

  /** Whether this instance raises an event every instance may find due (alone: always). */
  private async claimOnce(key: string): Promise<boolean> {
    const claim = this.deps.claimOnce;
    return claim ? claim(key, TIMER_TICK_MS / 2).catch(() => true) : true;
  }

  /** Resolves once every run started so far has finished (tests). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Runs an action now as the agent, outside any trigger (MCP tools, `ai/generate`). */
  async runNow(agent: Agent, request: Omit<RunRequest, 'agent'>) {
    return this.runner.submit({ ...request, agent });
  }

  /** Bus listener: never awaits the runs, so publishers are not held up by agents. */
  private onEvent(event: BusEvent): void {
    if (event.name === 'board.deleted' || event.name === 'board.expired') {
      void this.track(this.boardGone(event.payload.board_id));
      return;
    }
    const types = triggerTypesOf(event.name);
    if (types.length === 0) return;
    void this.track(
      (async () => {
        const agents = await this.agentsOf(event.payload.board_id);
        // Most events (every socket edit is an object.updated) concern no agent: nothing more is read for them.
        if (!anyListens(agents, types)) return;
        const frames = await this.deps.frames.framesOfBoard(event.payload.board_id);
        for (const triggerEvent of triggerEventsOf(event, frames)) await this.dispatch(triggerEvent, agents, null, frames);
      })(),
    );
  }

  /**
   * Runs what an event fires, one after another in order of priority (highest first): a
   * moderator of priority 9 has locked a note before a tutor of priority 5 reads it.
   */
  private async dispatch(event: TriggerEvent, agents: Agent[], only: ((agent: Agent, triggerIndex: number) => boolean) | null, known?: Frame[]): Promise<void> {
    const frames = known ?? (await this.deps.frames.framesOfBoard(event.boardId));
    const ordered = [...agents].sort((a, b) => b.priority - a.priority || a.createdAt.getTime() - b.createdAt.getTime());
    for (const agent of ordered) {
      for (const fired of firedTriggers(agent, event, frames)) {
        if (only && !only(agent, fired.index)) continue;
        await this.track(this.runner.submit({ agent, action: fired.action, params: fired.params, event, trigger: { type: event.type, data: event.data } }));
      }
    }
  }

  /** A deleted or expired board's agents stop: they leave the board's sockets and the runtime's memory. */
  private async boardGone(boardId: string): Promise<void> {
    const agents = await this.agentsOf(boardId);
    this.agentsByBoard.delete(boardId);
    for (const agent of agents) {
      this.ticks.forget(agent.id);
      this.runner.forget(agent.id);
      this.deps.sockets.showAgent(boardId, agent.id, null);
    }
  }

  private async finishScan(agent: Agent): Promise<void> {
    await this.deps.db.agent.updateMany({ where: { id: agent.id }, data: { scanPending: false } });
    this.agentsByBoard.delete(agent.boardId);
  }

  /**
   * Shows "thinking" once a run has lasted a moment: a rule-engine run is over in milliseconds,
   * and flashing the flag on every board's sockets twice per run would only cost fan-out.
   */
  private thinkingChanged(agent: Agent, thinking: boolean): void {
    const pending = this.thinkingShows.get(agent.id);
    if (thinking) {
      if (pending) return;
      const timer = setTimeout(() => {
        this.thinkingShows.set(agent.id, 'shown');
        this.showIfCurrent(agent, true);
      }, THINKING_SHOWN_AFTER_MS);
      timer.unref();
      this.thinkingShows.set(agent.id, timer);
      return;
    }
    this.thinkingShows.delete(agent.id);
    if (pending === 'shown') this.showIfCurrent(agent, false);
    else if (pending) clearTimeout(pending);
  }

  /** The end of a run shows the agent again only if it has not been paused, changed or deleted meanwhile. */
  private showIfCurrent(agent: Agent, isThinking: boolean): void {
    if (this.runner.isCurrent(agent)) this.show(agent, isThinking);
  }

  /** Shows a visible active agent on its board (and whether it is thinking); withdraws the others. */
  private show(agent: Agent, isThinking: boolean): void {
    const visible = agent.visibility === 'visible' && agent.status === 'active';
    const presence = visible ? { id: agentUserId(agent.id), name: agent.name, persona: agent.persona, isThinking } : null;
    this.deps.sockets.showAgent(agent.boardId, agent.id, presence);
  }

  private agentsOf(boardId: string): Promise<Agent[]> {
    return this.agentsByBoard.get(boardId, async () => (await this.deps.db.agent.findMany({ where: { boardId } })).map(agentFromRow));
  }

  /** Bus interest: no for an event no trigger of the board's agents (as last read) listens to. */
  private wants(name: EventName, boardId: string): boolean {
    if (name === 'board.deleted' || name === 'board.expired') return true;
    const types = triggerTypesOf(name);
    if (types.length === 0) return false;
    const agents = this.agentsByBoard.peek(boardId);
    return !agents || anyListens(agents.value, types);
  }

  private async boardsWithActiveAgents(): Promise<string[]> {
    const rows = await this.deps.db.agent.findMany({ where: { status: 'active', board: { status: 'active' } }, select: { boardId: true }, distinct: ['boardId'] });
    return rows.map((row) => row.boardId);
  }

  private track(work: Promise<unknown>): Promise<unknown> {
    const tracked = work.catch((error) => this.logger.error({ err: error }, 'agent work failed'));
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
    return tracked;
  }
}
