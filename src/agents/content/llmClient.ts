import pRetry from 'p-retry';

/** An OpenAI-compatible chat completions endpoint (`LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`; docs/operating.md). */
export interface LlmSettings {
  /** Up to, not including, `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Per attempt. @default 20000 */
  timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx, timeouts and network errors only. @default 2 */
  retries?: number;
  /** `max_tokens` of each answer. @default 800 */
  maxOutputTokens?: number;
}

export const LLM_DEFAULTS = { timeoutMs: 20_000, retries: 2, maxOutputTokens: 800 } as const;

/** A larger answer is refused unread: a chat completion within max_tokens is a few kilobytes. */
export const MAX_RESPONSE_BYTES = 1_048_576;
/** First retry delay; it doubles with each retry. */
const RETRY_MIN_TIMEOUT_MS = 200;
/** A provider's Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_MS = 10_000;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmCompletion {
  content: string;
  totalTokens: number;
  /** true when the answer carried no `usage.total_tokens` and totalTokens is ceil(chars / 4). */
  tokensEstimated: boolean;
}

/** A failed completion; `tokensUsed` counts an answer the provider billed but that was unusable. */
export class LlmError extends Error {
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  readonly tokensUsed: number;

  constructor(
    message: string,
    readonly retryable: boolean,
    details: { status?: number; retryAfterMs?: number; tokensUsed?: number } = {},
  ) {
    super(message);
    this.name = 'LlmError';
    this.status = details.status ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.tokensUsed = details.tokensUsed ?? 0;
  }
}

export class LlmClient {
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  readonly maxOutputTokens: number;

  constructor(private readonly settings: LlmSettings) {
    this.url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.timeoutMs = settings.timeoutMs ?? LLM_DEFAULTS.timeoutMs;
    this.retries = settings.retries ?? LLM_DEFAULTS.retries;
    this.maxOutputTokens = settings.maxOutputTokens ?? LLM_DEFAULTS.maxOutputTokens;
  }

  /** One chat completion, retried on transient failures; rejects with LlmError. */
  async complete(messages: ChatMessage[], options: { signal?: AbortSignal; responseFormatJson?: boolean } = {}): Promise<LlmCompletion> {
    const { signal } = options;
    const body = JSON.stringify({
      model: this.settings.model,
      messages,
      temperature: 0,
      max_tokens: this.maxOutputTokens,
      ...(options.responseFormatJson ? { response_format: { type: 'json_object' } } : {}),
    });
    try {
      return await pRetry(() => this.attempt(body, messages, signal), {
        retries: this.retries,
        minTimeout: RETRY_MIN_TIMEOUT_MS,
        factor: 2,
        signal,
        shouldRetry: ({ error }) => error instanceof LlmError && error.retryable && !signal?.aborted,
        // p-retry waits its own backoff after this; a longer Retry-After is topped up here.
        onFailedAttempt: async ({ error, retriesLeft, retriesConsumed }) => {
          if (!(error instanceof LlmError) || !error.retryable || retriesLeft === 0) return;
          const backoff = RETRY_MIN_TIMEOUT_MS * 2 ** retriesConsumed;
          await abortableDelay((error.retryAfterMs ?? 0) - backoff, signal);
        },
      });
    } catch (error) {
      if (signal?.aborted) throw new LlmError(`LLM request aborted: ${reasonOf(signal.reason)}`, false);
      if (error instanceof LlmError) throw error;
      throw new LlmError(`LLM request failed: ${reasonOf(error)}`, false);
    }
  }

  private async attempt(body: string, messages: ChatMessage[], callerSignal: AbortSignal | undefined): Promise<LlmCompletion> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.settings.apiKey}` },
        body,
        signal,
      });
      text = await readLimited(response, MAX_RESPONSE_BYTES);
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (callerSignal?.aborted) throw error;
      if (timeout.aborted) throw new LlmError(`LLM request timed out after ${this.timeoutMs} ms`, true);
      throw new LlmError(`LLM request failed: ${reasonOf(error)}`, true);
    }
    if (!response.ok) throw httpError(response);
    return completionOf(text, messages);
  }
}

function httpError(response: Response): LlmError {
  const transient = response.status === 429 || response.status >= 500;
  const retryAfterMs = transient ? retryAfterOf(response.headers.get('retry-after')) : undefined;
  return new LlmError(`LLM request failed: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, transient, {
    status: response.status,
    retryAfterMs,
  });
}

/** Seconds or an HTTP date, capped at MAX_RETRY_AFTER_MS; undefined when absent or unreadable. */
function retryAfterOf(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = /^\s*\d+(?:\.\d+)?\s*$/.test(header) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(seconds) ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, seconds)) : undefined;
}

/** The body as text, refused (not retried) once it passes `limit` bytes. */
async function readLimited(response: Response, limit: number): Promise<string> {
  const tooLarge = () => new LlmError(`LLM answer is larger than ${limit} bytes`, false);
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function completionOf(text: string, messages: ChatMessage[]): LlmCompletion {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new LlmError('LLM answer is not JSON', false);
  }
  const usage = (answer as { usage?: { total_tokens?: unknown } } | null)?.usage?.total_tokens;
  const reported = typeof usage === 'number' && Number.isFinite(usage) && usage >= 0 ? Math.ceil(usage) : null;
  const content = (answer as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') {
    throw new LlmError('LLM answer has no message content', false, { tokensUsed: reported ?? 0 });
  }
  const promptChars = messages.reduce((sum, message) => sum + message.content.length, 0);
  return {
    content,
    totalTokens: reported ?? Math.ceil((promptChars + content.length) / 4),
    tokensEstimated: reported === null,
  };
}

function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * What a failure says in the agent's action log, which hosts read: the error's kind (a
 * connection refused, a DNS failure), never the addresses in its message.
 */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const cause = (error as { cause?: unknown }).cause;
  const code = cause && typeof cause === 'object' && typeof (cause as { code?: unknown }).code === 'string' ? (cause as { code: string }).code : null;
  return code ? `${error.message} (${code})` : error.message;
}
