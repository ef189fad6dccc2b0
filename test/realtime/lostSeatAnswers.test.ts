import { describe, expect, it } from 'vitest';
import type { BoardSeat } from '../../src/realtime/boardSeat.js';
import type { SeatLedger, SeatRelease } from '../../src/store/seatLedger.js';
import { createBoard, serverForSuite, type CreatedBoard } from '../helpers/fixtures.js';
import { connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * A seat claim whose answer the ledger lost (Redis dropped after applying it): the socket is
 * closed as unavailable, and its leaving lets go of the seat the claim took after all. What was
 * announced of that seat and its session is announced as over; what the claim itself would have
 * started never was, so it is not. The ledger is wrapped to apply a claim, then lose its answer.
 */

interface LosingClaims {
  /** Resolves once the claim is applied; the answer is lost when `loseAnswer` is called. */
  applied: Promise<void>;
  loseAnswer(): void;
}

let losing: { applied(): void; lost: Promise<void> } | null = null;
const releases: Array<SeatRelease<BoardSeat>['kind']> = [];

/** The next claim is applied, then fails once the test calls `loseAnswer`. */
function loseTheNextClaimsAnswer(): LosingClaims {
  let applied!: () => void;
  let loseAnswer!: () => void;
  const appliedPromise = new Promise<void>((resolve) => (applied = resolve));
  losing = { applied, lost: new Promise<void>((resolve) => (loseAnswer = resolve)) };
  return { applied: appliedPromise, loseAnswer };
}

function withLosableAnswers(seats: SeatLedger<BoardSeat>): SeatLedger<BoardSeat> {
  return {
    async claim(...args) {
      const lose = losing;
      losing = null;
      const claim = await seats.claim(...args);
      if (!lose) return claim;
      lose.applied();
      await lose.lost;
      throw new Error('the connection to Redis dropped before the answer came');
    },
    async release(...args) {
      const release = await seats.release(...args);
      releases.push(release.kind);
      return release;
    },
    amend: (...args) => seats.amend(...args),
    seats: (...args) => seats.seats(...args),
    count: (...args) => seats.count(...args),
    boards: () => seats.boards(),
    onOrphansFreed: (listener) => seats.onOrphansFreed(listener),
    sweepOrphans: () => seats.sweepOrphans(),
    close: () => seats.close(),
  };
}

const { server, clients } = serverForSuite({ decorateSeats: withLosableAnswers });

function connect(board: CreatedBoard, link: string): BoardClient {
  const client = connectBoardClient({ url: server.socketUrl(link), name: board.board_uuid });
  clients.push(client);
  return client;
}

const participantCount = async (board: CreatedBoard) => (await server.api('GET', `/boards/${board.board_uuid}`)).body.participants_count as number;
/** The session and participant events raised for a board, in order. */
const eventsOf = (board: CreatedBoard) =>
  server.events.filter((event) => /^(session|participant)\./.test(event.name) && (event.payload as { board_id?: string }).board_id === board.board_uuid).map((event) => event.name);

describe('a seat claim whose answer was lost', () => {
  it("announces the participant's leaving and the session's end when its release frees a seat another socket took", async () => {
    const board = await createBoard(server, 'Lost answer');
    const { link } = await server.personalLink(board.board_uuid, 'ada');
    const first = connect(board, link);
    await first.synced();
    await eventually(async () => (await participantCount(board)) === 1);

    // Ada's second socket: its claim joins her seat, but its answer does not come back yet.
    const lost = loseTheNextClaimsAnswer();
    const second = connect(board, link);
    await lost.applied;
    releases.length = 0;
    first.destroy();
    // Her first socket's release keeps the seat: the second socket holds it.
    await eventually(() => releases.length === 1);
    expect(releases).toEqual(['kept']);
    expect(eventsOf(board)).toEqual(['session.started', 'participant.joined']);

    lost.loseAnswer();
    await eventually(() => second.closes.length === 1);
    expect(second.closes[0]).toEqual({ code: 1011, reason: 'document-unavailable' });
    await eventually(() => eventsOf(board).length === 4);
    expect(eventsOf(board)).toEqual(['session.started', 'participant.joined', 'participant.left', 'session.ended']);
    expect(releases).toEqual(['kept', 'freed']);
    const left = server.events.find((event) => event.name === 'participant.left' && (event.payload as { board_id: string }).board_id === board.board_uuid);
    expect(left?.payload).toMatchObject({ user: { user_id: 'ada' }, participant_count: 0 });
    expect(await participantCount(board)).toBe(0);
  });

  it('frees a seat the claim took itself without announcing a join or a session that never was', async () => {
    const board = await createBoard(server, 'Never announced');
    releases.length = 0;
    const lost = loseTheNextClaimsAnswer();
    const client = connect(board, board.access_links.guest);
    await lost.applied;
    expect(await participantCount(board)).toBe(1);
    lost.loseAnswer();
    await eventually(() => client.closes.length === 1);
    await eventually(() => releases.length === 1);
    expect(releases).toEqual(['freed']);
    expect(await participantCount(board)).toBe(0);
    expect(eventsOf(board)).toEqual([]);

    // The next participant starts a session of its own, announced as usual.
    const next = connect(board, board.access_links.guest);
    await next.synced();
    await eventually(() => eventsOf(board).length === 2);
    expect(eventsOf(board)).toEqual(['session.started', 'participant.joined']);
  });
});
