import type { Board, BoardDetails } from '../boards/board.js';
import type { Caller } from '../boards/caller.js';
import type { Clock } from '../clock.js';
import { AppError, errors, type FieldError } from '../errors.js';
import type { Logger } from '../logger.js';
import { callProvider, PROVIDER_MAX_BYTES, PROVIDER_TIMEOUT_MS, ProviderFailure } from './providerFetch.js';

/** Most params one request may carry; each value a string of at most 1,000 characters, a finite number or a boolean. */
export const MAX_DATA_PARAMS = 50;
export const MAX_DATA_PARAM_LENGTH = 1_000;
/** Answers kept per instance, and the bytes they may take together (least recently used go first). */
const CACHE_MAX_ENTRIES = 500;
const CACHE_MAX_BYTES = 32 * 1_048_576;
/** Provider calls one board may have in flight at once; more are refused (429) rather than queued. */
const MAX_IN_FLIGHT_PER_BOARD = 64;
/** A `:param` placeholder, as boards/boardService.ts checks them when the board is created. */
const PLACEHOLDER = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/** `POST /boards/<id>/component-data`. */
export const componentDataSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    object_id: { type: 'string', minLength: 1, maxLength: 255 },
    params: {
      type: 'object',
      maxProperties: MAX_DATA_PARAMS,
      propertyNames: { type: 'string', minLength: 1, maxLength: 100 },
      additionalProperties: { anyOf: [{ type: 'string', maxLength: MAX_DATA_PARAM_LENGTH }, { type: 'number' }, { type: 'boolean' }] },
    },
  },
};

export type DataParamValue = string | number | boolean;

export interface ComponentDataInput {
  /** The component asking (logged; the bridge sends it). */
  object_id?: string;
  params?: Record<string, DataParamValue>;
}

export interface ComponentDataAnswer {
  data: unknown;
  source: 'mock' | 'provider';
  /** True when the answer was kept from an earlier call within the provider's `cache_ttl`. */
  cached: boolean;
  /** When the provider answered (for the mock: now). */
  fetched_at: string;
}

/** What the data provider needs from boards: the board, under the board routes' access rules, and its tutorial fields. */
export interface DataProviderBoards {
  get(caller: Caller, id: string): Promise<Board>;
  details(board: Board): Promise<BoardDetails>;
}

export interface DataProviderDependencies {
  boards: DataProviderBoards;
  clock: Clock;
  logger: Logger;
  /** `WEBHOOK_ALLOW_PRIVATE`: providers on loopback/private addresses and plain http are allowed. */
  allowPrivate: boolean;
  /** @default PROVIDER_TIMEOUT_MS (tests shorten it) */
  timeoutMs?: number;
  /** @default MAX_IN_FLIGHT_PER_BOARD (tests lower it) */
  maxInFlightPerBoard?: number;
}

/** A board's provider, read from its stored `data_provider` (validated when the board was created). */
interface ProviderSettings {
  urlTemplate: string;
  method: string;
  headers: Record<string, string>;
  cacheTtlSeconds: number;
}

/** One kept answer. */
interface CachedAnswer {
  data: unknown;
  fetchedAt: Date;
  bytes: number;
}

/** A provider answer with when it arrived. */
interface Fetched extends CachedAnswer {
  /** This request joined or started the call (false), or found it kept (true). */
  cached: boolean;
}

/**
 * Answers components' data requests for a board (the tutorial flow): a sandbox board's mock
 * data, or its data provider's answer, fetched under the webhook egress rules, kept for the
 * provider's `cache_ttl`, and shared by concurrent identical requests (one call).
 */
export class ComponentDataService {
  private readonly cache = new AnswerCache(CACHE_MAX_ENTRIES, CACHE_MAX_BYTES);
  private readonly inFlight = new Map<string, Promise<CachedAnswer>>();
  private readonly inFlightPerBoard = new Map<string, number>();
  private readonly logger: Logger;

  constructor(private readonly deps: DataProviderDependencies) {
    this.logger = deps.logger.child({ component: 'component-data' });
  }

  async request(caller: Caller, boardId: string, input: ComponentDataInput): Promise<ComponentDataAnswer> {
    const board = await this.deps.boards.get(caller, boardId);
    const tutorial = (await this.deps.boards.details(board)).tutorial ?? {};
    const mock = tutorial.mock_external_data;
    const provider = providerSettings(tutorial.data_provider);
    // The mock stands in for the provider on a sandbox board, and is all there is without one.
    if (mock !== undefined && (tutorial.is_sandbox === true || !provider)) {
      return { data: mock, source: 'mock', cached: false, fetched_at: this.deps.clock.now().toISOString() };
    }
    if (!provider) throw new AppError('not_found', 'This board has no data provider and no mock data for components');
    const url = resolveProviderUrl(provider.urlTemplate, input.params ?? {});
    const fetched = await this.fetch(board, provider, url, input.object_id ?? null);
    return { data: fetched.data, source: 'provider', cached: fetched.cached, fetched_at: fetched.fetchedAt.toISOString() };
  }

  /** The kept answer while it is fresh; else the call in flight for the same key, or a new one. */
  private async fetch(board: Board, provider: ProviderSettings, url: URL, objectId: string | null): Promise<Fetched> {
    const key = `${board.id}\n${provider.method}\n${url.href}`;
    const kept = this.cache.get(key, this.deps.clock.now().getTime());
    if (kept) return { ...kept, cached: true };
    let pending = this.inFlight.get(key);
    if (!pending) {
      this.admitCall(board.id);
      pending = this.callAndKeep(board, provider, url, key, objectId).finally(() => {
        this.inFlight.delete(key);
        this.releaseCall(board.id);
      });
      this.inFlight.set(key, pending);
    }
    return { ...(await pending), cached: false };
  }

