import type { AllListed } from './listed.js';
import type { JsonValue, LockMode, ViewportBounds } from './records.js';

/**
 * The stateless JSON messages a client may send on a board's main document (Hocuspocus
 * stateless messages, `{ "type": "<message>", ...payload }`). The server answers any other
 * type with an `error` message; realtime/statelessExtension.ts checks and handles these.
 */
export type ClientMessage =
  /** Which subscribable server messages reach this socket (SUBSCRIBABLE_EVENTS, or `*` for all). */
  | { type: 'subscribe'; events: string[] }
  /** Host only: moves every other participant's view to a frame. */
  | { type: 'frame:navigate'; frameId: string; smooth?: boolean }
  /** Host only: sets a frame's lock for every other participant. */
  | { type: 'frame:lock'; frameId: string; lockMode: LockMode }
  /** Where this participant is looking (relayed to hosts). */
  | { type: 'participant:location'; frameId: string | null; viewportBounds: ViewportBounds }
  /** A component's global event (manifest `globalEvents.emit`); `payload` is null when absent. */
  | { type: 'component:event'; object_id: string; name: string; payload: JsonValue };

export type ClientMessageType = ClientMessage['type'];

/** Every client message type, for code that enumerates them (tests, docs). */
export const CLIENT_MESSAGE_TYPES = ['subscribe', 'frame:navigate', 'frame:lock', 'participant:location', 'component:event'] as const satisfies readonly ClientMessageType[];

/** Compiles only while CLIENT_MESSAGE_TYPES lists every type of ClientMessage. */
type _EveryClientMessageListed = AllListed<Exclude<ClientMessageType, (typeof CLIENT_MESSAGE_TYPES)[number]>>;
