import type { FrameRecord } from '../model/frames.js';
import type { ServerMessageOf, ServerMessageType } from '../../../src/realtime/protocol/serverMessages.js';
import type { BoardPage } from './page.js';
import { parseServerMessage, rejectionWords } from './serverMessages.js';
import { rememberSession } from './startup.js';

type ServerMessageHandlers = { readonly [T in ServerMessageType]: (page: BoardPage, message: ServerMessageOf<T>) => void };

const ignore = () => undefined;

/**
 * What the page does with each message of the realtime protocol (src/realtime/protocol). A
 * type the server gains does not compile here until the page handles it, or says why not.
 */
export const SERVER_MESSAGE_HANDLERS: ServerMessageHandlers = {
  'frame:created': (page, { frame }) => frameChanged(page, frame),
  'frame:updated': (page, { frame }) => frameChanged(page, frame),
  'frame:deleted': (page, { frame }) => {
    page.frames.remove(frame.id);
    page.viewport.frameChanged(frame.id);
  },
  'frame:navigate': (page, { frameId, smooth }) => page.viewport.navigate(frameId, smooth),
  'frame:lock': (page, { frameId, lockMode }) => {
    const frame = page.frames.get(frameId);
    if (frame) page.frames.upsert({ ...frame, lock_mode: lockMode });
    page.viewport.setLock(frameId, lockMode);
  },
  'participant:joined': (page, { participant }) => page.presence.participantJoined(participant),
  'participant:left': (page, { user_id }) => page.presence.participantLeft(user_id),
  // A page that opened the shared guest link offline joins as an anonymous guest; the socket then
  // mints it a session participant. Kept on the device, its credential makes the next visit that participant.
  'session:participant': (page, { token }) => rememberSession(page.deviceKey, token),
  'write-rejected': (page, { reason, object_ids }) => page.say(rejectionWords(reason, object_ids.length), 'warning'),
  'agent:notification': (page, { agent, title, message, level }) =>
    page.say(`${agent.name}: ${title ? `${title} — ` : ''}${message}`, level === 'warning' || level === 'error' ? 'warning' : 'info'),
  'component:event': (page, message) => page.components.deliverEvent(message),
  // The server merged this page's messages (nothing is lost): no one needs telling.
  'rate-limited': ignore,
  error: (page, { message }) => page.say(`The server refused a request: ${message}`, 'warning'),
  // This page subscribes to nothing (everything reaches it) and draws no one's location.
  subscribed: ignore,
  'participant:location': ignore,
};

function frameChanged(page: BoardPage, frame: FrameRecord): void {
  page.frames.upsert(frame);
  page.viewport.frameChanged(frame.id);
}

/** Hands a stateless payload to its handler; anything that is not a message of the protocol is ignored. */
export function handleServerMessage(page: BoardPage, payload: string): void {
  const message = parseServerMessage(payload);
  if (!message) return;
  // The table's row for this type takes this message; TypeScript cannot pair a union's key and value.
  (SERVER_MESSAGE_HANDLERS[message.type] as (page: BoardPage, message: ServerMessageOf<ServerMessageType>) => void)(page, message);
}
