import type { ClientMessageType } from './clientMessages.js';
import type { AllListed } from './listed.js';
import type { AgentNotification, FieldError, FrameRecord, JsonValue, LockMode, ParticipantView, ViewportBounds } from './records.js';

/**
 * The stateless JSON messages the server sends (Hocuspocus stateless messages,
 * `{ "type": "<message>", ...payload }`), on a board's main document; realtime/socketMessenger.ts
 * sends them. A client ignores a type it does not know.
 */

/**
 * A socket write the server undid (realtime/writeCheckExtension.ts): objects the sender may
 * not touch, objects left breaking the object rules, or values beyond the bounds of free-form
 * JSON (the object is absent when the value sat outside any object). `details` lists at most 20.
 */
export type WriteRejected =
  | { type: 'write-rejected'; object_ids: string[]; reason: 'zone-permissions' | 'locked' }
  | { type: 'write-rejected'; object_ids: string[]; reason: 'invalid-object'; details: Array<{ object_id: string } & FieldError> }
  | { type: 'write-rejected'; object_ids: string[]; reason: 'invalid-value'; details: Array<{ object_id?: string } & FieldError> };

export type ServerMessage =
  | { type: 'frame:created'; frame: FrameRecord }
  | { type: 'frame:updated'; frame: FrameRecord }
  /** A frame archived or deleted, or (only its id) one this socket may no longer see. */
  | { type: 'frame:deleted'; frame: FrameRecord | { id: string } }
  | { type: 'subscribed'; events: string[] }
  /** `from`: the host's user id (`host` without one), or `agent:<id>`. */
  | { type: 'frame:navigate'; frameId: string; smooth: boolean; from: string }
  /** `from`: the host's user id (`host` without one), or `api` for a lock set over REST. */
  | { type: 'frame:lock'; frameId: string; lockMode: LockMode; from: string }
  /** To hosts only. */
  | { type: 'participant:location'; user_id: string; frameId: string | null; viewportBounds: ViewportBounds; at: string }
  | { type: 'participant:joined'; participant: ParticipantView; participant_count: number }
  | { type: 'participant:left'; user_id: string; participant_count: number }
  /** The socket sent faster than the rate limit: `coalesced` updates were merged, none lost. */
  | { type: 'rate-limited'; limit_per_second: number; coalesced: number }
  /**
   * Sent once to a socket that joined through the shared guest link: the session participant
   * minted for it (a zone may be assigned to `participant_id`) and its resume credential, a
   * board token only this socket was given (present it next time to be the same participant).
   */
  | { type: 'session:participant'; participant_id: string; user_name: string | null; token: string; link: string; expires_at: string }
  /** A notification an AI agent of the board sent (realtime/agentSockets.ts). */
  | ({ type: 'agent:notification' } & AgentNotification)
  /**
   * A component's global event, relayed to the sockets that see a listening component:
   * `targets` names the objects (of the documents this socket may read) whose manifests'
   * `globalEvents.listen` match `name`; `from` is the sender's user id.
   */
  | { type: 'component:event'; object_id: string; name: string; payload: JsonValue; from: string | null; targets: string[] }
  | WriteRejected
  /** A client message refused; `for` names its type once it could be read. The socket stays open. */
  | { type: 'error'; message: string; for?: ClientMessageType };

export type ServerMessageType = ServerMessage['type'];

/** The message (or messages, for `write-rejected`) of one type. */
export type ServerMessageOf<T extends ServerMessageType> = Extract<ServerMessage, { type: T }>;

/** Every server message type, for code that enumerates them (the client's handler table's test). */
export const SERVER_MESSAGE_TYPES = [
  'frame:created',
  'frame:updated',
  'frame:deleted',
  'subscribed',
  'frame:navigate',
  'frame:lock',
  'participant:location',
  'participant:joined',
  'participant:left',
  'rate-limited',
  'session:participant',
  'agent:notification',
  'component:event',
  'write-rejected',
  'error',
] as const satisfies readonly ServerMessageType[];

/** Compiles only while SERVER_MESSAGE_TYPES lists every type of ServerMessage. */
type _EveryServerMessageListed = AllListed<Exclude<ServerMessageType, (typeof SERVER_MESSAGE_TYPES)[number]>>;

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
] as const satisfies readonly ServerMessageType[];

export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
