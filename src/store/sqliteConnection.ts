import BetterSqlite3 from 'better-sqlite3';

/**
 * The service's own better-sqlite3 connections (the update log's and the webhook outbox's),
 * beside Prisma's connection to the same file.
 *
 * better-sqlite3 runs on the event loop's thread, so a statement that finds the file locked
 * would wait there in SQLite's busy handler. Prisma's interactive transactions hold the write
 * lock across awaits; one open while the update log committed froze the whole process for
 * `busy_timeout` (5 s), after which the commit failed, since the transaction holding the lock
 * could not go on while the thread was blocked. These connections therefore never wait inside
 * SQLite (busy_timeout 0): `whenUnlocked` waits between tries on timers instead.
 */
export function openSqliteConnection(file: string, synchronous: 'NORMAL' | 'FULL' = 'NORMAL'): BetterSqlite3.Database {
  const db = new BetterSqlite3(file);
  // Opening may meet another process's lock (a migration, a second start): wait as before.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 0');
  return db;
}

/** How long a write keeps trying while the file stays locked: longer than any transaction may stay open. */
const LOCK_WAIT_LIMIT_MS = 15_000;
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 25;

/**
 * Runs `work` (synchronous statements of one of these connections, a whole transaction at
 * most) and, while the database is locked, runs it again after a pause that grows from 1 ms to
 * 25 ms. A transaction that met the lock was rolled back whole, so running it again is safe.
 */
export async function whenUnlocked<T>(work: () => T): Promise<T> {
  let waited = 0;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isLocked(error) || waited >= LOCK_WAIT_LIMIT_MS) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    waited += pause;
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  }
}

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, …): another connection holds the lock. */
function isLocked(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');
}

/** The text form Prisma writes for DateTime on SQLite (ISO, UTC, `+00:00`); it sorts as text. */
export function sqliteTime(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}
