import type { Hocuspocus } from '@hocuspocus/server';
import * as Y from 'yjs';
import { readObjects, type BoardObject } from '../boards/boardObjects.js';
import type { ConnectedParticipant, DisconnectReason, DocumentAuthor, LiveDocuments } from '../boards/ports.js';
import { errors } from '../errors.js';
import type { InstanceChannel } from '../store/instanceChannels.js';
import type { DocumentStore } from '../store/documentStore.js';
import { CloseEvents } from './closeEvents.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import type { BoardSeat } from './boardSeat.js';
import type { SeatLedger } from '../store/seatLedger.js';
import type { SocketMessenger } from './socketMessenger.js';
import type { SocketSignal } from './socketSignals.js';
import type { ObjectEventsExtension } from './objectEventsExtension.js';
import type { PersistenceExtension } from './persistenceExtension.js';
import type { UpdateJournal } from './updateJournal.js';

/** How long a REST write waits for its update to be committed before answering 503. */
const DURABILITY_TIMEOUT_MS = 10_000;
/** Durable states of documents nobody has open that REST reads keep (a board page polled over the API). */
const STORED_READS_KEPT = 16;

/**
 * The live documents of boards/ports.ts on Hocuspocus: REST reads and writes go through
 * the same in-memory documents that sockets edit, so both always agree.
 */
export class BoardDocuments implements LiveDocuments {
  /** Durable states read lately by REST, by name, oldest first, with the sequence number they were read at. */
  private readonly storedReads = new Map<string, { lastSeq: number; doc: Y.Doc }>();

  constructor(
    private readonly hocuspocus: Hocuspocus,
    private readonly store: DocumentStore,
    private readonly journal: UpdateJournal,
    private readonly persistence: PersistenceExtension,
    private readonly objectEvents: ObjectEventsExtension,
    private readonly registry: PresenceRegistry,
    private readonly seats: SeatLedger<BoardSeat>,
    private readonly messenger: SocketMessenger,
    private readonly signals: InstanceChannel<SocketSignal>,
  ) {}

  /**
   * Applies `change` to the live document in one transaction and resolves once the
   * change is durable and its events are published.
   */
  async write(name: string, author: DocumentAuthor, change: (doc: Y.Doc) => void): Promise<void> {
    // The author becomes the connection's context (realtime/documentContext.ts), which hooks read.
    const connection = await this.hocuspocus.openDirectConnection(name, author);
    try {
      await connection.transact((doc) => change(doc));
      await withTimeout(this.journal.whenDurable(name), DURABILITY_TIMEOUT_MS);
      await this.objectEvents.settled(name);
    } finally {
      // Keep the document warm for the next request; the debounced store compacts and unloads it.
      await connection.disconnect({ unloadImmediately: false });
    }
  }

  /** The objects of a document, oldest first: read straight from the live document when it is loaded. */
  readObjects(name: string): Promise<BoardObject[]> {
    return this.read(name, readObjects);
  }

  /**
   * Reads a document without changing it: the live one when it is loaded, else the durable
   * state (never loaded into Hocuspocus for this). A durable state read lately is kept and
   * read again while the store's last sequence number for it has not moved.
   */
  async read<T>(name: string, reader: (doc: Y.Doc) => T): Promise<T> {
    const live = this.hocuspocus.documents.get(name);
    if (live && !live.isLoading) return reader(live);
    const lastSeq = await this.store.lastSeq(name);
    const kept = this.storedReads.get(name);
    if (kept?.lastSeq === lastSeq) return reader(kept.doc);
    const doc = await this.persistence.loadStored(name);
    this.keep(name, { lastSeq, doc });
    return reader(doc);
  }

  private keep(name: string, read: { lastSeq: number; doc: Y.Doc }): void {
    this.storedReads.get(name)?.doc.destroy();
    this.storedReads.delete(name);
    this.storedReads.set(name, read);
    for (const [oldest, entry] of this.storedReads) {
      if (this.storedReads.size <= STORED_READS_KEPT) break;
      entry.doc.destroy();
      this.storedReads.delete(oldest);
    }
  }

  /**
   * Participants connected to a board now, through any instance, oldest first, each with its
   * last reported location; then the visible agents shown on it.
   */
  async participants(boardId: string): Promise<ConnectedParticipant[]> {
    const seats = await this.seats.seats(boardId);
    const people = seats
      .sort((a, b) => a.view.joined_at.localeCompare(b.view.joined_at))
      .map((seat) => ({ ...seat.view, ...(seat.location ? { location: seat.location } : {}) }));
    const agents = [...this.registry.shownAgents(boardId).values()].map((agent) => agent.view);
    return [...people, ...agents];
  }

  async participantCount(boardId: string): Promise<number> {
    return (await this.seats.count(boardId)) + this.registry.agentCount(boardId);
  }

  /** Closes every socket connected to a board's documents (its zone documents included), on every instance. */
  disconnectAll(boardId: string, reason: DisconnectReason): void {
    this.signals.publish({ kind: 'close-board', boardId, reason });
    this.disconnectAllHere(boardId, reason);
  }

  /** disconnectAll for this instance's sockets; a board being deleted also stops being persisted here. */
  disconnectAllHere(boardId: string, reason: DisconnectReason): void {
    if (reason === 'board-deleted') this.stopPersisting(boardId);
    const event =
      reason === 'session-ended' ? CloseEvents.SessionEnded : reason === 'board-deleted' ? CloseEvents.BoardDeleted : CloseEvents.InvalidToken;
    this.messenger.closeBoardSockets(boardId, (context) => context.closeSocket(event));
  }

  /** Closes every socket a user's personal link opened on a board (the link was revoked), on every instance. */
  disconnectUser(boardId: string, userId: string): void {
    this.signals.publish({ kind: 'close-user', boardId, userId });
    this.disconnectUserHere(boardId, userId);
  }

  disconnectUserHere(boardId: string, userId: string): void {
    this.messenger.closeUserSockets(boardId, userId, (context) => context.closeSocket(CloseEvents.InvalidToken));
  }

  /** Disconnects everyone, stops persisting, and deletes every stored document of a board. */
  async destroy(boardId: string): Promise<void> {
    this.disconnectAll(boardId, 'board-deleted');
    // A commit already in flight may still write rows for this board: let it land first.
    await this.journal.idle();
    await this.store.deleteBoardDocuments(boardId);
  }

  private stopPersisting(boardId: string): void {
    const names = [...this.hocuspocus.documents.keys()].filter((n) => n === boardId || n.startsWith(`${boardId}/`));
    for (const name of [boardId, ...names]) this.persistence.markDeleting(name);
  }
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(errors.unavailable('The change was applied but could not be saved yet; retry later')), ms);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
