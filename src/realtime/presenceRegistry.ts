import { randomUUID } from 'node:crypto';
import { participantColor } from '../boards/participantColor.js';
import type { BoardRole } from '../boards/accessTokens.js';
import type { ParticipantIdentity } from '../boards/boardAccess.js';
import type { AgentPresence } from '../agents/ports.js';
import type { ParticipantLocation, ParticipantView } from '../boards/ports.js';

/** One participant of a board and the sockets it is connected with. */
export interface Presence {
  view: ParticipantView;
  identity: ParticipantIdentity;
  role: BoardRole;
  sockets: Set<string>;
  location?: ParticipantLocation;
  /** When it last did something: joined, edited, changed its awareness state, reported a location. */
  lastActiveAt: Date;
}

/** A visible agent shown on a board: listed and counted, but it takes no seat and has no session. */
export interface ShownAgent {
  view: ParticipantView;
  presence: AgentPresence;
}

/** A board's live session: from the first participant joining to the last leaving. */
export interface BoardSession {
  id: string;
  startedAt: Date;
  /** By participant key (see presenceExtension.ts). */
  participants: Map<string, Presence>;
}

/** The participant keys connected to a board: whether one is, and how many. */
export interface Seats {
  has(key: string): boolean;
  readonly size: number;
}

const NO_SEATS: Seats = new Set<string>();

/** What joining or leaving changed. */
export type PresenceChange =
  | { kind: 'joined'; presence: Presence; sessionStarted: BoardSession | null }
  | { kind: 'rejoined' }
  | { kind: 'left'; presence: Presence; sessionEnded: BoardSession | null }
  | { kind: 'still-connected' };

/**
 * The participants connected to each board on this instance, their sessions, and the visible
 * agents shown on boards (participants to see, never seats: `userIds` is people only).
 */
export class PresenceRegistry {
  private readonly sessions = new Map<string, BoardSession>();
  /** Where each admitted socket belongs, so activity on any of its documents finds its participant at once. */
  private readonly socketOwners = new Map<string, { boardId: string; key: string }>();
  /** By board, then agent id. */
  private readonly agents = new Map<string, Map<string, ShownAgent>>();

  /**
   * The seats taken on a board now: one per person connected, by participant key (see
   * presenceExtension.ts). A live view, not a copy: every join reads it, and copying it made a
   * board's joins cost the square of its participants.
   */
  seats(boardId: string): Seats {
    return this.sessions.get(boardId)?.participants ?? NO_SEATS;
  }

  /** Boards with people connected now (sessions end when the last one leaves). */
  boardsWithPeople(): string[] {
    return [...this.sessions.keys()];
  }

  /** People connected to a board now, oldest first. */
  list(boardId: string): Presence[] {
    return [...(this.sessions.get(boardId)?.participants.values() ?? [])];
  }

  /** How many participants a board shows: its people and its visible agents. */
  participantCount(boardId: string): number {
    return this.seats(boardId).size + (this.agents.get(boardId)?.size ?? 0);
  }

  get(boardId: string, key: string): Presence | undefined {
    return this.sessions.get(boardId)?.participants.get(key);
  }

  /** The board's current session, if anyone is connected. */
  session(boardId: string): BoardSession | undefined {
    return this.sessions.get(boardId);
  }

  /** Records a socket of the participant `key`; the first socket makes it a new participant shown as `userId`. */
  join(
    boardId: string,
    input: { key: string; userId: string; identity: ParticipantIdentity; role: BoardRole; socketId: string },
    now: Date,
  ): PresenceChange {
    let session = this.sessions.get(boardId);
    const sessionStarted = session ? null : (session = { id: randomUUID(), startedAt: now, participants: new Map() });
    this.sessions.set(boardId, session);
    this.socketOwners.set(input.socketId, { boardId, key: input.key });
    const existing = session.participants.get(input.key);
    if (existing) {
      existing.sockets.add(input.socketId);
      existing.lastActiveAt = now;
      return { kind: 'rejoined' };
    }
    const presence: Presence = {
      view: { user_id: input.userId, user_type: input.identity.userType, role: input.role, joined_at: now.toISOString(), color: participantColor(input.userId) },
      identity: input.identity,
      role: input.role,
      sockets: new Set([input.socketId]),
      lastActiveAt: now,
    };
    session.participants.set(input.key, presence);
    return { kind: 'joined', presence, sessionStarted };
  }

  /** Removes one socket of the participant `key`; its last socket makes it leave, the last participant ends the session. */
  leave(boardId: string, key: string, socketId: string): PresenceChange {
    this.socketOwners.delete(socketId);
    const session = this.sessions.get(boardId);
    const presence = session?.participants.get(key);
    if (!session || !presence || !presence.sockets.delete(socketId)) return { kind: 'still-connected' };
    if (presence.sockets.size > 0) return { kind: 'still-connected' };
    session.participants.delete(key);
    if (session.participants.size > 0) return { kind: 'left', presence, sessionEnded: null };
    this.sessions.delete(boardId);
    return { kind: 'left', presence, sessionEnded: session };
  }

  /** Keeps a participant's latest reported location. */
  locate(boardId: string, key: string, location: ParticipantLocation): void {
    const presence = this.get(boardId, key);
    if (presence) presence.location = location;
  }

  /** Marks the participant of a socket active now (a socket not admitted to a board is no one's). */
  touch(socketId: string, now: Date): void {
    const owner = this.socketOwners.get(socketId);
    const presence = owner ? this.get(owner.boardId, owner.key) : undefined;
    if (presence) presence.lastActiveAt = now;
  }

  /** Agents shown on a board by agent id, in the order they appeared. */
  shownAgents(boardId: string): ReadonlyMap<string, ShownAgent> {
    return this.agents.get(boardId) ?? new Map<string, ShownAgent>();
  }

  /** Boards that show at least one agent. */
  boardsWithAgents(): string[] {
    return [...this.agents.keys()];
  }

  /** Shows an agent on a board, or updates how it shows; answers its entry and whether it just appeared. */
  showAgent(boardId: string, agentId: string, presence: AgentPresence, now: Date): { agent: ShownAgent; appeared: boolean } {
    let board = this.agents.get(boardId);
    if (!board) this.agents.set(boardId, (board = new Map<string, ShownAgent>()));
    const existing = board.get(agentId);
    if (existing) {
      existing.presence = presence;
      return { agent: existing, appeared: false };
    }
    const userId = agentUserId(agentId);
    const view: ParticipantView = { user_id: userId, user_type: 'agent', role: 'guest', joined_at: now.toISOString(), color: participantColor(userId) };
    const agent = { view, presence };
    board.set(agentId, agent);
    return { agent, appeared: true };
  }

  /** Withdraws an agent from a board; answers its entry if it was shown. */
  withdrawAgent(boardId: string, agentId: string): ShownAgent | undefined {
    const board = this.agents.get(boardId);
    const agent = board?.get(agentId);
    if (!board || !agent) return undefined;
    board.delete(agentId);
    if (board.size === 0) this.agents.delete(boardId);
    return agent;
  }
}

/** The participant id of a visible agent: namespaced, so it never matches a person's id. */
export function agentUserId(agentId: string): string {
  return `agent:${agentId}`;
}
