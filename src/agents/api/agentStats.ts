import type { Db } from '../../store/database.js';
import type { Agent } from '../agent.js';

/** What an agent has done so far, as `GET …/agents/<id>/stats` answers it (docs/agents.md). */
export interface AgentStats {
  actionsCount: number;
  tokensSpent: number;
  lastActionAt: string | null;
  /** Share of the logged actions that succeeded, 0-1 (0 with none logged). */
  successRate: number;
  averageLatencyMs: number;
  actionsByType: Record<string, number>;
  /** Null when the budget is unlimited. */
  budgetRemaining: number | null;
  /** 0 when the budget is unlimited. */
  budgetPercentUsed: number;
}

/**
 * The statistics of an agent. `actionsCount` counts the actions it took (refused runs are in
 * the log, not in the count); rates and latencies are over every log entry that acted.
 */
export async function statsOf(db: Db, agent: Agent): Promise<AgentStats> {
  const acted = { agentId: agent.id, shouldAct: true };
  const [totals, succeeded, byType] = await Promise.all([
    db.agentAction.aggregate({ where: acted, _count: { _all: true }, _avg: { latencyMs: true } }),
    db.agentAction.count({ where: { ...acted, success: true } }),
    db.agentAction.groupBy({ by: ['actionType'], where: acted, _count: { _all: true } }),
  ]);
  const logged = totals._count._all;
  const budget = agent.budgetTokens;
  return {
    actionsCount: agent.actionsCount,
    tokensSpent: agent.spentTokens,
    lastActionAt: agent.lastActionAt?.toISOString() ?? null,
    successRate: logged === 0 ? 0 : round(succeeded / logged, 4),
    averageLatencyMs: round(totals._avg.latencyMs ?? 0, 1),
    actionsByType: Object.fromEntries(byType.map((entry) => [entry.actionType, entry._count._all])),
    budgetRemaining: budget === null ? null : Math.max(0, budget - agent.spentTokens),
    budgetPercentUsed: budget === null ? 0 : budget === 0 ? 100 : round(Math.min(100, (agent.spentTokens / budget) * 100), 2),
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
