import type { Logger } from '../../logger.js';
import type { PrismaClient } from '../../store/database.js';
import { GroupCommit } from '../../util/groupCommit.js';

/** One action log row as stored (agent_actions). */
export interface ActionLogRow {
  id: string;
  agentId: string;
  triggerEventType: string;
  triggerEventData: string;
  shouldAct: boolean;
  reasoning: string;
  actionType: string;
  actionParams: string;
  success: boolean;
  result: string;
  errorMessage: string | null;
  tokensUsed: number;
  latencyMs: number;
  createdAt: Date;
}

/** A run's log row and what it changes on its agent. */
export interface LogEntry {
  row: ActionLogRow;
  /** The agent's working memory after the run (JSON), if the run touched it. */
  memory?: string;
}

/**
 * The action log's writer: the rows of runs that end together, and their agents' counters
 * (tokens spent, actions taken, last action, working memory), are written in one transaction
 * (group commit), so a hundred agents acting at once cost a few commits, not a hundred.
 */
export class AgentLog {
  private readonly commit = new GroupCommit<LogEntry>((entries) => this.write(entries));

  constructor(
    private readonly db: PrismaClient,
    private readonly logger: Logger,
  ) {}

  /**
   * Resolves once the entry is committed (an entry of a deleted agent is dropped); an entry
   * that cannot be written is logged to the server log and dropped (the run's spending still
   * counts for the agent in this process).
   */
  add(entry: LogEntry): Promise<void> {
    return this.commit.add(entry);
  }

  private async write(entries: LogEntry[]): Promise<void> {
    try {
      await this.db.$transaction(async (tx) => {
        const existing = new Set(
          (await tx.agent.findMany({ where: { id: { in: [...new Set(entries.map((entry) => entry.row.agentId))] } }, select: { id: true } })).map((agent) => agent.id),
        );
        const kept = entries.filter((entry) => existing.has(entry.row.agentId));
        if (kept.length === 0) return;
        await tx.agentAction.createMany({ data: kept.map((entry) => entry.row) });
        for (const [agentId, change] of countersOf(kept)) await tx.agent.updateMany({ where: { id: agentId }, data: change });
      });
    } catch (error) {
      // An agent deleted between the check and the insert fails the batch: write the others one by one.
      if (entries.length === 1) throw error;
      this.logger.warn({ err: error, entries: entries.length }, 'agent log batch failed; writing its entries one by one');
      for (const entry of entries) {
        await this.write([entry]).catch((failure: unknown) =>
          this.logger.error({ err: failure, agent_id: entry.row.agentId, tokens: entry.row.tokensUsed }, 'agent log entry lost'),
        );
      }
    }
  }
}

/** Per agent, the counters a batch moves. */
function countersOf(entries: LogEntry[]) {
  const changes = new Map<string, { spentTokens: { increment: number }; actionsCount: { increment: number }; lastActionAt?: Date; memory?: string }>();
  for (const { row, memory } of entries) {
    const change = changes.get(row.agentId) ?? { spentTokens: { increment: 0 }, actionsCount: { increment: 0 } };
    change.spentTokens.increment += row.tokensUsed;
    if (row.shouldAct) {
      change.actionsCount.increment += 1;
      change.lastActionAt = row.createdAt;
    }
    if (memory !== undefined) change.memory = memory;
    changes.set(row.agentId, change);
  }
  return changes;
}
