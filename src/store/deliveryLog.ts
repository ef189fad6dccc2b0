import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { pgDriver } from './drivers.js';
import { openSqliteConnection, sqliteTime, whenUnlocked } from './sqliteConnection.js';

/** A delivery to write into the outbox. */
export interface NewDelivery {
  id: string;
  organizationId: string;
  subscriptionId: string | null;
  boardId: string | null;
  event: string;
  url: string;
  body: string;
  signature: string;
  createdAt: Date;
  /** Set when the delivery is refused without being sent (e.g. `quota_exceeded`): stored as failed. */
  refusedBecause?: string;
}

/** A delivery this dispatcher holds the lease of. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string | null;
  event: string;
  url: string;
  body: string;
  signature: string;
  /** Attempts made so far, this one included. */
  attemptCount: number;
}

/** How an attempt ended, as recorded on the delivery. */
export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Whether the receiver answered at all (counts toward the mean response time). */
  responded: boolean;
}

/** What becomes of a delivery after an attempt: done, tried again at `at`, or given up. */
export type DeliveryState = { status: 'success'; at: Date } | { status: 'retry'; at: Date } | { status: 'failed'; at: Date };

/** One attempt's outcome to record. */
export interface RecordedAttempt {
  id: string;
  subscriptionId: string | null;
  attempt: AttemptRecord;
  next: DeliveryState;
}

/**
 * The webhook outbox's hot path: writing deliveries, claiming due ones with a lease, and
 * recording attempts. Like the update log it talks to the driver directly: through Prisma's
 * query compiler the dispatcher spent three quarters of its CPU building queries. Reads for
 * the API (delivery log, statistics) stay on Prisma.
 */
export interface DeliveryLog {
  insert(deliveries: NewDelivery[]): Promise<void>;
  /** Candidates due at `now`: id and url, for per-host fairness before claiming; `skipUrls` are left out. */
  due(now: Date, limit: number, skipUrls?: string[]): Promise<Array<{ id: string; url: string }>>;
  /**
   * Leases the given deliveries if nobody else holds them; returns those it got. A lease also
   * moves the delivery's next attempt to the lease's end: should this instance die, that is
   * when another one retries it, and due deliveries stay at the head of the due index
   * instead of behind every delivery in flight.
   */
  claim(ids: string[], now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]>;
  /** Hands back claimed deliveries that were never sent: due at `now`, their attempt not counted. */
  release(ids: string[], now: Date): Promise<void>;
  /**
   * Records attempts in one transaction (releasing their leases), and in it resets the
   * consecutive failure count of the subscriptions `resetFailures` names (webhooks/subscriptionHealth.ts decides which).
   */
  record(attempts: RecordedAttempt[], resetFailures: string[]): Promise<void>;
  close(): Promise<void>;
}

export function openDeliveryLog(url: string, sqliteFile?: string): DeliveryLog {
  return sqliteFile ? new SqliteDeliveryLog(sqliteFile) : new PostgresDeliveryLog(url);
}

const COLUMNS = 'id, subscription_id AS "subscriptionId", event, url, body, signature, attempt_count AS "attemptCount"';

class SqliteDeliveryLog implements DeliveryLog {
  private readonly db: BetterSqlite3.Database;
  /** Statements prepared once per distinct SQL text (preparing cost more than running them). */
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(file: string) {
    this.db = openSqliteConnection(file);
  }

  async insert(deliveries: NewDelivery[]): Promise<void> {
    const insert = this.statement(
      `INSERT INTO webhook_deliveries (id, organization_id, subscription_id, board_id, event, url, body, signature, status, attempt_count, next_attempt_at, created_at, responded_attempts, response_ms_total, last_error, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 0, 0, ?, ?)`,
    );
    const transaction = this.db.transaction(() => {
      for (const d of deliveries) {
        const at = sqliteTime(d.createdAt);
        const refused = d.refusedBecause ?? null;
        insert.run(d.id, d.organizationId, d.subscriptionId, d.boardId, d.event, d.url, d.body, d.signature, refused ? 'failed' : 'pending', at, at, refused, refused ? at : null);
      }
    });
    await whenUnlocked(() => transaction.immediate());
  }

