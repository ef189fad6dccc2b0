import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { BoardObject } from '../../boards/boardObjects.js';
import { ContentEngineError, type ContentRequest } from './contentTypes.js';
import { createLlmEngine, promptFor } from './llmEngine.js';
import type { LlmSettings } from './llmClient.js';

/** One scripted answer of the fake provider; `null` never answers. */
type Reply = ((res: ServerResponse) => void) | null;

interface FakeLlm {
  baseUrl: string;
  requests: Array<{ url: string; headers: IncomingMessage['headers']; body: any }>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real OpenAI-compatible HTTP server on a random port, answering with `replies` in turn (the last repeats). */
async function fakeLlm(...replies: Reply[]): Promise<FakeLlm> {
  const fake: FakeLlm = { baseUrl: '', requests: [] };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      fake.requests.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(body) });
      const reply = replies[Math.min(fake.requests.length, replies.length) - 1];
      reply?.(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  return fake;
}

function answer(content: string, totalTokens?: number): Reply {
  return (res) => {
    res.setHeader('content-type', 'application/json');
    const usage = totalTokens === undefined ? {} : { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: totalTokens } };
    res.end(JSON.stringify({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content } }], ...usage }));
  };
}

function status(code: number, headers: Record<string, string> = {}): Reply {
  return (res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message: 'nope' } }));
  };
}

const evaluation = JSON.stringify({ correct: true, score: 0.9, feedback: 'Well reasoned.', reasoning: 'It names Paris.' });

function settings(fake: FakeLlm, extra: Partial<LlmSettings> = {}): LlmSettings {
  return { baseUrl: fake.baseUrl, apiKey: 'sk-test-key', model: 'test-model', ...extra };
}

function note(id: string, text: string, x = 0): BoardObject {
  return { id, type: 'sticky', data: { text }, position: { x, y: 0 }, created_at: '2026-01-01T00:00:00.000Z', created_by: null };
}

function request(action: ContentRequest['action'], extra: Partial<ContentRequest> = {}): ContentRequest {
  return {
    action,
    params: { expected: 'Paris' },
    agent: { name: 'Ada', persona: 'tutor', description: 'Helps with geography.', goals: ['Learn capitals'], rules: ['Be kind'] },
    subject: note('s1', 'The capital of France is Paris'),
    objects: [note('o1', 'Budget cuts'), note('o2', 'Cut the budget')],
    ...extra,
  };
}

