import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/database.js';
import type { AttemptRecord, DeliveryState, NewDelivery } from '../../src/store/deliveryLog.js';
import { forEachStoreAdapter, type ContractDatabase } from '../helpers/storeAdapters.js';

/**
 * The webhook outbox's delivery-log port (src/store/deliveryLog.ts): one contract, run
 * against the SQLite and the PostgreSQL adapter.
 */

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
let days = 0;
/**
 * A day of its own for each test, earlier than every day handed out before: `due` lists
 * every pending delivery up to `now`, so a test only ever sees the deliveries it wrote.
 */
function ownDay(): (minutes: number) => Date {
  const start = Date.UTC(2040, 0, 1) - ++days * DAY_MS;
  return (minutes) => new Date(start + minutes * MINUTE_MS);
}

function delivery(organizationId: string, at: Date, fields: Partial<NewDelivery> = {}): NewDelivery {
  const id = randomUUID();
  return {
    id, organizationId, subscriptionId: null, boardId: null, event: 'board.created', url: `https://receiver.example/${id}`,
    body: `{"id":"${id}"}`, signature: `sha256=${id}`, createdAt: at, ...fields,
  };
}

const answered = (statusCode: number, durationMs: number): AttemptRecord => ({ statusCode, error: null, durationMs, responded: true });
const unanswered = (error: string, durationMs: number): AttemptRecord => ({ statusCode: null, error, durationMs, responded: false });

/** The stored row of a delivery, as the API reads it. */
const stored = (database: Database, id: string) =>
  database.prisma.webhookDelivery.findUniqueOrThrow({
    where: { id },
    select: {
      status: true, attemptCount: true, nextAttemptAt: true, completedAt: true, lockedUntil: true, lastStatusCode: true, lastError: true,
      lastResponseMs: true, respondedAttempts: true, responseMsTotal: true,
    },
  });