  async due(now: Date, limit: number, skipUrls: string[] = []) {
    const at = sqliteTime(now);
    const skip = skipUrls.length > 0 ? `AND url NOT IN (${skipUrls.map(() => '?').join(', ')})` : '';
    const select = this.statement(
      `SELECT id, url FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ${skip}
       ORDER BY next_attempt_at LIMIT ?`,
    );
    return whenUnlocked(() => select.all(at, ...skipUrls, limit) as Array<{ id: string; url: string }>);
  }

  async claim(ids: string[], now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const placeholders = ids.map(() => '?').join(', ');
    const claim = this.statement(
      `UPDATE webhook_deliveries SET locked_until = ?, next_attempt_at = ?, attempt_count = attempt_count + 1
       WHERE id IN (${placeholders}) AND status = 'pending' AND next_attempt_at <= ? RETURNING ${COLUMNS}`,
    );
    return whenUnlocked(() => claim.all(sqliteTime(leaseUntil), sqliteTime(leaseUntil), ...ids, sqliteTime(now)) as ClaimedDelivery[]);
  }

  async release(ids: string[], now: Date): Promise<void> {
    const placeholders = ids.map(() => '?').join(', ');
    const release = this.statement(
      `UPDATE webhook_deliveries SET locked_until = NULL, next_attempt_at = ?, attempt_count = attempt_count - 1
       WHERE id IN (${placeholders}) AND status = 'pending'`,
    );
    await whenUnlocked(() => release.run(sqliteTime(now), ...ids));
  }

  async record(attempts: RecordedAttempt[], resetFailures: string[]): Promise<void> {
    const update = this.statement(
      `UPDATE webhook_deliveries SET status = ?, next_attempt_at = COALESCE(?, next_attempt_at), completed_at = ?, locked_until = NULL,
       last_status_code = ?, last_error = ?, last_response_ms = ?, responded_attempts = responded_attempts + ?, response_ms_total = response_ms_total + ?
       WHERE id = ?`,
    );
    const reset = this.statement('UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures > 0');
    const transaction = this.db.transaction(() => {
      for (const { id, attempt, next } of attempts) {
        const at = sqliteTime(next.at);
        update.run(
          next.status === 'retry' ? 'pending' : next.status,
          next.status === 'retry' ? at : null,
          next.status === 'retry' ? null : at,
          ...attemptColumns(attempt),
          id,
        );
      }
      for (const subscriptionId of resetFailures) reset.run(subscriptionId);
    });
    await whenUnlocked(() => transaction.immediate());
  }

  async close() {
    this.db.close();
  }

