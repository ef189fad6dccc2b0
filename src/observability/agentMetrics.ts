import { Counter, type Registry } from 'prom-client';
import type { AgentRunObserver, AgentRunOutcome } from '../agents/runtime/agentRunner.js';

/** Agent runs by outcome and the tokens they spent, counted as each run is logged. */
export function agentMetrics(registry: Registry): AgentRunObserver {
  const actions = new Counter({
    name: 'whiteboard_agent_actions_total',
    help: 'Agent runs logged, by outcome: succeeded (acted), failed (tried and failed), refused (did not act: invalid params, rate, queue, token budget or AI quota).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'whiteboard_agent_tokens_total',
    help: "Content-engine tokens spent by agents' runs (the LLM's reported usage, or the built-in rule engine's count of characters / 4).",
    registers: [registry],
  });
  const byOutcome: Record<AgentRunOutcome, { inc(value?: number): void }> = {
    succeeded: actions.labels('succeeded'),
    failed: actions.labels('failed'),
    refused: actions.labels('refused'),
  };
  for (const child of Object.values(byOutcome)) child.inc(0);
  return {
    runLogged(outcome, tokensUsed) {
      byOutcome[outcome].inc();
      if (tokensUsed > 0) tokens.inc(tokensUsed);
    },
  };
}
