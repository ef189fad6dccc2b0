import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A database of its own for one test file; `drop` removes it. */
export interface TestDatabase {
  url: string;
  flavour: 'sqlite' | 'postgres';
  drop(): Promise<void>;
}

/**
 * Tests run on SQLite by default and on PostgreSQL when DATABASE_URL points at one
 * (CI runs both). Each call makes a fresh, empty database so files never share state.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  const suffix = randomBytes(6).toString('hex');
  if (base && /^postgres(ql)?:\/\//.test(base)) {
    const name = `wb_test_${suffix}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      flavour: 'postgres',
      async drop() {
        const client = new pg.Client({ connectionString: base });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const file = join(tmpdir(), `wb-test-${suffix}.db`);
  return {
    url: `file:${file}`,
    flavour: 'sqlite',
    async drop() {
      for (const extension of ['', '-wal', '-shm']) rmSync(`${file}${extension}`, { force: true });
    },
  };
}
