import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { RedisSeatLedger } from '../../src/store/redisSeatLedger.js';
import { LocalSeatLedger, type SeatLedger } from '../../src/store/seatLedger.js';

/**
 * The seat ledger counts each holder once (store/seatLedger.ts), in memory and in Redis: a
 * release whose answer was lost can be sent again without freeing a seat another holder still
 * holds, and a holder claiming twice is let go by one release.
 */
const REDIS_URL = process.env.REDIS_URL;
const logger = createLogger('silent');
const opened: Array<SeatLedger<string>> = [];
afterAll(async () => {
  await Promise.all(opened.map((ledger) => ledger.close()));
});
const session = { id: 'session-1', startedAt: '2026-11-25T10:00:00.000Z' };
const claimOptions = (holderId: string) => ({ limit: null, session, holderId });

const kinds: Array<[string, boolean, () => Promise<SeatLedger<string>>]> = [
  ['in memory', true, async () => new LocalSeatLedger<string>()],
  [
    'in Redis',
    Boolean(REDIS_URL),
    async () => {
      const ledger = await RedisSeatLedger.open<string>(REDIS_URL!, { prefix: `wb:test:${randomBytes(6).toString('hex')}:seats:`, instanceId: 'instance-a', clock: new ManualClock(), logger });
      opened.push(ledger);
      return ledger;
    },
  ],
];

describe.each(kinds)('seat ledger %s', (_name, runs, open) => {
  it.runIf(runs)('counts a release once per holder: sent again, it frees nothing another holder holds', async () => {
    const ledger = await open();
    expect(await ledger.claim('board', 'ada', 'Ada', claimOptions('socket-1'))).toMatchObject({ kind: 'taken', seated: 1 });
    expect(await ledger.claim('board', 'ada', 'Ada', claimOptions('socket-2'))).toMatchObject({ kind: 'held', seated: 1 });
    expect(await ledger.release('board', 'ada', 'socket-1')).toEqual({ kind: 'kept' });
    // The same release again (its answer was lost): the seat stays, socket-2 holds it.
    expect(await ledger.release('board', 'ada', 'socket-1')).toEqual({ kind: 'kept' });
    expect(await ledger.count('board')).toBe(1);
    // A holder that never claimed changes nothing either.
    expect(await ledger.release('board', 'ada', 'socket-9')).toEqual({ kind: 'kept' });
    expect(await ledger.count('board')).toBe(1);
    expect(await ledger.release('board', 'ada', 'socket-2')).toEqual({ kind: 'freed', seat: 'Ada', seated: 0, sessionEnded: session });
    expect(await ledger.release('board', 'ada', 'socket-2')).toEqual({ kind: 'kept' });
    expect(await ledger.boards()).toEqual([]);
  });

  it.runIf(runs)('counts a holder that claims twice once, so its one release frees the seat', async () => {
    const ledger = await open();
    expect(await ledger.claim('board', 'ada', 'Ada', claimOptions('socket-1'))).toMatchObject({ kind: 'taken', seated: 1 });
    expect(await ledger.claim('board', 'ada', 'Ada', claimOptions('socket-1'))).toMatchObject({ kind: 'held', seated: 1 });
    expect(await ledger.release('board', 'ada', 'socket-1')).toEqual({ kind: 'freed', seat: 'Ada', seated: 0, sessionEnded: session });
    expect(await ledger.count('board')).toBe(0);
  });
});

describe.skipIf(!REDIS_URL)('seat ledger of several instances (needs REDIS_URL)', () => {
  it("frees a stopped instance's holders once, leaving the seats other instances' holders hold", async () => {
    const clock = new ManualClock();
    const prefix = `wb:test:${randomBytes(6).toString('hex')}:seats:`;
    const [stopped, survivor] = await Promise.all(
      ['instance-a', 'instance-b'].map((instanceId) => RedisSeatLedger.open<string>(REDIS_URL!, { prefix, instanceId, clock, logger, ttlMs: 15_000 })),
    );
    opened.push(stopped!, survivor!);
    const freedSeats: string[][] = [];
    survivor!.onOrphansFreed(({ freed }) => freedSeats.push(freed.map((release) => release.seat)));
    await stopped!.claim('board', 'ada', 'Ada', claimOptions('a-1'));
    await stopped!.claim('board', 'ada', 'Ada', claimOptions('a-2'));
    await stopped!.claim('board', 'bob', 'Bob', claimOptions('a-3'));
    await survivor!.claim('board', 'ada', 'Ada', claimOptions('b-1'));

    clock.advance(15_001);
    await survivor!.sweepOrphans();
    await survivor!.sweepOrphans();
    expect(freedSeats).toEqual([['Bob']]);
    expect(await survivor!.seats('board')).toEqual(['Ada']);
    // Both of the stopped instance's holders of Ada were subtracted: the survivor's is the last.
    expect(await survivor!.release('board', 'ada', 'b-1')).toEqual({ kind: 'freed', seat: 'Ada', seated: 0, sessionEnded: session });
  });
});
