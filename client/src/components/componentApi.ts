import { ApiError } from '../api.js';
import type { BoardLink } from '../boardLink.js';
import type { JsonObject, JsonValue } from './protocol.js';

/** An answer as it came, for the callers that read its status (0: no answer at all). */
export interface RawAnswer {
  status: number;
  body: unknown;
  message: string;
}

/**
 * The REST routes the bridge calls for components (plan "Server API"), as the page's board
 * token: the page's own credential, which never leaves the page for a frame.
 */
export class ComponentApi {
  constructor(private readonly link: BoardLink) {}

  manifest = (url: string): Promise<RawAnswer> => this.raw('GET', `/component-manifest?url=${encodeURIComponent(url)}`);
  data = (objectId: string, params: Record<string, string | number | boolean>) => this.call('POST', '/component-data', { object_id: objectId, params });
  storage = (objectId: string) => this.call('GET', `/objects/${encodeURIComponent(objectId)}/storage`);
  setStorage = (objectId: string, key: string, value: JsonValue) => this.call('PUT', `/objects/${encodeURIComponent(objectId)}/storage/${encodeURIComponent(key)}`, { value });
  action = (objectId: string, body: { action_id: string; action_label?: string; action_metadata?: JsonObject }) =>
    this.call('POST', `/objects/${encodeURIComponent(objectId)}/actions`, body);

  /** A call whose refusal is an error carrying the error body's message. */
  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const answer = await this.raw(method, path, body);
    if (answer.status < 200 || answer.status >= 300) throw new ApiError(answer.status, answer.message);
    return answer.body;
  }

  private async raw(method: string, path: string, body?: unknown): Promise<RawAnswer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.link.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`/api/v1/boards/${this.link.boardId}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    } catch {
      return { status: 0, body: null, message: 'The server cannot be reached' };
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? (JSON.parse(text) as unknown) : null;
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed, message: messageOf(parsed) ?? response.statusText };
  }
}

function messageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object' || !('message' in body)) return null;
  const { message } = body;
  return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : null;
}
