import type { FrameRecord } from '../model/frames.js';
import type { ParticipantView } from '../session/presence.js';

type LockMode = FrameRecord['lock_mode'];

/** The stateless messages the server sends (README "Socket messages"); anything else is ignored. */
export type ServerMessage =
  | { type: 'frame:created' | 'frame:updated'; frame: FrameRecord }
  | { type: 'frame:deleted'; frame: { id: string } }
  | { type: 'subscribed'; events: string[] }
  | { type: 'frame:navigate'; frameId: string; smooth: boolean; from: string }
  | { type: 'frame:lock'; frameId: string; lockMode: LockMode; from: string }
  | { type: 'participant:location'; user_id: string; frameId: string | null }
  | { type: 'participant:joined'; participant: ParticipantView; participant_count: number }
  | { type: 'participant:left'; user_id: string; participant_count: number }
  | { type: 'rate-limited'; limit_per_second: number; coalesced: number }
  | { type: 'agent:notification'; agent: { id: string; name: string }; level: string; title: string | null; message: string }
  | { type: 'write-rejected'; object_ids: string[]; reason: string }
  | { type: 'component:event'; object_id: string; name: string; payload?: unknown; from: string | null; targets: string[] }
  | { type: 'error'; message: string; for?: string };

const TYPES = new Set<ServerMessage['type']>([
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
  'agent:notification',
  'write-rejected',
  'component:event',
  'error',
]);

/** Parses a stateless payload; null for anything that is not a message this page knows. */
export function parseServerMessage(payload: string): ServerMessage | null {
  try {
    const message = JSON.parse(payload) as { type?: unknown };
    return message && typeof message === 'object' && TYPES.has(message.type as ServerMessage['type']) ? (message as ServerMessage) : null;
  } catch {
    return null;
  }
}

/** Words for a refused write, shown to its author (the server already undid it). */
export function rejectionWords(reason: string, count: number): string {
  const what = count === 1 ? 'Your change' : `${count} of your changes`;
  switch (reason) {
    case 'zone-permissions':
      return `${what} was undone: that area belongs to someone else.`;
    case 'locked':
      return `${what} was undone: the host locked that object.`;
    case 'invalid-object':
      return `${what} was undone: it does not fit that object's type.`;
    default:
      return `${what} was undone by the server: a value was too large or too deep.`;
  }
}
