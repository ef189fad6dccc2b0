import type { BoardLink } from './boardLink.js';
import type { FrameRecord } from './model/frames.js';
import type { ParticipantView } from './session/presence.js';

/** Who the page's token is on its board (`GET /boards/<id>/me`). */
export interface Me {
  board_uuid: string;
  title: string;
  role: 'host' | 'guest';
  user_id: string | null;
  user_name: string | null;
  user_type: string;
  /** What the page's token is: the shared guest link asks for a session participant first. */
  credential: 'api_key' | 'host_link' | 'guest_link' | 'personal_link' | 'session';
  color: string;
  created_at: string;
  expires_at: string;
}

/** An answer the API refused: its status and the message of its error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The REST calls the page makes, as the page's token (never stored elsewhere than the address). */
export class BoardApi {
  constructor(
    private readonly link: BoardLink,
    private readonly declared: { userId: string; userName: string | null },
  ) {}

  /** The shared guest link's declared name rides on the query: headers cannot carry every name. */
  me = () => {
    const query = new URLSearchParams({ user_id: this.declared.userId });
    if (this.declared.userName) query.set('user_name', this.declared.userName);
    return this.call<Me>('GET', `/me?${query}`);
  };
  frames = () => this.call<FrameRecord[]>('GET', '/frames');
  participants = () => this.call<{ participants?: ParticipantView[] }>('GET', '?includeObjects=false&includeParticipants=true');
  createFrame = (body: Record<string, unknown>) => this.call<FrameRecord>('POST', '/frames', body);
  updateFrame = (frameId: string, body: Record<string, unknown>) => this.call<FrameRecord>('PATCH', `/frames/${frameId}`, body);
  assign = (frameId: string, userId: string) => this.call<FrameRecord>('POST', `/frames/${frameId}/assign`, { user_id: userId });
  personalLink = (userId: string) => this.call<{ link: string; user_id: string }>('POST', '/participant-links', { user_id: userId });
  endSession = () => this.call<unknown>('POST', '/end-session');
  /** Mints this device's session participant (shared guest link only): its id and resume credential. */
  startSession = (userName: string | null) => this.call<{ participant_id: string; token: string }>('POST', '/session-participants', userName ? { user_name: userName } : {});

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.link.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`/api/v1/boards/${this.link.boardId}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : null;
    if (!response.ok) throw new ApiError(response.status, messageOf(parsed) ?? response.statusText);
    return parsed as T;
  }
}

function messageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object' || !('message' in body)) return null;
  const { message } = body;
  return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : null;
}
