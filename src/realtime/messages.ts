import type { AgentNotification } from '../agents/ports.js';
import type { ParticipantView, ViewportBounds } from '../boards/ports.js';
import type { JsonValue } from '../components/manifest.js';
import type { FieldError } from '../errors.js';
import type { FrameRecord, LockMode } from '../frames/frame.js';

/**
 * The stateless JSON messages of the realtime protocol (Hocuspocus stateless messages,
 * `{ "type": "<event>", ...payload }`). Types only; realtime/statelessExtension.ts dispatches.
 */

/** Messages a client sends. */
export type ClientMessage =
  | { type: 'subscribe'; events: string[] }
  | { type: 'frame:navigate'; frameId: string; smooth?: boolean }
  | { type: 'frame:lock'; frameId: string; lockMode: LockMode }
  | { type: 'participant:location'; frameId: string | null; viewportBounds: ViewportBounds }
  /** A component's global event (manifest `globalEvents.emit`); `payload` is null when absent. */
  | { type: 'component:event'; object_id: string; name: string; payload: JsonValue };

/**
 * A socket write the server undid (realtime/writeCheckExtension.ts): objects the sender may
 * not touch, objects left breaking the object rules, or values beyond the bounds of free-form
 * JSON (the object is absent when the value sat outside any object). `details` lists at most 20.
 */
export type WriteRejected =
  | { type: 'write-rejected'; object_ids: string[]; reason: 'zone-permissions' | 'locked' }
  | { type: 'write-rejected'; object_ids: string[]; reason: 'invalid-object'; details: Array<{ object_id: string } & FieldError> }
  | { type: 'write-rejected'; object_ids: string[]; reason: 'invalid-value'; details: Array<{ object_id?: string } & FieldError> };

/** Every message the server sends (realtime/socketMessenger.ts sends them). */
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
  /**
   * Sent once to a socket that joined through the shared guest link: the session participant
   * minted for it (a zone may be assigned to `participant_id`) and its resume credential, a
   * board token only this socket was given (present it next time to be the same participant).
   */
  | { type: 'session:participant'; participant_id: string; token: string; link: string; expires_at: string }
  /** A notification an AI agent of the board sent (realtime/agentSockets.ts). */
  | ({ type: 'agent:notification' } & AgentNotification)
  /**
   * A component's global event, relayed to the sockets that see a listening component:
   * `targets` names the objects (of the documents this socket may read) whose manifests'
   * `globalEvents.listen` match `name`; `from` is the sender's user id.
   */
  | { type: 'component:event'; object_id: string; name: string; payload: JsonValue; from: string | null; targets: string[] }
  | WriteRejected
  /** A client message refused; `for` names its type once it could be read. */
  | { type: 'error'; message: string; for?: ClientMessage['type'] };

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
  'agent:notification',
  'component:event',
] as const satisfies readonly ServerMessage['type'][];

export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
