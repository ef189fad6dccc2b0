import type { Board } from '../../boards/board.js';
import type { Caller } from '../../boards/caller.js';
import { AppError, errors } from '../../errors.js';
import type { Agent } from '../agent.js';
import type { ActionContext, AgentObjects } from '../actions/action.js';
import { generateContent } from '../actions/contentActions.js';
import type { ContentEngine } from '../content/contentTypes.js';
import type { AgentFrames, AgentSockets } from '../ports.js';
import type { GenerateInput } from './schemas.js';

export interface BoardAssistantDependencies {
  engine: ContentEngine;
  objects: AgentObjects;
  frames: AgentFrames;
  sockets: AgentSockets;
  consumeAiRequest(organizationId: string): Promise<void>;
}

/**
 * Content generated on a person's request (`ai/generate`): the `generate_content` action run
 * with the caller's own rights (the objects are theirs, in the zones they may write), counted
 * against the plan's AI requests like an agent's.
 */
export class BoardAssistant {
  constructor(private readonly deps: BoardAssistantDependencies) {}

  async generate(caller: Caller, board: Board, input: GenerateInput): Promise<{ objectIds: string[]; tokensUsed: number; engine: string }> {
    let tokensUsed = 0;
    const context: ActionContext = {
      agent: assistantOf(board),
      event: null,
      caller,
      cause: { agentId: 'assistant', depth: 1 },
      objects: this.deps.objects,
      frames: this.deps.frames,
      sockets: this.deps.sockets,
      memory: {},
      content: async (request) => {
        await this.deps.consumeAiRequest(board.organizationId);
        const result = await this.deps.engine.run({ ...request, agent: { name: 'Board assistant', persona: 'custom', description: '', goals: [], rules: [] } });
        tokensUsed += result.tokensUsed;
        return result;
      },
    };
    const params = await generateContent.sanitize(
      { prompt: input.prompt, ...(input.style ? { style: input.style } : {}), ...(input.count ? { count: input.count } : {}), origin: input.position ?? { x: 0, y: 0 } },
      context,
    );
    try {
      const { result } = await generateContent.apply(params, context);
      return { objectIds: (result.createdObjectIds as string[] | undefined) ?? [], tokensUsed, engine: this.deps.engine.kind };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw errors.unavailable('The content could not be generated; retry later');
    }
  }
}

/** The stand-in agent `generate_content` reads (name, scope) when a person asks for content. */
function assistantOf(board: Board): Agent {
  const now = new Date(0);
  return {
    id: 'assistant',
    boardId: board.id,
    organizationId: board.organizationId,
    name: 'Board assistant',
    persona: 'custom',
    status: 'active',
    instructions: { description: '', goals: [], rules: [], triggers: [], schedule: [] },
    scope: { frames: [], objectTypes: [], participants: [] },
    priority: 5,
    visibility: 'stealth',
    maxActionsPerMinute: 60,
    budgetTokens: null,
    spentTokens: 0,
    actionsCount: 0,
    lastActionAt: null,
    memory: {},
    scanPending: false,
    createdBy: 'assistant',
    createdAt: now,
    updatedAt: now,
  };
}
