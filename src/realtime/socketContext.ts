import type { BoardGrant, DeclaredIdentity } from '../boards/boardAccess.js';
import type { SessionParticipant } from '../boards/sessionParticipants.js';
import type { CloseEvent } from './closeEvents.js';
import type { SeatClaim, SeatSession } from '../store/seatLedger.js';
import type { BoardSeat } from './boardSeat.js';

/**
 * What a socket's seat claim came to: a seat; the close that refused it; or no answer from the
 * ledger (Redis dropped), when the seat may have been taken all the same, so the socket's
 * leaving lets go of it under `key`. `asked` is what the claim would have started: the seat
 * and the session, never announced.
 */
export type SeatClaimOutcome =
  | Exclude<SeatClaim<BoardSeat>, { kind: 'full' }>
  | { kind: 'refused'; close: CloseEvent }
  | { kind: 'unanswered'; close: CloseEvent; key: string; asked: { seat: BoardSeat; session: SeatSession } };

/**
 * What a socket carries into every Hocuspocus connection it opens (the connection's
 * `context`). Set at upgrade; the auth extension adds the grant, presence the participant key.
 */
export interface SocketContext {
  /** Unique per socket. */
  socketId: string;
  /** The token of the socket URL, if it carried one. */
  urlToken?: string;
  /** The grant of the socket URL's token, once known. */
  grant?: BoardGrant;
  /** What the client declares in the socket URL: a display name for presence, never a credential. */
  declared: DeclaredIdentity;
  /**
   * `none` when the socket URL says `presence=none`: a host's service connection (an
   * integration mirroring the board) takes no seat and is never listed as a person.
   */
  presence: 'listed' | 'none';
  /** The socket's participant on the board (see presenceExtension.ts), once admitted to the board document. */
  participantKey?: string;
  /** The seat the socket claimed on opening the board document, or why it was refused (presenceExtension.ts). */
  seatClaim?: Promise<SeatClaimOutcome>;
  /** The id the connection holds its seat under in the seat ledger: one per connection to the board document. */
  seatHolderId?: string;
  /** Events the client asked for (`subscribe`); shared by every document of the socket. */
  subscriptions: Subscriptions;
  /**
   * The grant the socket was admitted with, shared by every document of the socket. Hocuspocus
   * gives each connection a copy of the context, so a grant found by the auth hook (token in
   * the provider's auth message) reaches the socket only through this shared object.
   */
  admission: {
    grant?: BoardGrant;
    /**
     * The session participant minted for a socket of the shared guest link, once for every
     * document it opens (null: none could be minted; the socket stays an anonymous guest).
     */
    session?: Promise<SessionParticipant | null>;
  };
  /** Closes the whole socket (every document on it). */
  closeSocket(event: CloseEvent): void;
  /** Fields every connection context has for change attribution (see documentContext.ts). */
  boardId?: string;
  organizationId?: string;
  userId?: string | null;
}

/** The socket's event subscription; `events` null = everything (the default). */
export interface Subscriptions {
  events: Set<string> | null;
}
