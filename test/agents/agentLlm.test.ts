import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBoard, expectOk, organizationCaller, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { completion, fakeLlm, sendJson, type LlmCall } from '../helpers/fakeLlm.js';
import { eventually, type ApiResponse } from '../helpers/testServer.js';

/**
 * Agents on an LLM: a local OpenAI-compatible endpoint, scripted per test, stands in for the
 * provider. The service talks to it over real HTTP with LLM_BASE_URL, LLM_API_KEY, LLM_MODEL
 * and a short LLM_TIMEOUT_MS.
 */
const LLM_KEY = 'sk-test-llm-key';
const LLM_MODEL = 'fake-model-1';
const LLM_TIMEOUT_MS = 500;
/** llmClient.ts LLM_DEFAULTS.retries: a transient failure is tried three times in all. */
const ATTEMPTS = 3;

const llm = fakeLlm();
const env: Record<string, string> = { AGENT_TICK_MS: '3600000', LLM_API_KEY: LLM_KEY, LLM_MODEL, LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS) };
// Registered before serverForSuite's hook, so the server starts with the fake provider's port.
beforeAll(async () => {
  env.LLM_BASE_URL = await llm.start();
});
const suite = serverForSuite({ env });
const { server } = suite;
afterAll(() => llm.close());

type Api = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
const asSuite: Api = (method, path, body) => server.api(method, path, body);

/** An answer the agent reacts to; the same size and place each time, so its prompt is too. */
const answerObject = (text = 'I think 3/4 is bigger than 2/3') => ({ type: 'answer', data: { text }, position: { x: 100, y: 100 }, width: 200, height: 200 });

