import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrator.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * On SQLite the update log and the webhook outbox write through their own connections, beside
 * Prisma's. Prisma's interactive transactions hold the file's write lock across awaits; a write
 * of those connections that meets the lock must wait for it without holding the event loop
 * (it used to wait inside SQLite for 5 s, freezing the process, and then fail).
 */

let test: TestDatabase;
let database: Database;

beforeAll(async () => {
  test = await createTestDatabase('sqlite');
  database = await openDatabase(test.url);
  await migrate(database);
  await database.prisma.organization.create({ data: { id: 'org-locks', name: 'Locks', plan: 'free', createdAt: new Date() } });
});

afterAll(async () => {
  await database.close();
  await test.drop();
});

/** Opens a Prisma transaction that has written (so it holds the write lock) and stays open until `commit()`. */
async function openWriteTransaction() {
  let commit!: () => void;
  const released = new Promise<void>((resolve) => (commit = resolve));
  let written!: () => void;
  const holding = new Promise<void>((resolve) => (written = resolve));
  const finished = database.prisma.$transaction(
    async (tx) => {
      await tx.organization.update({ where: { id: 'org-locks' }, data: { name: 'Locked' } });
      written();
      await released;
    },
    { timeout: 10_000 },
  );
  await holding;
  return { commit, finished };
}

/** Tracks whether a promise has settled, without awaiting it. */
function watch<T>(promise: Promise<T>) {
  const state = { settled: false, promise };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite writes beside an open Prisma transaction', () => {
  it('lets an update log append wait for the lock with the event loop free, then commits it', async () => {
    const transaction = await openWriteTransaction();
    const append = watch(database.updateLog.append([{ name: 'locked-doc', updates: [new Uint8Array([0, 0])] }]));

    // Timers run while the append waits: the thread is not held inside SQLite.
    await tick(30);
    expect(append.settled).toBe(false);

    transaction.commit();
    await transaction.finished;
    const results = await append.promise;
    expect(results.get('locked-doc')?.lastSeq).toBeGreaterThan(0);
    expect((await database.updateLog.loadParts('locked-doc')).parts).toHaveLength(1);
    expect((await database.prisma.organization.findUniqueOrThrow({ where: { id: 'org-locks' } })).name).toBe('Locked');
  });

  it('lets a webhook outbox insert wait for the lock with the event loop free, then commits it', async () => {
    const transaction = await openWriteTransaction();
    const at = new Date();
    const insert = watch(
      database.deliveryLog.insert([
        { id: 'delivery-locks', organizationId: 'org-locks', subscriptionId: null, boardId: null, event: 'board.created', url: 'https://example.test/hook', body: '{}', signature: 'sig', createdAt: at },
      ]),
    );

    await tick(30);
    expect(insert.settled).toBe(false);

    transaction.commit();
    await transaction.finished;
    await insert.promise;
    expect(await database.deliveryLog.due(new Date(at.getTime() + 1000), 10)).toEqual([{ id: 'delivery-locks', url: 'https://example.test/hook' }]);
  });
});
