import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, sqliteFilePath, type Database } from '../../src/store/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * `SQLITE_SYNCHRONOUS` (docs/operating.md "What a power loss can cost"): `normal` by default, `full` when
 * asked (the update log's own connection is given the same level by openDatabase), anything else
 * refused at start.
 */

const opened: Array<{ database: Database; test: TestDatabase }> = [];
afterAll(async () => {
  for (const { database, test } of opened) {
    await database.close();
    await test.drop();
  }
});

/** The `synchronous` level (0 OFF, 1 NORMAL, 2 FULL) of the connection Prisma commits through. */
async function levels(choice: 'normal' | 'full') {
  const test = await createTestDatabase('sqlite');
  const database = await openDatabase(test.url, { sqliteSynchronous: choice });
  opened.push({ database, test });
  const viaPrisma = await database.prisma.$queryRawUnsafe<Array<{ synchronous: bigint | number }>>('PRAGMA synchronous');
  return { prisma: Number(viaPrisma[0]!.synchronous), file: sqliteFilePath(test.url) };
}

describe('SQLITE_SYNCHRONOUS', () => {
  it('reads normal by default and full when asked, and refuses anything else', () => {
    expect(loadConfig({}).sqliteSynchronous).toBe('normal');
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'FULL' }).sqliteSynchronous).toBe('full');
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' })).toThrow('SQLITE_SYNCHRONOUS must be "normal" or "full", got "off"');
  });

  it('sets the level on the connection Prisma commits through', async () => {
    expect((await levels('normal')).prisma).toBe(1);
    const full = await levels('full');
    expect(full.prisma).toBe(2);
    // The file is in WAL mode for every connection, whichever level they commit at.
    const probe = new BetterSqlite3(full.file, { readonly: true });
    expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    probe.close();
  });
});
