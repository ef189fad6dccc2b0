import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible chat completions endpoint, scripted by the running test: it
 * stands in for the LLM provider (LLM_BASE_URL) over real HTTP.
 */

/** One request the fake provider received. */
export interface LlmCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; messages: Array<{ role: string; content: string }>; max_tokens: number; response_format?: unknown };
}

export type LlmReply = (call: LlmCall, response: ServerResponse) => void;

/** An OpenAI-compatible chat completions endpoint that answers as the running test scripts it. */
export function fakeLlm() {
  const calls: LlmCall[] = [];
  let reply: LlmReply = (_call, response) => sendJson(response, 500, { error: { message: 'no answer scripted' } });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as LlmCall['body'] };
      calls.push(call);
      reply(call, response);
    });
  });
  return {
    calls,
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    },
    /** Replaces the script and forgets the calls so far. */
    answer(next: LlmReply): void {
      reply = next;
      calls.length = 0;
    },
    close(): Promise<void> {
      // Requests left hanging by the timeout tests are cut, or close would wait for them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** A chat completion whose message content is `content`, billed `totalTokens`. */
export const completion = (content: string, totalTokens: number): LlmReply => (call, response) =>
  sendJson(response, 200, {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: call.body.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: totalTokens - 10, completion_tokens: 10, total_tokens: totalTokens },
  });
