import type { BoardObject } from '../boards/boardObjects.js';
import type { ConnectedParticipant } from '../boards/ports.js';
import type { Frame } from '../frames/frame.js';
import type { TriggerEventType } from './agent.js';

/**
 * What agents need from outside their domain, owned here and implemented elsewhere: the
 * sockets of a board (realtime/agentSockets.ts) and presence for visible agents.
 */

/** Who a notification or a navigation reaches. */
export type Recipients = { kind: 'all' } | { kind: 'hosts' } | { kind: 'users'; userIds: string[] };

/** A notification an agent sends, as sockets receive it (`agent:notification`). */
export interface AgentNotification {
  agent: { id: string; name: string };
  level: 'info' | 'success' | 'warning' | 'error';
  title: string | null;
  message: string;
  /** The object it is about, if any. */
  objectId: string | null;
}

/** How an agent shows itself to the people on the board. */
export interface AgentPresence {
  id: string;
  name: string;
  persona: string;
  isThinking: boolean;
}

/** The sockets of boards, as agents reach them. */
export interface AgentSockets {
  /** Sends a notification to the recipients connected now; answers how many participants it reached. */
  notify(boardId: string, notification: AgentNotification, recipients: Recipients): number;
  /** Moves the recipients' viewports to a frame (`frame:navigate`); answers how many it reached. */
  navigate(boardId: string, frameId: string, smooth: boolean, from: string, recipients: Recipients): number;
  /** People connected to a board now, each with when it last did something (an edit, a cursor or viewport move). */
  participants(boardId: string): ActiveParticipant[];
  /** When the board's current session started (its first participant joined), or null with nobody connected. */
  sessionStartedAt(boardId: string): Date | null;
  /**
   * Shows a visible agent as a participant of the board (participants list and count, the
   * `participant:joined` message, an awareness entry with its name and `isThinking`), updates
   * it when called again, and withdraws it with `null`.
   */
  showAgent(boardId: string, agentId: string, presence: AgentPresence | null): void;
}

/** A connected person and when it last did something. */
export interface ActiveParticipant extends ConnectedParticipant {
  lastActiveAt: Date;
}

/** The frames of a board, read without a caller (the agent's own rights apply when it writes). */
export interface AgentFrames {
  framesOfBoard(boardId: string): Promise<Frame[]>;
}

/** The participant a trigger event is about. */
export interface EventParticipant {
  user_id: string;
  role: 'host' | 'guest';
  user_type?: string;
  frameId?: string | null;
}

/**
 * One trigger event as agents see it: its public event name, a JSON summary for the log
 * (`triggerEventData`), and the subjects conditions and actions read.
 */
export interface TriggerEvent {
  type: TriggerEventType;
  boardId: string;
  organizationId: string;
  data: Record<string, unknown>;
  object: BoardObject | null;
  participant: EventParticipant | null;
  /** The frame the event happened in (entered, left, or holding the object or participant). */
  frameId: string | null;
  idleSeconds: number | null;
  /** Set when an agent's change raised it. */
  cause: { agentId: string; depth: number } | null;
  occurredAt: Date;
}

/** What the agent runtime is told when agents change, and what it knows that the rows do not. */
export interface AgentLifecycle {
  /**
   * An agent of the board was created, changed, paused, resumed, reset or deleted (`resumed`:
   * scheduled runs that fell due while it was paused are skipped, not made up).
   */
  agentsChanged(boardId: string, agentId: string, change?: 'resumed'): void;
  /** Whether a decision of the agent is in flight now. */
  isThinking(agentId: string): boolean;
}
