import type { Db } from '../store/database.js';
import type { DirectStatements } from '../store/directStatements.js';
import { UNLIMITED } from './quotaTypes.js';

/**
 * Per-period usage counters (table quota_usage). Consuming is one statement, an upsert whose
 * update only applies while the new total stays within the limit: concurrent consumers on
 * any number of instances can never together pass the limit, and there is no read-then-write.
 */
export class UsageStore {
  constructor(
    private readonly db: Db,
    /** The counter is moved on the driver directly: nearly every API request moves one. */
    private readonly statements: DirectStatements,
  ) {}

  /** Adds `amount` if the total stays within `limit` (-1 = no limit); returns the new total, or null if refused. */
  async consume(organizationId: string, quotaType: string, period: string, amount: number, limit: number): Promise<number | null> {
    if (limit !== UNLIMITED && amount > limit) return null;
    const ceiling = limit === UNLIMITED ? Number.MAX_SAFE_INTEGER : limit;
    const rows = await this.statements.all<{ amount: bigint | number | string }>(
      `INSERT INTO quota_usage (organization_id, quota_type, period_start, amount) VALUES (?, ?, ?, ?)
      ON CONFLICT (organization_id, quota_type, period_start)
      DO UPDATE SET amount = quota_usage.amount + excluded.amount
      WHERE quota_usage.amount + excluded.amount <= ?
      RETURNING amount`,
      [organizationId, quotaType, period, amount, ceiling],
    );
    return rows[0] ? Number(rows[0].amount) : null;
  }

  /** Adds `amount` whatever the limit (usage that already happened, such as socket messages). */
  async add(organizationId: string, quotaType: string, period: string, amount: number): Promise<number> {
    return (await this.consume(organizationId, quotaType, period, amount, UNLIMITED))!;
  }

  /** The organization's counters for the given (type, period) pairs; missing ones are 0. */
  async read(organizationId: string, keys: Array<{ quotaType: string; period: string }>): Promise<Map<string, number>> {
    const rows = await this.db.quotaUsage.findMany({
      where: { organizationId, OR: keys.map(({ quotaType, period }) => ({ quotaType, periodStart: period })) },
    });
    return new Map(rows.map((row) => [row.quotaType, Number(row.amount)]));
  }
}
