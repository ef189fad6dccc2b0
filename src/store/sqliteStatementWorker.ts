import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { openSqliteConnection, whenUnlocked } from './sqliteConnection.js';
import type { StatementReply, StatementRequest } from './sqliteStatementThread.js';

/**
 * Runs in a worker thread (sqliteStatementThread.ts) on a connection of its own: the statements
 * that bind or return megabytes, so the copying and the page writes never hold the event loop.
 */
const db = openSqliteConnection((workerData as { file: string }).file);
const prepared = new Map<string, BetterSqlite3.Statement>();

parentPort!.on('message', ({ id, sql, values }: StatementRequest) => {
  const statement = prepared.get(sql) ?? db.prepare(sql);
  prepared.set(sql, statement);
  whenUnlocked(() => statement.all(...values))
    .then((rows) => parentPort!.postMessage({ id, rows } satisfies StatementReply))
    .catch((error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies StatementReply));
});
