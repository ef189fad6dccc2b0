import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, fakeLlm } from '../helpers/fakeLlm.js';
import { createBoard, instancesForSuite } from '../helpers/fixtures.js';
import { postgresServerUrl } from '../helpers/testDatabase.js';
import type { TestServer } from '../helpers/testServer.js';
import { eventually } from '../helpers/testServer.js';

/**
 * An agent runs on one instance at a time (store/redisRunTurns.ts): a run on the second
 * instance waits while one on the first is thinking, then sees what that run spent. A slow
 * LLM (a local fake that answers when the test says) keeps the first run going.
 */
const runs = Boolean(process.env.REDIS_URL && postgresServerUrl());
/** How long the second run is given to (wrongly) call the LLM while the first one's call is open. */
const OVERLAP_WINDOW_MS = 1_000;

describe.skipIf(!runs)("an agent's runs across two instances (needs DATABASE_URL=postgresql://… and REDIS_URL)", () => {
  const llm = fakeLlm();
  const llmEnv: Record<string, string> = { AGENT_TICK_MS: '3600000', LLM_API_KEY: 'sk-test', LLM_MODEL: 'fake-model-1', LLM_TIMEOUT_MS: '20000' };
  // Registered before the instances' hook, so they start with the fake provider's port.
  beforeAll(async () => {
    llmEnv.LLM_BASE_URL = await llm.start();
  });
  afterAll(() => llm.close());
  const { first, second } = instancesForSuite(() => llmEnv);

  const postAnswer = async (server: TestServer, boardId: string) => {
    const created = await server.api('POST', `/boards/${boardId}/objects`, { type: 'answer', data: { text: 'I think 3/4 is bigger' }, position: { x: 100, y: 100 } }, { 'x-api-key': first.apiKey });
    expect(created.status).toBe(201);
  };

  it('waits for the run on the other instance, then sees what it spent', async () => {
    // Replies are held until the test sends them; each run makes one call.
    const held: ServerResponse[] = [];
    llm.answer((_call, response) => void held.push(response));
    const board = await createBoard(first, 'Turns');
    // Room for one call: the first reports the whole budget spent.
    const budgetTokens = 100_000;
    const created = await first.api('POST', `/boards/${board.board_uuid}/agents`, {
      name: 'Tutor',
      persona: 'tutor',
      visibility: 'stealth',
      budgetTokens,
      instructions: { description: 'Helps with fractions', triggers: [{ event: 'object:created', action: 'generate_hint' }] },
      scope: { objectTypes: ['answer'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agentId = created.body.id as string;

    await postAnswer(first, board.board_uuid);
    await eventually(() => llm.calls.length === 1);
    await postAnswer(second, board.board_uuid);
    // The second instance's run must not call the LLM while the first one's call is open.
    const overlapped = await eventually(() => llm.calls.length > 1, OVERLAP_WINDOW_MS).then(() => true, () => false);
    expect(overlapped).toBe(false);

    const reply = completion(JSON.stringify({ reasoning: 'Unlike denominators.', hint: 'Use the same denominator.' }), budgetTokens);
    reply(llm.calls[0]!, held[0]!);
    await Promise.all([first.app.agents.settled(), second.app.agents.settled()]);
    const log = (await first.api('GET', `/boards/${board.board_uuid}/agents/${agentId}/actions?limit=10`)).body as Array<{ success: boolean; tokensUsed: number; errorMessage: string | null }>;
    expect(log).toHaveLength(2);
    expect(log.filter((entry) => entry.success)).toEqual([expect.objectContaining({ tokensUsed: budgetTokens })]);
    expect(log.find((entry) => !entry.success)?.errorMessage).toMatch(/^Token budget: this call may need \d+ tokens, 0 remain$/);
    expect(llm.calls).toHaveLength(1);
  });
});
