import { participantColor } from '../boards/participantColor.js';
import type { BoardRole } from '../boards/accessTokens.js';
import type { ParticipantIdentity } from '../boards/boardAccess.js';
import type { AgentPresence } from '../agents/ports.js';
import type { ParticipantLocation, ParticipantView } from '../boards/ports.js';
import type { SeatSession } from '../store/seatLedger.js';

/** One participant of a board and the sockets it is connected with. */
export interface Presence {
  view: ParticipantView;
  identity: ParticipantIdentity;
  role: BoardRole;
  /** Its connections here, by the id each holds the seat under (presenceExtension.ts). */
  connections: Set<string>;
  location?: ParticipantLocation;
  /** When it last did something: joined, edited, changed its awareness state, reported a location. */
  lastActiveAt: Date;
}

/** One connection to a board document: its socket, and the id it holds its seat under. */
export interface PresenceConnection {
  socketId: string;
  holderId: string;
}

/** The participant a connection belongs to: its board and participant key. */
interface ParticipantOf {
  boardId: string;
  key: string;
}

/** A visible agent shown on a board: listed and counted, but it takes no seat and has no session. */
export interface ShownAgent {
  view: ParticipantView;
  presence: AgentPresence;
}

/** A board's live session on this instance: the deployment's session (seat ledger), with the participants connected here. */
export interface BoardSession {
  id: string;
  startedAt: Date;
  /** By participant key (see presenceExtension.ts). */
  participants: Map<string, Presence>;
}

/**
 * The participants connected to each board through this instance, and the visible agents shown
 * on boards (participants to see, never seats). Who holds a seat deployment-wide, and so the
 * counts, limits and session events, is the seat ledger's (store/seatLedger.ts); this is what
 * the instance needs of its own sockets: whose they are, their roles, locations and activity.
 */
export class PresenceRegistry {
  private readonly sessions = new Map<string, BoardSession>();
  /**
   * Where each admitted socket belongs, by connection (one socket may open the board document
   * more than once), so activity on any of its documents finds its participant at once.
   */
  private readonly socketOwners = new Map<string, Map<string, ParticipantOf>>();
  /** By board, then agent id. */
  private readonly agents = new Map<string, Map<string, ShownAgent>>();

  /** People connected to a board through this instance, oldest first. */
  list(boardId: string): Presence[] {
    return [...(this.sessions.get(boardId)?.participants.values() ?? [])];
  }

  /** How many visible agents a board shows. */
  agentCount(boardId: string): number {
    return this.agents.get(boardId)?.size ?? 0;
  }

  get(boardId: string, key: string): Presence | undefined {
    return this.sessions.get(boardId)?.participants.get(key);
  }

  /** The board's session, if anyone is connected through this instance. */
  session(boardId: string): BoardSession | undefined {
    return this.sessions.get(boardId);
  }

  /**
   * Records a connection of the participant `key`, which holds its seat in `session`; the first
   * connection here shows it as `view`.
   */
  join(
    boardId: string,
    input: { key: string; view: ParticipantView; identity: ParticipantIdentity; role: BoardRole },
    connection: PresenceConnection,
    session: SeatSession,
    now: Date,
  ): void {
    let local = this.sessions.get(boardId);
    if (!local) this.sessions.set(boardId, (local = { id: session.id, startedAt: new Date(session.startedAt), participants: new Map() }));
    let owned = this.socketOwners.get(connection.socketId);
    if (!owned) this.socketOwners.set(connection.socketId, (owned = new Map<string, ParticipantOf>()));
    owned.set(connection.holderId, { boardId, key: input.key });
    const existing = local.participants.get(input.key);
    if (existing) {
      existing.connections.add(connection.holderId);
      existing.lastActiveAt = now;
      return;
    }
    local.participants.set(input.key, { view: input.view, identity: input.identity, role: input.role, connections: new Set([connection.holderId]), lastActiveAt: now });
  }

  /** Removes one connection of the participant `key`; its last one here removes it, the last participant the board's session. */
  leave(boardId: string, key: string, connection: PresenceConnection): void {
    const owned = this.socketOwners.get(connection.socketId);
    owned?.delete(connection.holderId);
    if (owned?.size === 0) this.socketOwners.delete(connection.socketId);
    const session = this.sessions.get(boardId);
    const presence = session?.participants.get(key);
    if (!session || !presence || !presence.connections.delete(connection.holderId) || presence.connections.size > 0) return;
    session.participants.delete(key);
    if (session.participants.size === 0) this.sessions.delete(boardId);
  }

  /** Keeps a participant's latest reported location. */
  locate(boardId: string, key: string, location: ParticipantLocation): void {
    const presence = this.get(boardId, key);
    if (presence) presence.location = location;
  }

  /** Marks the participants of a socket active now (a socket not admitted to a board is no one's). */
  touch(socketId: string, now: Date): void {
    for (const owner of this.socketOwners.get(socketId)?.values() ?? []) {
      const presence = this.get(owner.boardId, owner.key);
      if (presence) presence.lastActiveAt = now;
    }
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
      existing.view = { ...existing.view, user_name: presence.name };
      return { agent: existing, appeared: false };
    }
    const userId = agentUserId(agentId);
    const view: ParticipantView = { user_id: userId, user_type: 'agent', role: 'guest', joined_at: now.toISOString(), color: participantColor(userId), user_name: presence.name };
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
