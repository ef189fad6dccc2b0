import type { UserType } from '../boards/boardAccess.js';
import type { FrameRecord } from '../frames/frame.js';

/**
 * The stateless JSON messages of the realtime protocol (Hocuspocus stateless messages,
 * `{ "type": "<event>", ...payload }`). Types only; realtime/statelessExtension.ts dispatches.
 */

/** A viewport rectangle in board pixels. */
export interface ViewportBounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type LockMode = 'none' | 'soft' | 'hard';

/** Messages a client sends. */
export type ClientMessage =
  | { type: 'subscribe'; events: string[] }
  | { type: 'frame:navigate'; frameId: string; smooth?: boolean }
  | { type: 'frame:lock'; frameId: string; lockMode: LockMode }
  | { type: 'participant:location'; frameId: string | null; viewportBounds: ViewportBounds };

/** A participant as shown to sockets and by `GET /boards/<id>?includeParticipants=true`. */
export interface ParticipantView {
  user_id: string;
  /** How the participant is known: two entries may show one `user_id`, never with the same type. */
  user_type: UserType;
  role: 'host' | 'guest';
  joined_at: string;
  color: string;
}

/** Messages the server sends. */
export type ServerMessage =
  | { type: 'frame:created' | 'frame:updated'; frame: FrameRecord }
  | { type: 'frame:deleted'; frame: FrameRecord | { id: string } }
  | { type: 'subscribed'; events: string[] }
  | { type: 'frame:navigate'; frameId: string; smooth: boolean; from: string }
  | { type: 'frame:lock'; frameId: string; lockMode: LockMode; from: string }
  | { type: 'participant:location'; user_id: string; frameId: string | null; viewportBounds: ViewportBounds; at: string }
  | { type: 'participant:joined'; participant: ParticipantView; participant_count: number }
  | { type: 'participant:left'; user_id: string; participant_count: number }
  | { type: 'rate-limited'; limit_per_second: number; coalesced: number }
  | { type: 'error'; message: string; for?: string };

/** Server messages a client can subscribe to (the others always reach it). */
export const SUBSCRIBABLE_EVENTS = [
  'frame:created',
  'frame:updated',
  'frame:deleted',
  'frame:navigate',
  'frame:lock',
  'participant:joined',
  'participant:left',
  'participant:location',
] as const;

export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
