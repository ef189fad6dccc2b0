import type * as Y from 'yjs';
import type { UserType } from './boardAccess.js';
import type { BoardObject } from './boardObjects.js';

/**
 * The ports boards (and objects, frames) need from the rest of the service, owned here and
 * implemented outside: the live documents by realtime/boardDocuments.ts. Where an object
 * lives is asked through objects/placement.ts.
 */

/** A viewport rectangle in board pixels. */
export interface ViewportBounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A participant as shown to sockets and by `GET /boards/<id>?includeParticipants=true`. */
export interface ParticipantView {
  user_id: string;
  /** How the participant is known: two entries may show one `user_id`, never with the same type. */
  user_type: UserType;
  role: 'host' | 'guest';
  joined_at: string;
  color: string;
  /** A readable name: the one given or declared, else `Host` / `Guest <id's end>` (participantName). */
  user_name: string;
}

/** Where a participant last said it was looking. */
export interface ParticipantLocation {
  frameId: string | null;
  viewportBounds: ViewportBounds;
  at: string;
}

/** A participant connected to a board right now. */
export interface ConnectedParticipant extends ParticipantView {
  location?: ParticipantLocation;
}

/** Who writes to a live document: the change is attributed to them and raises events as theirs. */
export interface DocumentAuthor {
  boardId: string;
  organizationId: string;
  /**
   * The acting user, for attribution (`created_by`, `updated_by`): a personal link's user or
   * the id a host declares; null for the API key and for the shared guest link.
   */
  userId: string | null;
  /** Set by the server when it moves content between a board's documents (no object events). */
  relocation?: boolean;
  /** Set when an agent makes the change: the events it raises carry it, so triggers know their cause. */
  cause?: ChangeCause;
}

/**
 * What caused a change an agent made: the agent, and how many agent actions led to it (an
 * action triggered by a person's change has depth 1, one triggered by that action's change 2…).
 */
export interface ChangeCause {
  agentId: string;
  depth: number;
}

/** Why every socket of a board is closed. */
export type DisconnectReason = 'session-ended' | 'board-deleted' | 'board-expired';

/**
 * The live board documents: the one door from the domain into the documents sockets edit, so
 * REST and sockets always agree. Documents are named by frames/frame.ts (`zoneDocumentName`).
 */
export interface LiveDocuments {
  /** Applies `change` in one transaction; resolves once it is durable and its events are published. */
  write(name: string, author: DocumentAuthor, change: (doc: Y.Doc) => void): Promise<void>;
  /** The objects of a document, oldest first: the live state if loaded, else the durable one. */
  readObjects(name: string): Promise<BoardObject[]>;
  /** Reads a document without changing it: the live state if loaded, else the durable one. */
  read<T>(name: string, reader: (doc: Y.Doc) => T): Promise<T>;
  /** Participants connected to a board now, through any instance (people first, then visible agents), each with its last reported location. */
  participants(boardId: string): Promise<ConnectedParticipant[]>;
  /** How many participants `participants` lists. */
  participantCount(boardId: string): Promise<number>;
  /** Closes every socket connected to a board's documents (its zone documents included). */
  disconnectAll(boardId: string, reason: DisconnectReason): void;
  /** Closes every socket a user's personal link opened on a board (the link was revoked). */
  disconnectUser(boardId: string, userId: string): void;
  /** Disconnects everyone, stops persisting, and deletes every stored document of a board. */
  destroy(boardId: string): Promise<void>;
}

/** What boards need from custom object types (objectTypes/objectTypeService.ts). */
export interface BoardObjectRules {
  /**
   * Refuses (422) objects that break the rules, filling in the defaults of component objects;
   * `fieldOf(index)` names where object `index` sits in the request, `previous(index)` what it was.
   */
  validateObjects(
    organizationId: string,
    objects: readonly unknown[],
    write: { role: 'host' | 'guest'; fieldOf?: (index: number) => string; previous?: (index: number) => unknown },
  ): Promise<void>;
}
