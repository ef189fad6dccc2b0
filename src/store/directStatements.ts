import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { pgDriver } from './drivers.js';
import { openSqliteConnection, sqliteTime, whenUnlocked } from './sqliteConnection.js';

/** A value bound to a statement. Dates are bound in the form Prisma stores them in on each database. */
export type StatementValue = string | number | Date;

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
  close(): Promise<void>;
}

/** Opens the direct statements of the database at `url` (a `file:` path or a PostgreSQL URL). */
export function openDirectStatements(url: string, sqliteFile?: string): DirectStatements {
  return sqliteFile ? new SqliteStatements(sqliteFile) : new PostgresStatements(url);
}

class SqliteStatements implements DirectStatements {
  private readonly db: BetterSqlite3.Database;
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();

  constructor(file: string) {
    this.db = openSqliteConnection(file);
  }

  all<Row>(sql: string, values: StatementValue[]): Promise<Row[]> {
    const statement = this.prepared.get(sql) ?? this.prepare(sql);
    const bound = values.map((value) => (value instanceof Date ? sqliteTime(value) : value));
    // Never waits inside SQLite (sqliteConnection.ts): a write that meets the lock is tried again.
    return whenUnlocked(() => statement.all(...bound) as Row[]);
  }

  private prepare(sql: string): BetterSqlite3.Statement {
    const statement = this.db.prepare(sql);
    this.prepared.set(sql, statement);
    return statement;
  }

  async close(): Promise<void> {
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
