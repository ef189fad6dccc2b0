import type { Db, PrismaClient } from '../store/database.js';
import { KeyedQueue } from '../util/keyedQueue.js';

/**
 * Runs check-then-create steps of one organization one at a time, so a gauge quota (active
 * boards, object types) can never be passed by concurrent requests. Composed at start from
 * the database: PostgreSQL serves several instances, so the lock must live in the database
 * (`RowLock`); the embedded SQLite database serves one process by design (`PlanRead`). Both
 * are queued in process first (`OrganizationQueue`), so waiting steps hold no connection.
 */
export interface OrganizationSerializer {
  /** Runs `step` alone for the organization, with its current plan (null if it does not exist). */
  run<T>(organizationId: string, step: (db: Db, plan: string | null) => Promise<T>): Promise<T>;
}

/** A transaction that first writes the organization's row: its row lock serializes every instance. */
export class RowLock implements OrganizationSerializer {
  constructor(private readonly prisma: PrismaClient) {}

  run<T>(organizationId: string, step: (db: Db, plan: string | null) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(
      async (tx) => {
        // Locks the row and reads the plan in one round trip.
        const rows = await tx.$queryRaw<Array<{ plan: string }>>`UPDATE organizations SET plan = plan WHERE id = ${organizationId} RETURNING plan`;
        return step(tx, rows[0]?.plan ?? null);
      },
      { maxWait: 30_000, timeout: 30_000 },
    );
  }
}

/**
 * Reads the plan and runs the step, with no database transaction: on SQLite one would hold
 * the database's write lock across awaits, while the update and delivery logs write through
 * their own synchronous connections and would block the event loop waiting for it. The plan
 * comes from `planOf`, which may answer from memory: this process is the database's only one,
 * and a plan change made here drops it at once.
 */
export class PlanRead implements OrganizationSerializer {
  constructor(
    private readonly db: Db,
    private readonly planOf: (organizationId: string) => Promise<string | null>,
  ) {}

  async run<T>(organizationId: string, step: (db: Db, plan: string | null) => Promise<T>): Promise<T> {
    return step(this.db, await this.planOf(organizationId));
  }
}

/** One step at a time per organization in this process, each run by `inner`. */
export class OrganizationQueue implements OrganizationSerializer {
  private readonly queue = new KeyedQueue<string>();

  constructor(private readonly inner: OrganizationSerializer) {}

  run<T>(organizationId: string, step: (db: Db, plan: string | null) => Promise<T>): Promise<T> {
    return this.queue.run(organizationId, () => this.inner.run(organizationId, step));
  }
}
