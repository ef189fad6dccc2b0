import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createBoard, expectOk, organizationCaller, serverForSuite, type CreatedBoard } from '../helpers/fixtures.js';

/** An agent stays inside its rate, its token budget and its plan, and no chain of agents loops. */
const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
const { server } = serverForSuite({ clock, env: { AGENT_TICK_MS: '3600000' } });

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
const asTestOrganization: Call = (method, path, body) => server.api(method, path, body);

async function agentOn(board: CreatedBoard, body: Record<string, unknown>, call: Call = asTestOrganization) {
  const created = await call('POST', `/boards/${board.board_uuid}/agents`, { name: 'Agent', persona: 'custom', ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

async function logOf(board: CreatedBoard, agent: { id: string }, call: Call = asTestOrganization): Promise<Array<Record<string, any>>> {
  await server.app.agents.settled();
  const log = await call('GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions?limit=200`);
  expect(log.status).toBe(200);
  return log.body;
}

const objectOf = (type: string, text = 'an idea', x = 10, y = 10) => ({ type, data: { text }, position: { x, y } });
const createOnAnyObject = (allowSelfEvents = false) => ({
  event: 'object:created',
  action: 'create_object',
  params: { data: { text: 'echo' }, position: { x: 3000, y: 3000 } },
  allowSelfEvents,
});

describe('loops', () => {
  it('an agent never reacts to its own changes unless allowSelfEvents', async () => {
    const board = await createBoard(server, 'Limits');
    const agent = await agentOn(board, { instructions: { triggers: [createOnAnyObject()] } });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('sticky_note'));
    const log = await logOf(board, agent);
    expect(log).toHaveLength(1);
    const objects = (await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state.objects;
    expect(objects).toHaveLength(2);
    expect(objects.find((object: any) => object.data.text === 'echo').created_by).toBe(`agent:${agent.id}`);
  });

  it('with allowSelfEvents the chain of its own changes stops at the depth bound', async () => {
    const board = await createBoard(server, 'Limits');
    const agent = await agentOn(board, { instructions: { triggers: [createOnAnyObject(true)] } });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('sticky_note'));
    const log = await logOf(board, agent);
    expect(log).toHaveLength(3);
    expect((await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state.objects).toHaveLength(4);
  });

  it('two agents answering each other stop at the depth bound', async () => {
    const board = await createBoard(server, 'Limits');
    const ping = await agentOn(board, { name: 'Ping', instructions: { triggers: [createOnAnyObject()] } });
    const pong = await agentOn(board, { name: 'Pong', instructions: { triggers: [createOnAnyObject()] } });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('sticky_note'));
    const runs = (await logOf(board, ping)).length + (await logOf(board, pong)).length;
    // Depth 1: both react to the person's note; depths 2 and 3: each to the other's; then nothing.
    expect(runs).toBe(6);
    await server.api('GET', `/boards/${board.board_uuid}`);
    expect((await logOf(board, ping)).length + (await logOf(board, pong)).length).toBe(6);
  });
});

describe('rate', () => {
  it('a burst of 50 events gets exactly maxActionsPerMinute actions; the rest are logged as refused', async () => {
    const board = await createBoard(server, 'Limits');
    const agent = await agentOn(board, {
      maxActionsPerMinute: 10,
      instructions: { triggers: [{ event: 'object:created', condition: "object.type == 'go'", action: 'send_notification', params: { message: 'seen' } }] },
    });
    await Promise.all(Array.from({ length: 50 }, (_, index) => server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('go', `burst ${index}`, index, 0))));
    const log = await logOf(board, agent);
    expect(log).toHaveLength(50);
    expect(log.filter((entry) => entry.success)).toHaveLength(10);
    const refused = log.filter((entry) => !entry.success);
    expect(refused).toHaveLength(40);
    for (const entry of refused) expect(entry).toMatchObject({ shouldAct: false, errorMessage: expect.stringMatching(/Rate limit: 10 actions per minute/) });
    expect((await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/stats`)).actionsCount).toBe(10);

    clock.advance(59_000);
    await server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('go'));
    expect((await logOf(board, agent)).filter((entry) => entry.success)).toHaveLength(10);
    clock.advance(1_001);
    await server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('go'));
    expect((await logOf(board, agent)).filter((entry) => entry.success)).toHaveLength(11);
  });
});

describe('budget', () => {
  it('under a burst of 50 events, spends up to the budget and refuses exactly the calls it cannot pay for', async () => {
    const board = await createBoard(server, 'Limits');
    const budgetTokens = 400;
    const agent = await agentOn(board, {
      budgetTokens,
      maxActionsPerMinute: 60,
      instructions: { triggers: [{ event: 'object:created', condition: "object.type == 'answer'", action: 'evaluate_answer', params: { expected: '3/4', deliver: 'none' } }] },
    });
    await Promise.all(Array.from({ length: 50 }, (_, index) => server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('answer', `my answer is ${index % 10}`, index, 0))));
    const log = await logOf(board, agent);
    expect(log).toHaveLength(50);
    const paid = log.filter((entry) => entry.success);
    const refused = log.filter((entry) => !entry.success);
    expect(paid.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    const spent = paid.reduce((sum, entry) => sum + entry.tokensUsed, 0);
    expect(spent).toBeLessThanOrEqual(budgetTokens);
    for (const entry of refused) {
      expect(entry).toMatchObject({ shouldAct: false, tokensUsed: 0, errorMessage: expect.stringMatching(/^Token budget: this call may need \d+ tokens, \d+ remain$/) });
      // Refused only because the call could not be paid for. Answers differ in length, so a call
      // refused for needing a few tokens more than remained may be followed by a cheaper one that
      // fits: what remained at a refusal is never less than what remains at the end.
      const [needed, remaining] = (entry.errorMessage as string).match(/\d+/g)!.map(Number);
      expect(remaining).toBeLessThan(needed!);
      expect(remaining).toBeGreaterThanOrEqual(budgetTokens - spent);
    }
    const stats = await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/stats`);
    expect(stats).toMatchObject({ tokensSpent: spent, budgetRemaining: budgetTokens - spent, actionsCount: paid.length });
    expect(stats.budgetPercentUsed).toBeCloseTo((spent / budgetTokens) * 100, 1);

    // Raising the budget (null = unlimited) lets the agent work again.
    await expectOk(server, 'PATCH', `/boards/${board.board_uuid}/agents/${agent.id}`, { budgetTokens: null });
    clock.advance(1_000);
    await server.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('answer', 'one more'));
    expect((await logOf(board, agent))[0]).toMatchObject({ success: true });
  });
});

describe('plan', () => {
  it('refuses content actions on a plan without AI requests, while other actions keep working', async () => {
    const starter = await organizationCaller(server, 'starter');
    const created = await starter.api('POST', '/boards', { title: 'Starter board' });
    expect(created.status).toBe(201);
    const board = created.body as CreatedBoard;
    const agent = await agentOn(
      board,
      {
        instructions: {
          triggers: [
            { event: 'object:created', condition: "object.type == 'answer'", action: 'generate_hint' },
            { event: 'object:created', condition: "object.type == 'answer'", action: 'notify_teacher', params: { message: 'new answer' } },
          ],
        },
      },
      starter.api,
    );
    expect((await starter.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('answer'))).status).toBe(201);
    const log = await logOf(board, agent, starter.api);
    const hint = log.find((entry) => entry.actionType === 'generate_hint');
    expect(hint).toMatchObject({ success: false, shouldAct: false, tokensUsed: 0, errorMessage: expect.stringMatching(/AI requests/) });
    expect(log.find((entry) => entry.actionType === 'notify_teacher')).toMatchObject({ success: true });
  });

  it('counts each content action against ai_requests_monthly', async () => {
    const professional = await organizationCaller(server, 'professional');
    const board = (await professional.api('POST', '/boards', { title: 'Counted' })).body as CreatedBoard;
    await agentOn(board, { instructions: { triggers: [{ event: 'object:created', action: 'check_sentiment', params: { deliver: 'none' } }] } }, professional.api);
    const before = (await professional.api('GET', '/quota/ai_requests_monthly')).body;
    await professional.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('sticky_note', 'great idea'));
    await professional.api('POST', `/boards/${board.board_uuid}/objects`, objectOf('sticky_note', 'another one'));
    await server.app.agents.settled();
    const after = (await professional.api('GET', '/quota/ai_requests_monthly')).body;
    expect(after.current - before.current).toBe(2);
  });
});