/** A tutor that writes a hint beside each answer. */
async function hintingTutor(board: CreatedBoard, fields: Record<string, unknown> = {}, api: Api = asSuite, extraTriggers: unknown[] = []) {
  const created = await api('POST', `/boards/${board.board_uuid}/agents`, {
    name: 'Tutor',
    persona: 'tutor',
    instructions: { description: 'Helps with fractions', goals: ['Compare fractions'], rules: ['Never give the answer'], triggers: [{ event: 'object:created', action: 'generate_hint' }, ...extraTriggers] },
    scope: { objectTypes: ['answer'] },
    ...fields,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

async function postAnswer(board: CreatedBoard, api: Api = asSuite): Promise<{ id: string }> {
  const created = await api('POST', `/boards/${board.board_uuid}/objects`, answerObject());
  expect(created.status).toBe(201);
  return created.body as { id: string };
}

async function logOf(board: CreatedBoard, agent: { id: string }, api: Api = asSuite): Promise<Array<Record<string, any>>> {
  await server.app.agents.settled();
  const response = await api('GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions?limit=200`);
  expect(response.status).toBe(200);
  return response.body as Array<Record<string, any>>;
}

async function hintsOn(board: CreatedBoard): Promise<Array<Record<string, any>>> {
  const shown = await expectOk(server, 'GET', `/boards/${board.board_uuid}`);
  return (shown.state.objects as Array<Record<string, any>>).filter((object) => object.type === 'sticky');
}

/** What llmEngine.estimateTokens answers for the prompt of `call`: its characters / 4, rounded up, plus max_tokens. */
const estimateOf = (call: LlmCall) => Math.ceil(call.body.messages.reduce((sum, message) => sum + message.content.length, 0) / 4) + call.body.max_tokens;

describe('a content action answered by the LLM', () => {
  it('lands the hint on the board, counts the reported tokens, and calls the provider as configured', async () => {
    const hint = 'Compare both fractions with the same denominator.';
    llm.answer(completion(JSON.stringify({ reasoning: 'The student compares unlike fractions.', hint }), 123));
    const board = await createBoard(server, 'LLM');
    const agent = await hintingTutor(board);
    const answer = await postAnswer(board);
    const [entry] = await logOf(board, agent);
    expect(entry).toMatchObject({ triggerEventType: 'object:created', actionType: 'generate_hint', shouldAct: true, success: true, errorMessage: null, tokensUsed: 123 });
    expect(entry!.reasoning).toContain('The student compares unlike fractions.');
    expect(entry!.result).toMatchObject({ hint, level: 1 });
    const notes = await hintsOn(board);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ data: { text: hint, hintFor: answer.id, level: 1 }, created_by: `agent:${agent.id}` });
    expect(entry!.result.createdObjectIds).toEqual([notes[0]!.id]);

    const stats = await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/stats`);
    expect(stats).toMatchObject({ tokensSpent: 123, actionsCount: 1, successRate: 1 });
    expect(await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}`)).toMatchObject({ spentTokens: 123, stats: { tokensSpent: 123 } });

    expect(llm.calls).toHaveLength(1);
    const [call] = llm.calls;
    expect(call).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(call!.headers.authorization).toBe(`Bearer ${LLM_KEY}`);
    expect(call!.body).toMatchObject({ model: LLM_MODEL, response_format: { type: 'json_object' } });
    expect(call!.body.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(call!.body.messages[1]!.content).toContain('I think 3/4 is bigger than 2/3');
  });

  it('retries a transient 500 and succeeds', async () => {
    let failed = false;
    const success = completion(JSON.stringify({ hint: 'Draw both fractions.' }), 50);
    llm.answer((call, response) => {
      if (failed) return success(call, response);
      failed = true;
      sendJson(response, 500, { error: { message: 'overloaded' } });
    });
    const board = await createBoard(server, 'LLM');
    const agent = await hintingTutor(board);
    await postAnswer(board);
    expect((await logOf(board, agent))[0]).toMatchObject({ success: true, tokensUsed: 50 });
    expect(llm.calls).toHaveLength(2);
    expect((await hintsOn(board)).map((note) => note.data.text)).toEqual(['Draw both fractions.']);
  });
});

describe('a failing LLM', () => {
  it('a persistent 500 is logged as a failure with its error and no tokens, after the retries', async () => {
    llm.answer((_call, response) => sendJson(response, 500, { error: { message: 'down' } }));
    const board = await createBoard(server, 'LLM');
    const agent = await hintingTutor(board);
    await postAnswer(board);
    const [entry] = await logOf(board, agent);
    expect(entry).toMatchObject({ actionType: 'generate_hint', shouldAct: true, success: false, tokensUsed: 0 });
    expect(entry!.errorMessage).toMatch(/HTTP 500/);
    expect(llm.calls).toHaveLength(ATTEMPTS);
    expect(await hintsOn(board)).toEqual([]);
    expect(await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/stats`)).toMatchObject({ tokensSpent: 0, successRate: 0 });
  });

  it('a provider that never answers times out, while the board keeps working over REST and sockets', async () => {
    llm.answer(() => undefined);
    const board = await createBoard(server, 'LLM');
    const agent = await hintingTutor(board);
    await postAnswer(board);
    await eventually(() => llm.calls.length >= 1);
    expect((await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}`)).isThinking).toBe(true);

    const note = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'still here' }, position: { x: 600, y: 0 } });
    expect(note.status).toBe(201);
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    expect(host.doc.getMap('objects').has(note.body.id)).toBe(true);
    // All of that happened while the agent still waited on the provider (its attempts take over 2 s).
    expect((await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}`)).isThinking).toBe(true);

    const [entry] = await logOf(board, agent);
    expect(entry).toMatchObject({ actionType: 'generate_hint', shouldAct: true, success: false, tokensUsed: 0 });
    expect(entry!.errorMessage).toMatch(new RegExp(`timed out after ${LLM_TIMEOUT_MS} ms`));
    expect(entry!.latencyMs).toBeGreaterThanOrEqual(ATTEMPTS * LLM_TIMEOUT_MS);
    expect(llm.calls).toHaveLength(ATTEMPTS);
    expect((await hintsOn(board)).map((object) => object.data.text)).toEqual(['still here']);
  });

  it('an answer that is not JSON fails, and its reported tokens still count', async () => {
    llm.answer(completion('Sure! A good hint: think of pizza slices.', 77));
    const board = await createBoard(server, 'LLM');
    const agent = await hintingTutor(board);
    await postAnswer(board);
    const [entry] = await logOf(board, agent);
    expect(entry).toMatchObject({ shouldAct: true, success: false, tokensUsed: 77 });
    expect(entry!.errorMessage).toMatch(/not valid JSON/);
    expect(await hintsOn(board)).toEqual([]);
    expect(await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/stats`)).toMatchObject({ tokensSpent: 77 });
    expect(llm.calls).toHaveLength(1);
  });

  it('JSON that fails the action’s output schema fails, with its tokens counted', async () => {
    llm.answer(completion(JSON.stringify({ hint: 42 }), 64));
    const board = await createBoard(server, 'LLM');
    const agent = await hintingTutor(board);
    await postAnswer(board);
    const [entry] = await logOf(board, agent);
    expect(entry).toMatchObject({ shouldAct: true, success: false, tokensUsed: 64 });
    expect(entry!.errorMessage).toMatch(/does not match its schema/);
    expect(await hintsOn(board)).toEqual([]);
  });
});