  /** Counts a new call of the board, refused (429) past its limit: a slow provider is not piled onto. */
  private admitCall(boardId: string): void {
    const running = this.inFlightPerBoard.get(boardId) ?? 0;
    if (running >= (this.deps.maxInFlightPerBoard ?? MAX_IN_FLIGHT_PER_BOARD)) {
      throw errors.tooManyRequests('Too many data provider calls are in flight for this board; retry shortly', 1);
    }
    this.inFlightPerBoard.set(boardId, running + 1);
  }

  private releaseCall(boardId: string): void {
    const left = (this.inFlightPerBoard.get(boardId) ?? 1) - 1;
    if (left > 0) this.inFlightPerBoard.set(boardId, left);
    else this.inFlightPerBoard.delete(boardId);
  }

  /** One provider call, logged; a usable answer is kept for `cache_ttl` seconds (failures never are). */
  private async callAndKeep(board: Board, provider: ProviderSettings, url: URL, key: string, objectId: string | null): Promise<CachedAnswer> {
    const started = performance.now();
    // The provider's origin only: path and query carry the params, which may name a person.
    const logged = { board_id: board.id, object_id: objectId, provider: url.origin, method: provider.method };
    try {
      const answer = await callProvider({
        url,
        method: provider.method,
        headers: provider.headers,
        allowPrivate: this.deps.allowPrivate,
        timeoutMs: this.deps.timeoutMs ?? PROVIDER_TIMEOUT_MS,
        maxBytes: PROVIDER_MAX_BYTES,
      });
      const fetched = { data: answer.data, fetchedAt: this.deps.clock.now(), bytes: answer.bytes };
      this.logger.info({ ...logged, status: answer.status, bytes: answer.bytes, duration_ms: Math.round(performance.now() - started) }, 'data provider answered');
      if (provider.cacheTtlSeconds > 0) this.cache.set(key, fetched, fetched.fetchedAt.getTime() + provider.cacheTtlSeconds * 1_000);
      return fetched;
    } catch (error) {
      if (!(error instanceof ProviderFailure)) throw error;
      const failure = { ...logged, reason: error.reason, detail: error.detail, status: error.status, duration_ms: Math.round(performance.now() - started) };
      this.logger.warn(failure, 'data provider call failed');
      throw errors.badGateway(error.publicMessage);
    }
  }
}

/** A board's provider settings, or null when it has none. */
function providerSettings(stored: Record<string, unknown> | undefined): ProviderSettings | null {
  if (!stored || typeof stored.webhook_url !== 'string') return null;
  return {
    urlTemplate: stored.webhook_url,
    method: typeof stored.method === 'string' ? stored.method : 'GET',
    headers: (stored.headers ?? {}) as Record<string, string>,
    cacheTtlSeconds: typeof stored.cache_ttl === 'number' ? stored.cache_ttl : 0,
  };
}

/**
 * The provider URL with its `:param` placeholders filled from the request's params, each value
 * percent-encoded (`encodeURIComponent`), so it stays inside its own path segment or query
 * value. A value that could still climb the path is refused (400, naming it): one holding `/`
 * or `\` (some servers decode `%2F` before routing), made only of dots (`%2E%2E` is a `..`
 * segment to URL parsers), or empty. Placeholders sit after the host only (checked when the
 * board was created), so no value can change the host. Params that name no placeholder are
 * ignored: the URL template names everything a component may send.
 */
export function resolveProviderUrl(template: string, params: Record<string, DataParamValue>): URL {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(template)?.[0] ?? '';
  const problems: FieldError[] = [];
  const filled = template.slice(authority.length).replace(PLACEHOLDER, (_match, name: string) => {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    const problem = paramProblem(value);
    if (problem) {
      problems.push({ field: `params.${name}`, message: problem });
      return '';
    }
    return encodeURIComponent(String(value));
  });
  if (problems.length > 0) throw errors.badRequest(problems.map(({ field, message }) => `${field} ${message}`), problems);
  try {
    return new URL(authority + filled);
  } catch {
    throw errors.badGateway("The board's data provider URL is not a valid URL");
  }
}

function paramProblem(value: DataParamValue | undefined): string | null {
  if (value === undefined) return 'is required by the data provider URL';
  const text = String(value);
  if (text === '') return 'must not be empty';
  if (/[/\\]/.test(text)) return 'must not contain / or \\';
  if (/^\.+$/.test(text)) return 'must not be made only of dots';
  return null;
}

/**
 * Answers kept until they expire, at most `maxEntries` of them and `maxBytes` together; the
 * least recently used go first. Expiry reads the injected clock, so tests move time instead of waiting.
 */
class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer & { expiresAt: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string, now: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key);
    if (entry.expiresAt <= now) return undefined;
    // Map order is the LRU order: a hit moves to the back.
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    return entry;
  }

  set(key: string, answer: CachedAnswer, expiresAt: number): void {
    if (answer.bytes > PROVIDER_MAX_BYTES) return;
    this.remove(key);
    this.entries.set(key, { ...answer, expiresAt });
    this.bytes += answer.bytes;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
