import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { boardIdOfDocumentName, frameIdOfDocument } from './documentNames.js';
import { pgDriver } from './drivers.js';
import { openSqliteConnection, sqliteTime, whenUnlocked } from './sqliteConnection.js';

/** Updates of one document to append in one group commit. */
export interface DocumentAppend {
  name: string;
  updates: Uint8Array[];
  /**
   * The board the document belongs to: its `state.version` moves in the same transaction, and
   * the document's object count (when set) is kept where it is counted: the board's
   * `objects_count` for its main document, the frame's for a zone document.
   */
  board?: { id: string; objectsCount: number | null };
}

/** What one committed append left behind for a document. */
export interface AppendResult {
  lastSeq: number;
  /** The board's `state.version` after the commit (documents with a board). */
  stateVersion?: number;
}

/**
 * The hot path of persistence: appending Yjs updates (and moving the boards' version and
 * object counters) in one transaction per group commit. Every socket update passes here,
 * so it talks to the database driver directly with prepared statements instead of going
 * through Prisma's query compiler, which cost about half the server's CPU under load.
 * One port, two adapters; both run the same contract tests.
 */
export interface UpdateLog {
  append(batch: DocumentAppend[]): Promise<Map<string, AppendResult>>;
  /**
   * A document's stored parts, unmerged: its snapshot (if any), then its log tail in order.
   * Every document load and every REST read of a document not loaded passes here, and through
   * Prisma each blob was copied into an array of numbers row by row.
   */
  loadParts(name: string): Promise<StoredParts>;
  /**
   * The last log row a document's stored state covers (0 when it has none): it grows with every
   * append and stays as it is through compaction, so a copy read at the same value is current.
   */
  lastSeq(name: string): Promise<number>;
  close(): Promise<void>;
}

/** What is stored of a document: its snapshot and log tail, and the last log row they cover. */
export interface StoredParts {
  parts: Uint8Array[];
  lastSeq: number;
}

/** Opens the update log of the database at `url` (a `file:` path or a PostgreSQL URL). */
export function openUpdateLog(url: string, sqliteFile?: string, synchronous: 'NORMAL' | 'FULL' = 'NORMAL'): UpdateLog {
  return sqliteFile ? new SqliteUpdateLog(sqliteFile, synchronous) : new PostgresUpdateLog(url);
}

class SqliteUpdateLog implements UpdateLog {
  private readonly db: BetterSqlite3.Database;
  /** Prepared on first use: the tables exist only once migrations have run. */
  private write: ((batch: DocumentAppend[]) => Map<string, AppendResult>) | null = null;
  private read: ((name: string) => StoredParts) | null = null;
  private last: BetterSqlite3.Statement<[string, string], { seq: number | null }> | null = null;

  constructor(file: string, synchronous: 'NORMAL' | 'FULL') {
    this.db = openSqliteConnection(file, synchronous);
  }

  append(batch: DocumentAppend[]): Promise<Map<string, AppendResult>> {
    const write = (this.write ??= this.prepare());
    return whenUnlocked(() => write(batch));
  }

  loadParts(name: string): Promise<StoredParts> {
    const read = (this.read ??= this.prepareRead());
    return whenUnlocked(() => read(name));
  }

  async close(): Promise<void> {
    this.db.close();
  }

  lastSeq(name: string): Promise<number> {
    const last = (this.last ??= this.db.prepare<[string, string], { seq: number | null }>(
      'SELECT MAX(seq) AS seq FROM (SELECT MAX("seq") AS seq FROM "document_updates" WHERE "name" = ? UNION ALL SELECT "upto_seq" FROM "document_snapshots" WHERE "name" = ?)',
    ));
    return whenUnlocked(() => last.get(name, name)?.seq ?? 0);
  }