describe('refused before the LLM is called', () => {
  it('a budget just below the estimate is refused and logged, and no request is sent; the estimate itself is allowed', async () => {
    llm.answer(completion(JSON.stringify({ hint: 'Look at the denominators.' }), 40));
    const unlimited = await createBoard(server, 'LLM');
    await hintingTutor(unlimited);
    await postAnswer(unlimited);
    await server.app.agents.settled();
    expect(llm.calls).toHaveLength(1);
    const estimate = estimateOf(llm.calls[0]!);

    llm.answer(completion(JSON.stringify({ hint: 'Look at the denominators.' }), 40));
    const short = await createBoard(server, 'LLM');
    const refused = await hintingTutor(short, { budgetTokens: estimate - 1 });
    await postAnswer(short);
    const [entry] = await logOf(short, refused);
    expect(entry).toMatchObject({ actionType: 'generate_hint', shouldAct: false, success: false, tokensUsed: 0 });
    expect(entry!.errorMessage).toBe(`Token budget: this call may need ${estimate} tokens, ${estimate - 1} remain`);
    expect(llm.calls).toHaveLength(0);
    expect(await hintsOn(short)).toEqual([]);

    const exact = await createBoard(server, 'LLM');
    const allowed = await hintingTutor(exact, { budgetTokens: estimate });
    await postAnswer(exact);
    expect((await logOf(exact, allowed))[0]).toMatchObject({ success: true, tokensUsed: 40 });
    expect(llm.calls).toHaveLength(1);
    expect(estimateOf(llm.calls[0]!)).toBe(estimate);
  });

  it('a plan without AI requests refuses the content action without calling the LLM; the agent’s other trigger still acts', async () => {
    llm.answer(completion(JSON.stringify({ hint: 'never sent' }), 10));
    const starter = await organizationCaller(server, 'starter');
    const created = await starter.api('POST', '/boards', { title: 'Starter board' });
    expect(created.status).toBe(201);
    const board = created.body as CreatedBoard;
    const notify = { event: 'object:created', action: 'send_notification', params: { message: 'New answer', to: 'hosts' } };
    const agent = await hintingTutor(board, {}, starter.api, [notify]);
    await postAnswer(board, starter.api);
    const log = await logOf(board, agent, starter.api);
    expect(log).toHaveLength(2);
    const hint = log.find((entry) => entry.actionType === 'generate_hint');
    expect(hint).toMatchObject({ shouldAct: false, success: false, tokensUsed: 0 });
    expect(hint!.errorMessage).toMatch(/^AI requests: /);
    expect(log.find((entry) => entry.actionType === 'send_notification')).toMatchObject({ shouldAct: true, success: true, errorMessage: null });
    expect(llm.calls).toHaveLength(0);
  });
});
