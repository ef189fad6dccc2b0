import type { Clock } from '../../clock.js';
import type { Frame } from '../../frames/frame.js';
import { agentCaller, type Agent } from '../agent.js';
import type { AgentObjects } from '../actions/action.js';
import type { RunRequest } from './agentRunner.js';
import type { AgentFrames, AgentSockets, TriggerEvent } from '../ports.js';
import { firedTriggers, frameAt } from './triggers.js';

/** A participant who has done nothing for this long is idle (conditions may ask for longer). */
export const IDLE_AFTER_SECONDS = 30;
/** `timer:tick` cadence while a session runs. */
export const TIMER_TICK_MS = 60_000;

/** An event the tick raises, with which of the agents' fired triggers may run for it. */
export interface TickEvent {
  event: TriggerEvent;
  only: ((agent: Agent, triggerIndex: number) => boolean) | null;
  /**
   * Set when every instance with the board's participants raises the same event (a session's
   * timer tick): the deployment raises it once, on the instance that claims this key first.
   */
  deploymentKey: string | null;
}

/** What a scan needs from the runner: slots of the agent's rate, taken at once, and the runs that use them. */
export interface ScanRunner {
  reserve(agent: Agent, runs: number): Promise<boolean>;
  submitReserved(request: RunRequest): Promise<unknown>;
}

/**
 * The trigger events time raises: `participant:idle` (once per trigger and quiet spell, the
 * first tick its condition holds), `timer:tick` (every minute while a session runs), and the
 * `scanExisting` pass over a board's objects, paced by the agent's rate.
 */
export class TickEvents {
  /** Per agent, trigger and participant: the start of the quiet spell its idle trigger fired for. */
  private readonly idleFired = new Map<string, number>();
  private readonly lastTimerTick = new Map<string, number>();
  private readonly scans = new Map<string, { agent: Agent; pending: TriggerEvent[]; frames: Frame[] }>();

  constructor(
    private readonly clock: Clock,
    private readonly sockets: AgentSockets,
    private readonly frames: AgentFrames,
  ) {}

  eventsOf(boardId: string, agents: Agent[]): TickEvent[] {
    const active = agents.filter((agent) => agent.status === 'active');
    if (active.length === 0) return [];
    const organizationId = active[0]!.organizationId;
    return [...this.idleEvents(boardId, organizationId), ...this.timerEvents(boardId, organizationId)];
  }

  private idleEvents(boardId: string, organizationId: string): TickEvent[] {
    const now = this.clock.now();
    const events: TickEvent[] = [];
    const participants = this.sockets.participants(boardId);
    this.forgetLeft(boardId, new Set(participants.map((participant) => participant.user_id)));
    for (const participant of participants) {
      const idleSeconds = Math.floor((now.getTime() - participant.lastActiveAt.getTime()) / 1000);
      if (idleSeconds < IDLE_AFTER_SECONDS) continue;
      const spell = participant.lastActiveAt.getTime();
      const frameId = participant.location?.frameId ?? null;
      events.push({
        event: {
          type: 'participant:idle',
          boardId,
          organizationId,
          data: { user_id: participant.user_id, idle_seconds: idleSeconds, since: participant.lastActiveAt.toISOString() },
          object: null,
          participant: { user_id: participant.user_id, role: participant.role, user_type: participant.user_type, frameId },
          frameId,
          idleSeconds,
          cause: null,
          occurredAt: now,
        },
        only: (agent, index) => {
          const key = `${boardId}:${agent.id}:${index}:${participant.user_id}`;
          if (this.idleFired.get(key) === spell) return false;
          this.idleFired.set(key, spell);
          return true;
        },
        // Raised by the instance the participant is connected to: its activity is known there.
        deploymentKey: null,
      });
    }
    return events;
  }

  private timerEvents(boardId: string, organizationId: string): TickEvent[] {
    const session = this.sockets.sessionStartedAt(boardId);
    if (!session) {
      this.lastTimerTick.delete(boardId);
      return [];
    }
    const now = this.clock.now().getTime();
    const last = this.lastTimerTick.get(boardId) ?? session.getTime();
    if (now - last < TIMER_TICK_MS) return [];
    this.lastTimerTick.set(boardId, now);
    const elapsedSeconds = Math.floor((now - session.getTime()) / 1000);
    const data = { session_started_at: session.toISOString(), elapsed_seconds: elapsedSeconds };
    const event: TriggerEvent = { type: 'timer:tick', boardId, organizationId, data, object: null, participant: null, frameId: null, idleSeconds: null, cause: null, occurredAt: new Date(now) };
    // The session is the deployment's, so every instance counts the same minutes from its start.
    const minute = Math.floor((now - session.getTime()) / TIMER_TICK_MS);
    return [{ event, only: null, deploymentKey: `timer-tick:${boardId}:${session.getTime()}:${minute}` }];
  }

  /** Starts a `scanExisting` pass: the board's objects, as the agent sees them, each raised once as `object:created`. */
  async startScan(agent: Agent, objects: AgentObjects): Promise<void> {
    const caller = agentCaller(agent);
    const frames = await this.frames.framesOfBoard(agent.boardId);
    const now = this.clock.now();
    const pending = (await objects.list(caller, agent.boardId)).map(
      (object): TriggerEvent => ({
        type: 'object:created',
        boardId: agent.boardId,
        organizationId: agent.organizationId,
        data: { object_id: object.id, object_type: object.type, zone_id: object.zone_id ?? null, by: object.created_by, scan: true },
        object,
        participant: null,
        frameId: frameAt(object.position, frames),
        idleSeconds: null,
        cause: null,
        occurredAt: now,
      }),
    );
    this.scans.set(agent.id, { agent, pending, frames });
  }

  /** Submits as many scanned objects' runs as each agent's rate has room for; `finish` once a scan is done. */
  async continueScans(runner: ScanRunner, finish: (agent: Agent) => Promise<void>): Promise<void> {
    for (const [agentId, scan] of this.scans) {
      while (scan.pending.length > 0) {
        const event = scan.pending[0]!;
        const fired = firedTriggers(scan.agent, event, scan.frames);
        // The slots are taken before the object leaves the queue: a scanned object runs or waits, never refused.
        if (fired.length > 0 && !(await runner.reserve(scan.agent, fired.length))) break;
        scan.pending.shift();
        for (const { action, params } of fired) {
          void runner.submitReserved({ agent: scan.agent, action, params, event, trigger: { type: event.type, data: event.data } });
        }
      }
      if (scan.pending.length === 0) {
        this.scans.delete(agentId);
        await finish(scan.agent);
      }
    }
  }

  isScanning(agentId: string): boolean {
    return this.scans.has(agentId);
  }

  /** Forgets what the tick keeps for an agent (deleted or paused). */
  forget(agentId: string): void {
    this.scans.delete(agentId);
    for (const key of this.idleFired.keys()) if (key.split(':')[1] === agentId) this.idleFired.delete(key);
  }

  /** Quiet spells of people who left the board are over. */
  private forgetLeft(boardId: string, present: ReadonlySet<string>): void {
    for (const key of this.idleFired.keys()) {
      const [board, , , ...user] = key.split(':');
      if (board === boardId && !present.has(user.join(':'))) this.idleFired.delete(key);
    }
  }
}
