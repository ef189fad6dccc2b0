import type { DisconnectReason } from '../boards/ports.js';
import type { Frame } from '../frames/frame.js';
import type { Audience } from './audience.js';
import type { ServerMessage } from './messages.js';

/** The instance channel that carries SocketSignal. */
export const SOCKET_SIGNALS_CHANNEL = 'sockets';

/**
 * What an instance tells the others about a board's sockets (multi-instance mode): each
 * applies it to the sockets connected to itself, as the sender did to its own.
 */
export type SocketSignal =
  | { kind: 'broadcast'; boardId: string; message: ServerMessage; audience: Audience }
  | { kind: 'close-board'; boardId: string; reason: DisconnectReason }
  | { kind: 'close-user'; boardId: string; userId: string }
  | { kind: 'frame-changed'; boardId: string; before: WireFrame | null; after: WireFrame };

/** A frame as JSON carries it: its dates as ISO strings. */
export type WireFrame = Omit<Frame, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

export function frameToWire(frame: Frame): WireFrame {
  return { ...frame, createdAt: frame.createdAt.toISOString(), updatedAt: frame.updatedAt.toISOString() };
}

export function frameFromWire(frame: WireFrame): Frame {
  return { ...frame, createdAt: new Date(frame.createdAt), updatedAt: new Date(frame.updatedAt) };
}