  private prepareRead(): (name: string) => StoredParts {
    const snapshot = this.db.prepare<[string], { state: Buffer; upto_seq: number }>('SELECT "state", "upto_seq" FROM "document_snapshots" WHERE "name" = ?');
    const tail = this.db.prepare<[string], { seq: number; update: Buffer }>('SELECT "seq", "update" FROM "document_updates" WHERE "name" = ? ORDER BY "seq"');
    // One read transaction: a compaction committing between the two reads cannot drop rows from under it.
    return this.db.transaction((name: string) => partsOf(snapshot.get(name), tail.all(name)));
  }

  private prepare(): (batch: DocumentAppend[]) => Map<string, AppendResult> {
    const insert = this.db.prepare<[string, string | null, Buffer, string], { seq: number }>(
      'INSERT INTO "document_updates" ("name", "board_id", "update", "created_at") VALUES (?, ?, ?, ?) RETURNING "seq"',
    );
    const bump = this.db.prepare<[number, number | null, string], { state_version: number }>(
      'UPDATE "boards" SET "state_version" = "state_version" + ?, "objects_count" = COALESCE(?, "objects_count") WHERE "id" = ? RETURNING "state_version"',
    );
    const countFrame = this.db.prepare<[number, string, string]>('UPDATE "frames" SET "objects_count" = ? WHERE "id" = ? AND "board_id" = ?');
    const transaction = this.db.transaction((batch: DocumentAppend[]) => {
      const createdAt = sqliteTime(new Date());
      const results = new Map<string, AppendResult>();
      for (const entry of batch) {
        let lastSeq = 0;
        const boardId = boardIdOfDocumentName(entry.name);
        for (const update of entry.updates) lastSeq = insert.get(entry.name, boardId, Buffer.from(update), createdAt)!.seq;
        const result: AppendResult = { lastSeq };
        if (entry.board) {
          const frameId = frameIdOfDocument(entry.name);
          const row = bump.get(entry.updates.length, frameId ? null : entry.board.objectsCount, entry.board.id);
          if (row) result.stateVersion = row.state_version;
          if (frameId && entry.board.objectsCount !== null) countFrame.run(entry.board.objectsCount, frameId, entry.board.id);
        }
        results.set(entry.name, result);
      }
      return results;
    });
    // IMMEDIATE takes the write lock first: a locked file fails the try before any statement ran.
    return (batch) => transaction.immediate(batch);
  }
}

class PostgresUpdateLog implements UpdateLog {
  private readonly pool: pg.Pool;

  constructor(url: string) {
    // One commit at a time is all the journal asks for; a spare connection covers a retry, and
    // two more serve document loads without holding commits back.
    this.pool = new (pgDriver().Pool)({ connectionString: url, max: 4 });
    this.pool.on('error', () => undefined);
  }

