import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Db } from '../../store/database.js';
import { agentFromRow, type Agent } from '../agent.js';
import type { RunRequest } from './agentRunner.js';
import { nextRunAfter, parseSchedulePattern, type SchedulePattern } from '../schedules.js';

/** How long a claimed run stays claimed (long enough for a queued LLM call): another instance takes it over only after this. */
const LEASE_MS = 5 * 60_000;
/** Most due runs one tick starts. */
const MAX_RUNS_PER_TICK = 100;

export interface AgentSchedulerDependencies {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** When the board's current session started, or null with nobody connected. */
  sessionStartedAt(boardId: string): Date | null;
  /** Runs one scheduled action (the runner logs it). */
  submit(request: RunRequest): Promise<unknown>;
  /** Keeps work going after `runDue` returns (the runtime waits for it at shutdown and in tests). */
  track(work: Promise<unknown>): Promise<unknown>;
}

/**
 * The schedules of agents. Each entry's next run is stored (`agent_schedules`), so a restart
 * neither loses a run that fell due while the service was down (it runs once, then the next is
 * computed from now) nor repeats one; a due run is claimed with a lease, so with several
 * instances it runs once. A run that was claimed when its instance died runs again once the
 * lease expires: at least once, never lost.
 */
export class AgentScheduler {
  private readonly owner = randomUUID();

  constructor(private readonly deps: AgentSchedulerDependencies) {}

  /**
   * Brings an agent's stored entries in line with its schedule (created, changed or deleted).
   * `skipMissed` (a resumed agent): runs that fell due while it was paused move on to their
   * next slot instead of running at once.
   */
  async sync(agent: Agent, options: { skipMissed?: boolean } = {}): Promise<void> {
    const { db } = this.deps;
    const rows = await db.agentSchedule.findMany({ where: { agentId: agent.id } });
    const entries = agent.instructions.schedule;
    await db.agentSchedule.deleteMany({ where: { agentId: agent.id, entryIndex: { gte: entries.length } } });
    const now = this.deps.clock.now();
    for (const [index, entry] of entries.entries()) {
      const existing = rows.find((row) => row.entryIndex === index);
      const pattern = parseSchedulePattern(entry.at);
      if ('problem' in pattern) continue;
      if (existing?.pattern === entry.at) {
        if (options.skipMissed && existing.nextRunAt && existing.nextRunAt <= now) await this.skipMissed(agent, index, pattern, existing.nextRunAt, now);
        continue;
      }
      const { nextRunAt, lastRunAt } = this.firstRun(pattern, agent.boardId, now);
      await db.agentSchedule.upsert({
        where: { agentId_entryIndex: { agentId: agent.id, entryIndex: index } },
        create: { agentId: agent.id, entryIndex: index, pattern: entry.at, nextRunAt, lastRunAt },
        update: { pattern: entry.at, nextRunAt, lastRunAt, leaseOwner: null, leaseUntil: null },
      });
    }
  }

  private async skipMissed(agent: Agent, index: number, pattern: SchedulePattern, missed: Date, now: Date): Promise<void> {
    await this.deps.db.agentSchedule.updateMany({
      where: { agentId: agent.id, entryIndex: index, nextRunAt: missed },
      data: { nextRunAt: this.nextRun(pattern, agent.boardId, missed, now) },
    });
  }

