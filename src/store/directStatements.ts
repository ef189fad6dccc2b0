import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { pgDriver } from './drivers.js';
import { openSqliteConnection, sqliteTime, whenUnlocked } from './sqliteConnection.js';
import { SqliteStatementThread } from './sqliteStatementThread.js';

/**
 * A value bound to a statement. Dates are bound in the form Prisma stores them in on each
 * database; bytes as a BLOB on SQLite and a bytea on PostgreSQL.
 */
export type StatementValue = string | number | Date | Uint8Array | null;

/**
 * Statements run on the database driver directly, each SQLite statement prepared once, for the
 * REST paths nearly every request takes: the API-call counter and the quota report. Through
 * Prisma a query cost 180–200 µs of CPU on this machine, and SQLite prepared the quota
 * report's statement (twelve subqueries) anew for every request.
 *
 * SQL is written once, with `?` placeholders, for both databases; PostgreSQL gets `$1`, `$2`, ….
 * Counts come back as numbers on SQLite and as strings (bigint) on PostgreSQL.
 */
export interface DirectStatements {
  /** The rows of one statement (a write with RETURNING included). */
  all<Row>(sql: string, values: StatementValue[]): Promise<Row[]>;
  /**
   * As `all`, for a statement that binds or returns megabytes: on SQLite it runs on a thread of
   * its own (sqliteStatementThread.ts); PostgreSQL's driver is asynchronous already.
   */
  allLarge<Row>(sql: string, values: StatementValue[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** Opens the direct statements of the database at `url` (a `file:` path or a PostgreSQL URL). */
export function openDirectStatements(url: string, sqliteFile?: string): DirectStatements {
  return sqliteFile ? new SqliteStatements(sqliteFile) : new PostgresStatements(url);
}

const sqliteValue = (value: StatementValue) => (value instanceof Date ? sqliteTime(value) : value);

class SqliteStatements implements DirectStatements {
  private readonly db: BetterSqlite3.Database;
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();
  private readonly thread: SqliteStatementThread;

  constructor(file: string) {
    this.db = openSqliteConnection(file);
    this.thread = new SqliteStatementThread(file);
  }

  all<Row>(sql: string, values: StatementValue[]): Promise<Row[]> {
    const statement = this.prepared.get(sql) ?? this.prepare(sql);
    const bound = values.map(sqliteValue);
    // Never waits inside SQLite (sqliteConnection.ts): a write that meets the lock is tried again.
    return whenUnlocked(() => statement.all(...bound) as Row[]);
  }

  allLarge<Row>(sql: string, values: StatementValue[]): Promise<Row[]> {
    return this.thread.all<Row>(sql, values.map(sqliteValue));
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    const statement = this.db.prepare(sql);
    this.prepared.set(sql, statement);
    return statement;
  }

  async close(): Promise<void> {
    await this.thread.close();
    this.db.close();
  }
}

class PostgresStatements implements DirectStatements {
  private readonly pool: pg.Pool;

  constructor(url: string) {
    this.pool = new (pgDriver().Pool)({ connectionString: url, max: 4 });
    this.pool.on('error', () => undefined);
  }

  async all<Row>(sql: string, values: StatementValue[]): Promise<Row[]> {
    let index = 0;
    const numbered = sql.replace(/\?/g, () => `$${(index += 1)}`);
    const bound = values.map((value) => (value instanceof Date ? value.toISOString() : value));
    return (await this.pool.query(numbered, bound)).rows as Row[];
  }

  allLarge<Row>(sql: string, values: StatementValue[]): Promise<Row[]> {
    return this.all<Row>(sql, values);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
