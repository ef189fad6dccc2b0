/**
 * Who holds a seat on each board, for the whole deployment: the one count `max_participants`,
 * `participant_count` and the session events go by, however many instances the sockets are
 * spread over. A seat is one participant key (presenceExtension.ts); every socket of that
 * key holds it, and it is freed when the last one lets go, wherever that socket was.
 *
 * The ledger keeps seats as the caller gives them (`Seat`); it knows nothing of what is in one.
 */

/** A board's live session: from its first seat taken to its last freed. */
export interface SeatSession {
  id: string;
  /** ISO 8601. */
  startedAt: string;
}

export type SeatClaim<Seat> =
  /** A new seat: the first socket of its key anywhere. `sessionStarted`: the board had no seat before. */
  | { kind: 'taken'; seated: number; session: SeatSession; sessionStarted: boolean }
  /** Another socket of the key already holds the seat (this one now holds it too): `seat` is how it was taken. */
  | { kind: 'held'; seated: number; seat: Seat; session: SeatSession }
  /** `limit` seats are taken and the key holds none: nothing changed. */
  | { kind: 'full'; seated: number };

export type SeatRelease<Seat> =
  /** Another socket of the key still holds the seat, or it was already freed. */
  | { kind: 'kept' }
  /** That was the seat's last socket. `sessionEnded`: it was the board's last seat. */
  | { kind: 'freed'; seat: Seat; seated: number; sessionEnded: SeatSession | null };

/** Seats an instance held when it stopped without letting go (killed), freed by a survivor, once. */
export interface OrphanedSeats<Seat> {
  boardId: string;
  freed: Array<Extract<SeatRelease<Seat>, { kind: 'freed' }>>;
}

export interface SeatLedger<Seat> {
  /**
   * One more holder of `key` holds its seat on the board: `holderId` names it, unique in the
   * deployment (a socket's connection to the board document; one socket may open the document
   * more than once). A new seat is taken only while fewer than `limit` are (null: no limit),
   * checked and taken in one step for the whole deployment. `session` is the board's session if
   * this seat starts one. A holder claiming again is counted once.
   */
  claim(boardId: string, key: string, seat: Seat, options: { limit: number | null; session: SeatSession; holderId: string }): Promise<SeatClaim<Seat>>;
  /**
   * The holder `holderId` of `key` lets go of its seat. A holder that holds none (never
   * claimed, or released already) changes nothing, so a release whose answer was lost can be
   * sent again.
   */
  release(boardId: string, key: string, holderId: string): Promise<SeatRelease<Seat>>;
  /** Replaces what a held seat shows (its location); nothing if the seat is free. */
  amend(boardId: string, key: string, seat: Seat): Promise<void>;
  /** The seats taken on a board. */
  seats(boardId: string): Promise<Seat[]>;
  /** How many seats are taken on a board. */
  count(boardId: string): Promise<number>;
  /** Boards with a seat taken. */
  boards(): Promise<string[]>;
  /** Called with the seats a stopped instance held, on one surviving instance. */
  onOrphansFreed(listener: (orphans: OrphanedSeats<Seat>) => void): void;
  /** Looks for stopped instances and frees their seats (it also runs on its own timer; tests call it after moving a ManualClock). */
  sweepOrphans(): Promise<void>;
  close(): Promise<void>;
}

interface BoardSeats<Seat> {
  session: SeatSession;
  /** By key: the seat and the holders that hold it. */
  held: Map<string, { seat: Seat; holders: Set<string> }>;
}

/** The seats of a single instance, in memory: nothing else holds any, and nothing is orphaned. */
export class LocalSeatLedger<Seat> implements SeatLedger<Seat> {
  private readonly boardSeats = new Map<string, BoardSeats<Seat>>();

  async claim(boardId: string, key: string, seat: Seat, options: { limit: number | null; session: SeatSession; holderId: string }): Promise<SeatClaim<Seat>> {
    const board = this.boardSeats.get(boardId);
    const existing = board?.held.get(key);
    if (board && existing) {
      existing.holders.add(options.holderId);
      return { kind: 'held', seated: board.held.size, seat: existing.seat, session: board.session };
    }
    const seated = board?.held.size ?? 0;
    if (options.limit !== null && seated >= options.limit) return { kind: 'full', seated };
    const taken = board ?? { session: options.session, held: new Map() };
    taken.held.set(key, { seat, holders: new Set([options.holderId]) });
    this.boardSeats.set(boardId, taken);
    return { kind: 'taken', seated: taken.held.size, session: taken.session, sessionStarted: !board };
  }

  async release(boardId: string, key: string, holderId: string): Promise<SeatRelease<Seat>> {
    const board = this.boardSeats.get(boardId);
    const entry = board?.held.get(key);
    if (!board || !entry || !entry.holders.delete(holderId)) return { kind: 'kept' };
    if (entry.holders.size > 0) return { kind: 'kept' };
    board.held.delete(key);
    if (board.held.size > 0) return { kind: 'freed', seat: entry.seat, seated: board.held.size, sessionEnded: null };
    this.boardSeats.delete(boardId);
    return { kind: 'freed', seat: entry.seat, seated: 0, sessionEnded: board.session };
  }

  async amend(boardId: string, key: string, seat: Seat): Promise<void> {
    const entry = this.boardSeats.get(boardId)?.held.get(key);
    if (entry) entry.seat = seat;
  }

  async seats(boardId: string): Promise<Seat[]> {
    return [...(this.boardSeats.get(boardId)?.held.values() ?? [])].map((entry) => entry.seat);
  }

  async count(boardId: string): Promise<number> {
    return this.boardSeats.get(boardId)?.held.size ?? 0;
  }

  async boards(): Promise<string[]> {
    return [...this.boardSeats.keys()];
  }

  onOrphansFreed(): void {}

  async sweepOrphans(): Promise<void> {}

  async close(): Promise<void> {}
}