describe('LLM content engine', () => {
  it('returns the validated answer with the provider-reported tokens and the model reasoning', async () => {
    const fake = await fakeLlm(answer(evaluation, 123));
    const result = await createLlmEngine(settings(fake)).run(request('evaluate_answer'));
    expect(result).toEqual({
      output: { action: 'evaluate_answer', correct: true, score: 0.9, feedback: 'Well reasoned.' },
      tokensUsed: 123,
      reasoning: 'It names Paris.',
    });
  });

  it('posts model, messages, temperature 0, max_tokens and a JSON response format with the bearer key', async () => {
    const fake = await fakeLlm(answer(evaluation, 10));
    await createLlmEngine(settings(fake, { maxOutputTokens: 321 })).run(request('evaluate_answer'));
    const sent = fake.requests[0]!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-key');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 321, response_format: { type: 'json_object' } });
    const [system, user] = sent.body.messages;
    expect(system.role).toBe('system');
    expect(system.content).toContain('tutor persona');
    expect(system.content).toContain('- Be kind');
    expect(system.content).toContain('"correct": true | false | null');
    expect(user.role).toBe('user');
    expect(user.content).toContain('"id":"s1"');
    expect(user.content).toContain('Objects in scope (2 of 2 shown)');
  });

  it('retries a 500 and counts only the tokens of the answer that succeeded', async () => {
    const fake = await fakeLlm(status(500), answer(evaluation, 50));
    const result = await createLlmEngine(settings(fake)).run(request('evaluate_answer'));
    expect(fake.requests).toHaveLength(2);
    expect(result.tokensUsed).toBe(50);
  });

  it('waits for Retry-After on a 429 before retrying', async () => {
    const fake = await fakeLlm(status(429, { 'retry-after': '1' }), answer(evaluation, 7));
    const started = performance.now();
    const result = await createLlmEngine(settings(fake)).run(request('evaluate_answer'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.requests).toHaveLength(2);
    expect(result.tokensUsed).toBe(7);
  });

  it('gives up after the configured retries when the provider keeps failing', async () => {
    const fake = await fakeLlm(status(503));
    const run = createLlmEngine(settings(fake, { retries: 2 })).run(request('evaluate_answer'));
    await expect(run).rejects.toThrow(ContentEngineError);
    await expect(run).rejects.toMatchObject({ message: 'LLM request failed: HTTP 503 Service Unavailable', tokensUsed: 0 });
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry other 4xx answers', async () => {
    const fake = await fakeLlm(status(401), answer(evaluation, 5));
    await expect(createLlmEngine(settings(fake)).run(request('evaluate_answer'))).rejects.toThrow('HTTP 401');
    expect(fake.requests).toHaveLength(1);
  });

  it('times out an attempt that never answers, retries it, then fails', async () => {
    const fake = await fakeLlm(null);
    const run = createLlmEngine(settings(fake, { timeoutMs: 200, retries: 1 })).run(request('evaluate_answer'));
    await expect(run).rejects.toThrow('LLM request timed out after 200 ms');
    expect(fake.requests).toHaveLength(2);
  });

  it('stops at once, without retrying, when the caller aborts', async () => {
    const fake = await fakeLlm(null);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const run = createLlmEngine(settings(fake, { timeoutMs: 5_000 })).run(request('evaluate_answer'), { signal: controller.signal });
    await expect(run).rejects.toThrow(/^LLM request aborted/);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a refused connection as a network error', async () => {
    const fake = await fakeLlm(null);
    const closed = servers.pop();
    closed?.closeAllConnections();
    await new Promise((resolve) => closed?.close(resolve));
    const run = createLlmEngine(settings(fake, { retries: 1 })).run(request('evaluate_answer'));
    await expect(run).rejects.toThrow(/^LLM request failed: fetch failed/);
  });

  it('refuses content that is not JSON, still counting the tokens it cost', async () => {
    const fake = await fakeLlm(answer('Sure! The answer looks right to me.', 42));
    const run = createLlmEngine(settings(fake)).run(request('evaluate_answer'));
    await expect(run).rejects.toThrow(ContentEngineError);
    await expect(run).rejects.toMatchObject({ message: 'LLM answer for evaluate_answer is not valid JSON', tokensUsed: 42 });
  });

  it('refuses JSON that fails the action schema, still counting its tokens', async () => {
    const fake = await fakeLlm(answer(JSON.stringify({ correct: true, score: 7, feedback: 'ok' }), 30));
    const run = createLlmEngine(settings(fake)).run(request('evaluate_answer'));
    await expect(run).rejects.toMatchObject({ message: expect.stringContaining('does not match its schema') as string, tokensUsed: 30 });
  });

  it('accepts fenced JSON and drops fields the schema does not name', async () => {
    const fenced = '```json\n{"hint": "Think about rivers.", "confidence": 0.3, "reasoning": "Level 1."}\n```';
    const fake = await fakeLlm(answer(fenced, 9));
    const result = await createLlmEngine(settings(fake)).run(request('generate_hint'));
    expect(result.output).toEqual({ action: 'generate_hint', hint: 'Think about rivers.' });
  });

  it('estimates tokens from characters when the answer reports no usage, and says so', async () => {
    const fake = await fakeLlm(answer(evaluation));
    const engine = createLlmEngine(settings(fake));
    const result = await engine.run(request('evaluate_answer'));
    const promptChars = promptFor(request('evaluate_answer')).reduce((sum, message) => sum + message.content.length, 0);
    expect(result.tokensUsed).toBe(Math.ceil((promptChars + evaluation.length) / 4));
    expect(result.reasoning).toContain('tokens estimated from characters');
  });

  it('keeps only real object ids in clusters and design issues', async () => {
    const clusters = { clusters: [{ label: 'budget', objectIds: ['o1', 'ghost', 'o2', 'o1'] }, { label: 'none', objectIds: ['ghost'] }] };
    const issues = { valid: false, issues: [{ objectId: 'ghost', message: 'Too small' }, { objectId: 'o2', message: 'Overlaps o1' }] };
    const fake = await fakeLlm(answer(JSON.stringify(clusters), 1), answer(JSON.stringify(issues), 1));
    const engine = createLlmEngine(settings(fake));
    expect((await engine.run(request('cluster_similar'))).output).toEqual({
      action: 'cluster_similar',
      clusters: [{ label: 'budget', objectIds: ['o1', 'o2'] }],
    });
    expect((await engine.run(request('validate_design'))).output).toEqual({
      action: 'validate_design',
      valid: false,
      issues: [
        { objectId: null, message: 'Too small' },
        { objectId: 'o2', message: 'Overlaps o1' },
      ],
    });
  });

  it('refuses an answer body over 1 MB without retrying', async () => {
    const huge: Reply = (res) => res.end('x'.repeat(1_100_000));
    const fake = await fakeLlm(huge);
    await expect(createLlmEngine(settings(fake)).run(request('summarize'))).rejects.toThrow('LLM answer is larger than 1048576 bytes');
    expect(fake.requests).toHaveLength(1);
  });

  it('bounds the prompt however large the scope, and estimates an upper bound of prompt plus output', async () => {
    const fake = await fakeLlm(answer('{}', 1));
    const objects = Array.from({ length: 200 }, (_, i) => note(`o${i}`, 'word '.repeat(2_000), i * 10));
    const big = request('summarize', { objects, params: { note: 'p'.repeat(50_000) } });
    const messages = promptFor(big);
    const chars = messages.reduce((sum, message) => sum + message.content.length, 0);
    expect(chars).toBeLessThan(20_000);
    expect(messages[1]?.content).toMatch(/Objects in scope \(\d+ of 200 shown\)/);
    expect(createLlmEngine(settings(fake, { maxOutputTokens: 500 })).estimateTokens(big)).toBe(Math.ceil(chars / 4) + 500);
  });
});