  private statement(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** last_status_code, last_error, last_response_ms, responded_attempts +, response_ms_total +. */
function attemptColumns(attempt: AttemptRecord): [number | null, string | null, number, number, number] {
  return [attempt.statusCode, attempt.error, attempt.durationMs, attempt.responded ? 1 : 0, attempt.responded ? attempt.durationMs : 0];
}

class PostgresDeliveryLog implements DeliveryLog {
  /** New deliveries: committed durably, they are the only record of the event. */
  private readonly durable: pg.Pool;
  /**
   * Claims and attempt outcomes commit without waiting for the disk flush: if the database
   * crashes and loses the last of them, the delivery is simply sent again, which
   * at-least-once delivery allows. Waiting for a flush per outcome was the p99 tail.
   */
  private readonly pool: pg.Pool;

  constructor(url: string) {
    this.durable = new (pgDriver().Pool)({ connectionString: url, max: 4 });
    this.pool = new (pgDriver().Pool)({ connectionString: url, max: 8, options: '-c synchronous_commit=off' });
    this.durable.on('error', () => undefined);
    this.pool.on('error', () => undefined);
  }

  async insert(deliveries: NewDelivery[]): Promise<void> {
    const columns = ['id', 'organizationId', 'subscriptionId', 'boardId', 'event', 'url', 'body', 'signature'] as const;
    await this.durable.query(
      `INSERT INTO webhook_deliveries (id, organization_id, subscription_id, board_id, event, url, body, signature, status, attempt_count, next_attempt_at, created_at, responded_attempts, response_ms_total, last_error, completed_at)
       SELECT v.id, v.org, v.sub, v.board, v.event, v.url, v.body, v.sig, CASE WHEN v.refused IS NULL THEN 'pending' ELSE 'failed' END, 0, v.at, v.at, 0, 0,
         v.refused, CASE WHEN v.refused IS NULL THEN NULL ELSE v.at END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamp[], $10::text[])
         AS v(id, org, sub, board, event, url, body, sig, at, refused)`,
      [
        ...columns.map((column) => deliveries.map((d) => d[column])),
        deliveries.map((d) => d.createdAt.toISOString()),
        deliveries.map((d) => d.refusedBecause ?? null),
      ],
    );
  }

  async due(now: Date, limit: number, skipUrls: string[] = []) {
    const result = await this.pool.query<{ id: string; url: string }>(
      `SELECT id, url FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1
       AND NOT (url = ANY($3::text[])) ORDER BY next_attempt_at LIMIT $2`,
      [now.toISOString(), limit, skipUrls],
    );
    return result.rows;
  }

  async claim(ids: string[], now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const result = await this.pool.query<ClaimedDelivery>(
      `UPDATE webhook_deliveries SET locked_until = $1, next_attempt_at = $1, attempt_count = attempt_count + 1
       WHERE id = ANY($2::text[]) AND status = 'pending' AND next_attempt_at <= $3 RETURNING ${COLUMNS}`,
      [leaseUntil.toISOString(), ids, now.toISOString()],
    );
    return result.rows;
  }

  async release(ids: string[], now: Date): Promise<void> {
    await this.pool.query(
      `UPDATE webhook_deliveries SET locked_until = NULL, next_attempt_at = $2, attempt_count = attempt_count - 1
       WHERE id = ANY($1::text[]) AND status = 'pending'`,
      [ids, now.toISOString()],
    );
  }

  async record(attempts: RecordedAttempt[], resetFailures: string[]): Promise<void> {
    const rows = attempts.map(({ id, attempt, next }) => [id, next.status === 'retry' ? 'pending' : next.status, next.at.toISOString(), ...attemptColumns(attempt)]);
    const column = (index: number) => rows.map((row) => row[index]);
    // One statement (one round trip, atomic): the deliveries and the failure counts to reset.
    await this.pool.query(
      `WITH v AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::timestamp[], $4::int[], $5::text[], $6::int[], $7::int[], $8::int[])
           AS v(id, status, at, code, error, ms, responded, responded_ms)
       ), recorded AS (
         UPDATE webhook_deliveries AS d SET status = v.status,
           next_attempt_at = CASE WHEN v.status = 'pending' THEN v.at ELSE d.next_attempt_at END,
           completed_at = CASE WHEN v.status = 'pending' THEN NULL ELSE v.at END,
           locked_until = NULL, last_status_code = v.code, last_error = v.error, last_response_ms = v.ms,
           responded_attempts = d.responded_attempts + v.responded, response_ms_total = d.response_ms_total + v.responded_ms
         FROM v WHERE d.id = v.id
       )
       UPDATE webhook_subscriptions SET consecutive_failures = 0 WHERE id = ANY($9::text[]) AND consecutive_failures > 0`,
      [...[0, 1, 2, 3, 4, 5, 6, 7].map(column), resetFailures],
    );
  }

  async close() {
    await Promise.all([this.durable.end(), this.pool.end()]);
  }
}