export function registerDeliveryLogContract(open: () => ContractDatabase): void {
  const log = () => open().current.deliveryLog;
  const dueIds = async (now: Date, limit = 100, skipUrls?: string[]) => (await log().due(now, limit, skipUrls)).map((d) => d.id);

  async function organization(): Promise<string> {
    const created = await open().current.prisma.organization.create({ data: { id: randomUUID(), name: 'Contract', plan: 'professional', createdAt: new Date() } });
    return created.id;
  }

  /** Inserts deliveries created at the given minutes of a day of the test's own; returns them and the day. */
  async function inserted(minutes: number[]) {
    const at = ownDay();
    const organizationId = await organization();
    const deliveries = minutes.map((minute) => delivery(organizationId, at(minute)));
    await log().insert(deliveries);
    return { at, organizationId, deliveries, ids: deliveries.map((d) => d.id) };
  }

  describe('due deliveries and their filters', () => {
    it('lists pending deliveries due by `now`, oldest first, up to the limit', async () => {
      const { at, ids } = await inserted([3, 1, 2, 10]);
      expect(await dueIds(at(0))).toEqual([]);
      expect(await dueIds(at(5))).toEqual([ids[1], ids[2], ids[0]]);
      expect(await dueIds(at(5), 2)).toEqual([ids[1], ids[2]]);
      expect(await dueIds(at(10), 1, [])).toEqual([ids[1]]);
      expect(await dueIds(at(10))).toEqual([ids[1], ids[2], ids[0], ids[3]]);
    });

    it('answers each candidate’s url and leaves out the urls it is told to skip', async () => {
      const { at, deliveries } = await inserted([1, 2, 3]);
      const [first, second, third] = deliveries;
      expect(await log().due(at(5), 10)).toEqual([first, second, third].map((d) => ({ id: d!.id, url: d!.url })));
      expect(await dueIds(at(5), 10, [first!.url, third!.url])).toEqual([second!.id]);
    });

    it('stores a refused delivery as failed, never due, with its reason', async () => {
      const at = ownDay();
      const refused = delivery(await organization(), at(1), { refusedBecause: 'quota_exceeded' });
      await log().insert([refused]);
      expect(await dueIds(at(60))).toEqual([]);
      expect(await stored(open().current, refused.id)).toMatchObject({ status: 'failed', attemptCount: 0, lastError: 'quota_exceeded', completedAt: at(1) });
    });
  });

  describe('claims and leases', () => {
    it('leases a due delivery once, counting the attempt, and answers what sending it needs', async () => {
      const { at, deliveries, ids } = await inserted([1]);
      const [claimed] = await log().claim(ids, at(2), at(7));
      const { id, subscriptionId, event, url, body, signature } = deliveries[0]!;
      expect(claimed).toEqual({ id, subscriptionId, event, url, body, signature, attemptCount: 1 });
      expect(await log().claim(ids, at(3), at(8))).toEqual([]);
      expect(await stored(open().current, id)).toMatchObject({ status: 'pending', attemptCount: 1, lockedUntil: at(7), nextAttemptAt: at(7) });
    });

    it('keeps a leased delivery off the due list until its lease ends, then lets anyone claim it again', async () => {
      const { at, ids } = await inserted([1]);
      await log().claim(ids, at(2), at(7));
      expect(await dueIds(at(6))).toEqual([]);
      expect(await dueIds(at(7))).toEqual(ids);
      expect((await log().claim(ids, at(7), at(12))).map((d) => d.attemptCount)).toEqual([2]);
    });

    it('gives a delivery claimed by two dispatchers at once to only one of them', async () => {
      const { at, ids } = await inserted([1, 1, 1]);
      const [one, other] = await Promise.all([log().claim(ids, at(2), at(7)), log().claim(ids, at(2), at(7))]);
      expect([...one, ...other].map((d) => d.id).sort()).toEqual([...ids].sort());
    });

    it('claims nothing that is not due, and nothing for no ids', async () => {
      const { at, ids } = await inserted([5]);
      expect(await log().claim(ids, at(4), at(9))).toEqual([]);
      expect(await log().claim([], at(6), at(9))).toEqual([]);
    });

    it('hands a released delivery back due at `now`, its attempt not counted', async () => {
      const { at, ids } = await inserted([1]);
      await log().claim(ids, at(2), at(7));
      await log().release(ids, at(3));
      expect(await dueIds(at(3))).toEqual(ids);
      expect(await stored(open().current, ids[0]!)).toMatchObject({ attemptCount: 0, lockedUntil: null, nextAttemptAt: at(3) });
    });
  });

  describe('outcomes', () => {
    async function attempted(minutes: number[]) {
      const setup = await inserted(minutes);
      await log().claim(setup.ids, setup.at(2), setup.at(7));
      return setup;
    }
    const outcome = (id: string, attempt: AttemptRecord, next: DeliveryState) => ({ id, subscriptionId: null, attempt, next });

    it('records a success, a retry and a failure in one call, releasing their leases', async () => {
      const { at, ids } = await attempted([1, 1, 1]);
      const [ok, again, gaveUp] = ids as [string, string, string];
      await log().record(
        [
          outcome(ok, answered(200, 40), { status: 'success', at: at(3) }),
          outcome(again, answered(503, 25), { status: 'retry', at: at(20) }),
          outcome(gaveUp, unanswered('connect ECONNREFUSED', 5), { status: 'failed', at: at(3) }),
        ],
        [],
      );
      const database = open().current;
      expect(await stored(database, ok)).toMatchObject({ status: 'success', completedAt: at(3), lockedUntil: null, lastStatusCode: 200, lastResponseMs: 40 });
      expect(await stored(database, again)).toMatchObject({ status: 'pending', nextAttemptAt: at(20), completedAt: null, lockedUntil: null, lastStatusCode: 503 });
      expect(await stored(database, gaveUp)).toMatchObject({ status: 'failed', completedAt: at(3), lastStatusCode: null, lastError: 'connect ECONNREFUSED', lastResponseMs: 5 });
      expect(await dueIds(at(19))).toEqual([]);
      expect(await dueIds(at(20))).toEqual([again]);
    });

    it('adds up response times of the attempts the receiver answered only', async () => {
      const { at, ids } = await attempted([1]);
      const id = ids[0]!;
      await log().record([outcome(id, answered(500, 30), { status: 'retry', at: at(10) })], []);
      await log().claim(ids, at(10), at(15));
      await log().record([outcome(id, unanswered('timeout', 1000), { status: 'retry', at: at(20) })], []);
      await log().claim(ids, at(20), at(25));
      await log().record([outcome(id, answered(200, 50), { status: 'success', at: at(21) })], []);
      expect(await stored(open().current, id)).toMatchObject({ status: 'success', attemptCount: 3, respondedAttempts: 2, responseMsTotal: 80, lastResponseMs: 50, lastError: null });
    });

    it('resets the failure count of exactly the subscriptions it is told to, with the attempts', async () => {
      const database = open().current;
      const at = ownDay();
      const organizationId = await organization();
      const subscription = async () =>
        (await database.prisma.webhookSubscription.create({
          data: {
            id: randomUUID(), organizationId, url: 'https://receiver.example/hook', events: '["*"]', secret: 'sealed', secretHint: 'abcd', isActive: true,
            consecutiveFailures: 4, createdAt: at(0), updatedAt: at(0),
          },
        })).id;
      const [recovered, failing] = [await subscription(), await subscription()];
      const sent = delivery(organizationId, at(1), { subscriptionId: recovered });
      await log().insert([sent]);
      await log().claim([sent.id], at(2), at(7));
      await log().record([{ id: sent.id, subscriptionId: recovered, attempt: answered(200, 10), next: { status: 'success', at: at(3) } }], [recovered]);
      const failures = await database.prisma.webhookSubscription.findMany({ where: { id: { in: [recovered, failing] } }, select: { id: true, consecutiveFailures: true } });
      expect(Object.fromEntries(failures.map((s) => [s.id, s.consecutiveFailures]))).toEqual({ [recovered]: 0, [failing]: 4 });
    });
  });

  it('keeps pending deliveries and leases across a reopen', async () => {
    const { at, ids } = await inserted([1, 1]);
    await log().claim([ids[0]!], at(2), at(7));
    await open().reopen();
    expect(await dueIds(at(3))).toEqual([ids[1]]);
    expect(await dueIds(at(7))).toEqual([ids[1], ids[0]]);
  });
}

forEachStoreAdapter('delivery log', registerDeliveryLogContract);
