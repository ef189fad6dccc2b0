import http from 'node:http';
import https from 'node:https';
import secureJson from 'secure-json-parse';
import { publicOnlyLookup, webhookUrlProblem } from '../webhooks/egress.js';

/** A data provider must answer, from connecting to the last byte, within this time. */
export const PROVIDER_TIMEOUT_MS = 5_000;
/** Largest answer read from a data provider; reading stops past it. */
export const PROVIDER_MAX_BYTES = 1_048_576;
/** Deepest nesting of objects and arrays an answer may have (it is written back out as JSON). */
export const PROVIDER_MAX_DEPTH = 64;

const USER_AGENT = 'Whiteboard-DataProvider/1.0';
/**
 * Headers a board may not set on its provider calls: they would change the request's framing,
 * its target or the connection, not what the provider is asked.
 */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);

/** One call to a board's data provider. */
export interface ProviderCall {
  url: URL;
  method: string;
  /** The board's `data_provider.headers`. */
  headers: Record<string, string>;
  /** Allow loopback/private targets and plain http (development and tests). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

/** A provider's usable answer. */
export interface ProviderAnswer {
  data: unknown;
  status: number;
  /** Bytes of the body as received. */
  bytes: number;
}

export type ProviderFailureReason = 'refused' | 'headers' | 'timeout' | 'unreachable' | 'status' | 'too-large' | 'not-json' | 'cut-off';

/**
 * Why a provider call gave no usable answer: `publicMessage` is what the client is told (502),
 * `detail` what the log keeps (an egress refusal's reason is not told to the client).
 */
export class ProviderFailure extends Error {
  constructor(
    readonly reason: ProviderFailureReason,
    readonly publicMessage: string,
    readonly detail: string = publicMessage,
    readonly status?: number,
  ) {
    super(detail);
    this.name = 'ProviderFailure';
  }
}

/**
 * Calls a data provider under the rules of webhook egress: http(s) only, no private, loopback or
 * metadata address unless allowed (checked on the URL, and on every address the name resolves
 * to when connecting), redirects never followed. The whole call is bounded in time and in
 * bytes read, and only a 2xx answer holding JSON is an answer.
 */
export function callProvider(call: ProviderCall): Promise<ProviderAnswer> {
  return new Promise((resolve, reject) => {
    // An IP-literal host is connected to without a lookup, so the URL itself is checked first.
    const refused = webhookUrlProblem(call.url.href, call.allowPrivate);
    if (refused) throw new ProviderFailure('refused', "The data provider's address is not allowed", `url ${refused}`);
    const headers = requestHeaders(call);
    let settled = false;
    let timedOut = false;
    const finish = (outcome: ProviderAnswer | ProviderFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof ProviderFailure) reject(outcome);
      else resolve(outcome);
    };
    const secure = call.url.protocol === 'https:';
    // No keep-alive pool: a pooled connection would outlive the egress rules it was opened under.
    const req = (secure ? https : http).request(call.url, {
      method: call.method,
      headers,
      agent: false,
      ...(call.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
      finish(new ProviderFailure('timeout', `The data provider did not answer within ${formatSeconds(call.timeoutMs)}`));
    }, call.timeoutMs);
    req.on('response', (res) => readAnswer(res, call.maxBytes, finish));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (timedOut) return;
      if (error.code === 'EBLOCKEDADDRESS') finish(new ProviderFailure('refused', "The data provider's address is not allowed", error.message));
      else finish(new ProviderFailure('unreachable', 'The data provider could not be reached', error.message));
    });
    req.end();
  });
}

/** Reads one answer: a 2xx JSON body within `maxBytes`, or the failure saying why not. */
function readAnswer(res: http.IncomingMessage, maxBytes: number, finish: (outcome: ProviderAnswer | ProviderFailure) => void): void {
  const status = res.statusCode ?? 0;
  const stop = (failure: ProviderFailure) => {
    res.destroy();
    finish(failure);
  };
  if (status < 200 || status >= 300) {
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return stop(new ProviderFailure('status', `The data provider answered HTTP ${status}${redirect}`, `status ${status}`, status));
  }
  const contentType = res.headers['content-type'];
  if (contentType !== undefined && !isJsonType(contentType)) {
    return stop(new ProviderFailure('not-json', `The data provider answered ${contentType.split(';')[0]!.trim() || 'an empty content type'}, not JSON`));
  }
  const tooLarge = () => new ProviderFailure('too-large', `The data provider's answer is larger than ${formatBytes(maxBytes)}`);
  if (Number(res.headers['content-length']) > maxBytes) return stop(tooLarge());
  const chunks: Buffer[] = [];
  let bytes = 0;
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) return stop(tooLarge());
    chunks.push(chunk);
  });
  res.on('end', () => {
    const body = Buffer.concat(chunks);
    const parsed = parseJson(body);
    if (parsed instanceof ProviderFailure) finish(parsed);
    else finish({ data: parsed.value, status, bytes });
  });
  res.on('error', () => undefined);
  // Closed before its end: the provider hung up mid-answer (or the answer was stopped above).
  res.on('close', () => finish(new ProviderFailure('cut-off', "The data provider's answer was cut off")));
}

/** The body as JSON, refused when it is not JSON or nests too deep to be written back out. */
function parseJson(body: Buffer): { value: unknown } | ProviderFailure {
  const text = body.toString('utf8');
  const notJson = new ProviderFailure('not-json', "The data provider's answer is not valid JSON");
  if (text.trim() === '') return notJson;
  // Measured before parsing: writing a value thousands of levels deep would exhaust the stack.
  if (nestingDepth(text) > PROVIDER_MAX_DEPTH) {
    return new ProviderFailure('not-json', `The data provider's answer nests deeper than ${PROVIDER_MAX_DEPTH} levels`);
  }
  try {
    // `__proto__` and `constructor.prototype` keys are dropped: the answer travels on into a page.
    return { value: secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }) as unknown };
  } catch {
    return notJson;
  }
}

/** The deepest nesting of `[` and `{` outside strings, in one linear pass over the text. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (char === 0x5d || char === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * The headers sent: the board's, after ours (`Accept`, `User-Agent`, which it may replace), names
 * compared case-insensitively. A header that cannot be sent, or one in RESERVED_HEADERS, fails
 * the call: silently dropping it would hide a misconfigured board.
 */
function requestHeaders(call: ProviderCall): Record<string, string> {
  const byName = new Map<string, [string, string]>([
    ['accept', ['Accept', 'application/json']],
    ['user-agent', ['User-Agent', USER_AGENT]],
  ]);
  for (const [name, value] of Object.entries(call.headers)) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower) || lower.startsWith('proxy-')) {
      throw new ProviderFailure('headers', `The data provider header ${name} may not be set by a board`);
    }
    try {
      http.validateHeaderName(name);
      http.validateHeaderValue(name, value);
    } catch {
      throw new ProviderFailure('headers', `The data provider header ${JSON.stringify(name).slice(0, 100)} cannot be sent (invalid name or value)`);
    }
    byName.set(lower, [name, value]);
  }
  const headers = Object.fromEntries(byName.values());
  // No body is ever sent; a method that usually has one says so explicitly instead of chunking nothing.
  if (call.method !== 'GET' && call.method !== 'DELETE') headers['Content-Length'] = '0';
  return headers;
}

function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

function formatSeconds(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${ms} ms`;
}

function formatBytes(bytes: number): string {
  return bytes % 1_048_576 === 0 ? `${bytes / 1_048_576} MiB` : `${bytes} bytes`;
}