  /** Arms elapsed-form entries of boards whose session started, then runs every entry that is due. */
  async runDue(): Promise<number> {
    await this.armElapsedEntries();
    const now = this.deps.clock.now();
    const due = await this.deps.db.agentSchedule.findMany({
      where: { nextRunAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }], agent: { status: 'active', board: { status: 'active' } } },
      include: { agent: true },
      orderBy: { nextRunAt: 'asc' },
      take: MAX_RUNS_PER_TICK,
    });
    let ran = 0;
    for (const row of due) {
      if (!(await this.claim(row.agentId, row.entryIndex, this.deps.clock.now()))) continue;
      ran += 1;
      // Not awaited: one agent's slow run (an LLM call) does not hold up the other entries.
      void this.deps.track(this.runClaimed(agentFromRow(row.agent), row.entryIndex, row.nextRunAt!, now));
    }
    return ran;
  }

  private async runClaimed(agent: Agent, index: number, scheduledFor: Date, now: Date): Promise<void> {
    const entry = agent.instructions.schedule[index];
    const pattern = entry ? parseSchedulePattern(entry.at) : null;
    try {
      if (entry) {
        await this.deps.submit({
          agent,
          action: entry.action,
          params: entry.params ?? {},
          event: null,
          trigger: { type: 'schedule:trigger', data: { at: entry.at, entry: index, scheduled_for: scheduledFor.toISOString() } },
        });
      }
    } catch (error) {
      this.deps.logger.error({ err: error, board_id: agent.boardId, agent_id: agent.id }, 'scheduled agent run failed');
    }
    const next = pattern && !('problem' in pattern) ? this.nextRun(pattern, agent.boardId, scheduledFor, now) : null;
    await this.deps.db.agentSchedule.updateMany({
      where: { agentId: agent.id, entryIndex: index, leaseOwner: this.owner },
      data: { nextRunAt: next, lastRunAt: now, leaseOwner: null, leaseUntil: null },
    });
  }

  /** Takes the lease of a due entry; false when another instance holds it. */
  private async claim(agentId: string, entryIndex: number, now: Date): Promise<boolean> {
    const claimed = await this.deps.db.agentSchedule.updateMany({
      where: { agentId, entryIndex, nextRunAt: { lte: now }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
      data: { leaseOwner: this.owner, leaseUntil: new Date(now.getTime() + LEASE_MS) },
    });
    return claimed.count === 1;
  }

  /**
   * Elapsed-form entries (`00:10:00`) count from the start of the board's session: an entry that
   * has not run in the current session is armed for session start + its offset.
   */
  private async armElapsedEntries(): Promise<void> {
    const idle = await this.deps.db.agentSchedule.findMany({
      where: { nextRunAt: null, agent: { status: 'active' } },
      select: { agentId: true, entryIndex: true, pattern: true, lastRunAt: true, agent: { select: { boardId: true } } },
    });
    for (const row of idle) {
      const pattern = parseSchedulePattern(row.pattern);
      if ('problem' in pattern || pattern.kind !== 'elapsed') continue;
      const session = this.deps.sessionStartedAt(row.agent.boardId);
      if (!session || (row.lastRunAt && row.lastRunAt >= session)) continue;
      await this.deps.db.agentSchedule.updateMany({
        where: { agentId: row.agentId, entryIndex: row.entryIndex, nextRunAt: null },
        data: { nextRunAt: new Date(session.getTime() + pattern.afterMs) },
      });
    }
  }

  /**
   * The first run of a new or changed entry. An elapsed entry waits for a session
   * (armElapsedEntries); one whose time in the running session has already passed counts as
   * done for this session (a timer set up late does not fire at once).
   */
  private firstRun(pattern: SchedulePattern, boardId: string, now: Date): { nextRunAt: Date | null; lastRunAt: Date | null } {
    if (pattern.kind !== 'elapsed') return { nextRunAt: nextRunAfter(pattern, now, { anchor: now, sessionStartedAt: null }), lastRunAt: null };
    const session = this.deps.sessionStartedAt(boardId);
    if (!session) return { nextRunAt: null, lastRunAt: null };
    const run = new Date(session.getTime() + pattern.afterMs);
    return run > now ? { nextRunAt: run, lastRunAt: null } : { nextRunAt: null, lastRunAt: now };
  }

  /** The run after one that was due at `scheduledFor`: intervals keep their cadence, none is repeated. */
  private nextRun(pattern: SchedulePattern, boardId: string, scheduledFor: Date, now: Date): Date | null {
    if (pattern.kind === 'elapsed') return null;
    return nextRunAfter(pattern, now, { anchor: scheduledFor, sessionStartedAt: this.deps.sessionStartedAt(boardId) });
  }
}
