import { createHash, randomUUID } from 'node:crypto';
import type { BoardRole } from '../boards/accessTokens.js';
import type { ParticipantIdentity } from '../boards/boardAccess.js';
import type { ParticipantLocation, ParticipantView } from '../boards/ports.js';

/** Colors given to participants, picked by a hash of their id so a person keeps theirs. */
const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324', '#469990', '#800000', '#808000', '#000075'];

/** One participant of a board and the sockets it is connected with. */
export interface Presence {
  view: ParticipantView;
  identity: ParticipantIdentity;
  role: BoardRole;
  sockets: Set<string>;
  location?: ParticipantLocation;
}

/** A board's live session: from the first participant joining to the last leaving. */
export interface BoardSession {
  id: string;
  startedAt: Date;
  /** By participant key (see presenceExtension.ts). */
  participants: Map<string, Presence>;
}

/** What joining or leaving changed. */
export type PresenceChange =
  | { kind: 'joined'; presence: Presence; sessionStarted: BoardSession | null }
  | { kind: 'rejoined' }
  | { kind: 'left'; presence: Presence; sessionEnded: BoardSession | null }
  | { kind: 'still-connected' };

/** The participants connected to each board on this instance, and their sessions. */
export class PresenceRegistry {
  private readonly sessions = new Map<string, BoardSession>();

  /** Keys of the participants connected to a board now (one per participant, see presenceExtension.ts). */
  userIds(boardId: string): ReadonlySet<string> {
    return new Set(this.sessions.get(boardId)?.participants.keys() ?? []);
  }

  /** Participants connected to a board now, oldest first. */
  list(boardId: string): Presence[] {
    return [...(this.sessions.get(boardId)?.participants.values() ?? [])];
  }

  get(boardId: string, key: string): Presence | undefined {
    return this.sessions.get(boardId)?.participants.get(key);
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
    const existing = session.participants.get(input.key);
    if (existing) {
      existing.sockets.add(input.socketId);
      return { kind: 'rejoined' };
    }
    const presence: Presence = {
      view: { user_id: input.userId, user_type: input.identity.userType, role: input.role, joined_at: now.toISOString(), color: colorOf(input.userId) },
      identity: input.identity,
      role: input.role,
      sockets: new Set([input.socketId]),
    };
    session.participants.set(input.key, presence);
    return { kind: 'joined', presence, sessionStarted };
  }

  /** Removes one socket of the participant `key`; its last socket makes it leave, the last participant ends the session. */
  leave(boardId: string, key: string, socketId: string): PresenceChange {
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
}

function colorOf(userId: string): string {
  const index = createHash('sha256').update(userId).digest()[0]! % PALETTE.length;
  return PALETTE[index]!;
}