  async append(batch: DocumentAppend[]): Promise<Map<string, AppendResult>> {
    const names: string[] = [];
    const boardIds: Array<string | null> = [];
    const updates: Buffer[] = [];
    for (const entry of batch) {
      const boardId = boardIdOfDocumentName(entry.name);
      for (const update of entry.updates) {
        names.push(entry.name);
        boardIds.push(boardId);
        updates.push(Buffer.from(update));
      }
    }
    const boards = perBoard(batch);
    const frames = frameCounts(batch);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const inserted = await client.query<{ seq: number; name: string }>(
        `INSERT INTO "document_updates" ("name", "board_id", "update", "created_at")
         SELECT v.name, v.board_id, v.update, now() AT TIME ZONE 'utc' FROM unnest($1::text[], $2::text[], $3::bytea[]) AS v(name, board_id, update)
         RETURNING "seq", "name"`,
        [names, boardIds, updates],
      );
      const bumped = boards.length
        ? await client.query<{ id: string; state_version: number }>(
            `UPDATE "boards" AS b SET "state_version" = b."state_version" + v.n, "objects_count" = COALESCE(v.c, b."objects_count")
             FROM unnest($1::text[], $2::int[], $3::int[]) AS v(id, n, c) WHERE b."id" = v.id
             RETURNING b."id", b."state_version"`,
            [boards.map((b) => b.id), boards.map((b) => b.updates), boards.map((b) => b.objectsCount)],
          )
        : { rows: [] };
      if (frames.length > 0) {
        await client.query(
          `UPDATE "frames" AS f SET "objects_count" = v.c FROM unnest($1::text[], $2::text[], $3::int[]) AS v(id, board_id, c) WHERE f."id" = v.id AND f."board_id" = v.board_id`,
          [frames.map((f) => f.id), frames.map((f) => f.boardId), frames.map((f) => f.objectsCount)],
        );
      }
      await client.query('COMMIT');
      const results = new Map<string, AppendResult>();
      for (const row of inserted.rows) {
        const previous = results.get(row.name)?.lastSeq ?? 0;
        results.set(row.name, { lastSeq: Math.max(previous, Number(row.seq)) });
      }
      const versions = new Map(bumped.rows.map((row) => [row.id, row.state_version]));
      for (const entry of batch) {
        const version = entry.board ? versions.get(entry.board.id) : undefined;
        const result = results.get(entry.name);
        if (result && version !== undefined) result.stateVersion = version;
      }
      return results;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async loadParts(name: string): Promise<StoredParts> {
    const client = await this.pool.connect();
    try {
      // One snapshot of the database for both reads (REPEATABLE READ), as on SQLite.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const snapshot = await client.query<{ state: Buffer; upto_seq: number }>('SELECT "state", "upto_seq" FROM "document_snapshots" WHERE "name" = $1', [name]);
      const tail = await client.query<{ seq: string | number; update: Buffer }>('SELECT "seq", "update" FROM "document_updates" WHERE "name" = $1 ORDER BY "seq"', [name]);
      await client.query('COMMIT');
      return partsOf(snapshot.rows[0], tail.rows);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async lastSeq(name: string): Promise<number> {
    const result = await this.pool.query<{ seq: string | null }>(
      'SELECT GREATEST((SELECT MAX("seq") FROM "document_updates" WHERE "name" = $1), (SELECT "upto_seq" FROM "document_snapshots" WHERE "name" = $1)) AS seq',
      [name],
    );
    return Number(result.rows[0]?.seq ?? 0);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function partsOf(snapshot: { state: Buffer; upto_seq: number } | undefined, tail: Array<{ seq: string | number; update: Buffer }>): StoredParts {
  const parts: Uint8Array[] = snapshot ? [new Uint8Array(snapshot.state)] : [];
  for (const row of tail) parts.push(new Uint8Array(row.update));
  return { parts, lastSeq: Math.max(snapshot?.upto_seq ?? 0, Number(tail.at(-1)?.seq ?? 0)) };
}

/**
 * One counter update per board (PostgreSQL updates a row once per statement): the updates of all
 * its documents in the batch, and the object count its main document reported, if any.
 */
function perBoard(batch: DocumentAppend[]): Array<{ id: string; updates: number; objectsCount: number | null }> {
  const boards = new Map<string, { id: string; updates: number; objectsCount: number | null }>();
  for (const entry of batch) {
    if (!entry.board) continue;
    const board = boards.get(entry.board.id) ?? { id: entry.board.id, updates: 0, objectsCount: null };
    board.updates += entry.updates.length;
    if (entry.board.objectsCount !== null && !frameIdOfDocument(entry.name)) board.objectsCount = entry.board.objectsCount;
    boards.set(board.id, board);
  }
  return [...boards.values()];
}

/** The object counts zone documents of the batch reported, one per frame (a batch holds a document once). */
function frameCounts(batch: DocumentAppend[]): Array<{ id: string; boardId: string; objectsCount: number }> {
  return batch.flatMap((entry) => {
    const frameId = frameIdOfDocument(entry.name);
    return frameId && entry.board && entry.board.objectsCount !== null ? [{ id: frameId, boardId: entry.board.id, objectsCount: entry.board.objectsCount }] : [];
  });
}
