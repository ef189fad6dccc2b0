import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { tokenOf } from '../helpers/fixtures.js';
import type { ApiResponse, TestServer } from '../helpers/testServer.js';
import { dereferenced, loadDocument, operationsOf, schemaValidator, type Document } from './openApiTestKit.js';

/** One call of a documented operation. */
export interface CallOptions {
  /** Values of the path template's parameters (`{boardId}`…). */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as is (multipart forms). */
  rawBody?: FormData;
  headers?: Record<string, string>;
  /** Send no API key (by default calls carry the test organization's). */
  anonymous?: boolean;
}

/** Refusals every operation documents: an unexpected failure, an instance shutting down. */
const EVERY_OPERATION = new Set(['500', '503']);

/** Is this documented response one of the error catalogue's (components.responses)? */
const isRefusal = (response: Record<string, any>) => typeof response.$ref === 'string' && response.$ref.startsWith('#/components/responses/');

/** An id no board, frame or object has. */
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** Call options of someone holding only a bearer token (a board, user or admin token). */
export const asBearer = (token: string): CallOptions => ({ anonymous: true, headers: { authorization: `Bearer ${token}` } });

/** Creates a board through the documented API; answers its id and the tokens of its links. */
export async function newDocumentedBoard(api: DocumentedApi, body: Record<string, unknown> = {}): Promise<{ boardId: string; host: string; guest: string }> {
  const created = await api.call('POST /boards', { body: { title: 'OpenAPI board', ...body } });
  expect(created.status).toBe(201);
  return { boardId: created.body.board_uuid as string, host: tokenOf(created.body.access_links.host), guest: tokenOf(created.body.access_links.guest) };
}

/**
 * Calls the real server by the document's operations and checks every answer against it: the
 * status must be one the operation documents, and the body must validate against that status's
 * schema, with no undocumented field (objects closed, openApiTestKit.ts `closed`).
 */
export class DocumentedApi {
  readonly document: Document = loadDocument();
  private readonly operations = operationsOf(this.document);
  private readonly validator = schemaValidator(this.document, { closeObjects: true });
  /** Statuses answered, by operation. */
  private readonly answered = new Map<string, Set<number>>();

  constructor(private readonly server: TestServer) {}

  async call(key: string, options: CallOptions = {}): Promise<ApiResponse> {
    const operation = this.operations.get(key);
    if (!operation) throw new Error(`${key} is not in the document`);
    const [method, template] = key.split(' ') as [string, string];
    const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
    const headers: Record<string, string> = { ...(options.anonymous ? {} : { 'x-api-key': this.server.apiKey }), ...options.headers };
    let body: string | FormData | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.server.url}/api/v1${fill(template, options.params ?? {})}${query}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const answer: ApiResponse = { status: response.status, headers: response.headers, body: parse(text) };
    this.check(key, operation, answer, text);
    return answer;
  }

  private check(key: string, operation: Record<string, any>, answer: ApiResponse, text: string): void {
    const documented = operation.responses[String(answer.status)] as Record<string, any> | undefined;
    expect(documented, `${key} answered ${answer.status}, which it does not document: ${text.slice(0, 300)}`).toBeDefined();
    const response = dereferenced(this.document, documented!);
    const [mediaType, media] = Object.entries((response.content ?? {}) as Record<string, { schema: unknown }>)[0] ?? [];
    if (!mediaType) {
      expect(text, `${key} ${answer.status} documents no body`).toBe('');
    } else if (mediaType === 'application/json') {
      expect(answer.headers.get('content-type'), `${key} ${answer.status}`).toMatch(/^application\/json/);
      expect(this.validator.problems(media!.schema, answer.body), `${key} ${answer.status}: ${text.slice(0, 500)}`).toEqual([]);
    }
    const statuses = this.answered.get(key) ?? new Set<number>();
    statuses.add(answer.status);
    this.answered.set(key, statuses);
  }

  /** The operations of these tags. */
  operationsTagged(tags: readonly string[]): Array<[string, Record<string, any>]> {
    return [...this.operations].filter(([, operation]) => tags.includes((operation.tags as string[])[0]!));
  }

  /** Operations of these tags never answered with one of their own (non-error) responses. */
  neverAnswered(tags: readonly string[]): string[] {
    return this.operationsTagged(tags)
      .filter(([key, operation]) => ![...(this.answered.get(key) ?? [])].some((status) => !isRefusal(operation.responses[String(status)])))
      .map(([key]) => key);
  }

  /**
   * Operations of these tags never answered with an error of the catalogue; those whose only
   * refusals are the ones every operation documents (500, 503) aside.
   */
  neverRefused(tags: readonly string[]): string[] {
    return this.operationsTagged(tags)
      .filter(([, operation]) => Object.entries(operation.responses).some(([status, response]) => !EVERY_OPERATION.has(status) && isRefusal(response as Record<string, any>)))
      .filter(([key, operation]) => ![...(this.answered.get(key) ?? [])].some((status) => isRefusal(operation.responses[String(status)])))
      .map(([key]) => key);
  }

  /**
   * Calls every operation of these tags that needs a credential without one, with made-up
   * path values (the credential is checked before anything is looked up); answers the statuses.
   */
  async callEachWithoutCredential(tags: readonly string[]): Promise<Map<string, number>> {
    const statuses = new Map<string, number>();
    for (const [key, operation] of this.operationsTagged(tags)) {
      if ((operation.security as unknown[]).length === 0) continue;
      const template = key.split(' ')[1]!;
      const params = Object.fromEntries([...template.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, randomUUID()]));
      const answer = await this.call(key, { anonymous: true, params, ...(operation.requestBody ? { body: {} } : {}) });
      statuses.set(key, answer.status);
    }
    return statuses;
  }
}

/** A path template with its parameters filled in; `{path}` keeps its slashes. */
function fill(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${template}`);
    return value.split('/').map(encodeURIComponent).join('/');
  });
}

function parse(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
