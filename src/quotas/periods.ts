import { periodOf, type PeriodicQuota, type QuotaPeriod } from './quotaTypes.js';

/**
 * Periods are UTC calendar days and months, whatever the server's time zone. A counter's
 * period key is the day (`2026-11-23`) or month (`2026-11`) it counts for: a new period
 * starts a new row, so resets need no job and cannot race.
 */
export function periodKey(period: Exclude<QuotaPeriod, 'none'>, now: Date): string {
  const iso = now.toISOString();
  return period === 'daily' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** The key of the period a periodic quota counts in at `now`. */
export function periodKeyOf(type: PeriodicQuota, now: Date): string {
  return periodKey(periodOf(type) as Exclude<QuotaPeriod, 'none'>, now);
}

/** When the current period ends: the next UTC midnight, or the first of next month. */
export function periodResetAt(period: Exclude<QuotaPeriod, 'none'>, now: Date): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return period === 'daily' ? new Date(Date.UTC(year, month, now.getUTCDate() + 1)) : new Date(Date.UTC(year, month + 1, 1));
}
