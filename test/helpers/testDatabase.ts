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

/** DATABASE_URL when it points at a PostgreSQL server, else null. */
export function postgresServerUrl(): string | null {
  const base = process.env.DATABASE_URL;
  return base && /^postgres(ql)?:\/\//.test(base) ? base : null;
}

/**
 * Tests run on SQLite by default and on PostgreSQL when DATABASE_URL points at one
 * (CI runs both). Each call makes a fresh, empty database so files never share state.
 * `flavour` asks for one flavour whatever DATABASE_URL says (PostgreSQL still needs it).
 */
export async function createTestDatabase(flavour?: TestDatabase['flavour']): Promise<TestDatabase> {
  const base = postgresServerUrl();
  const suffix = randomBytes(6).toString('hex');
  if (flavour === 'postgres' && !base) throw new Error('a PostgreSQL test database needs DATABASE_URL=postgresql://…');
  if (base && flavour !== 'sqlite') {
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
    drop() {
      for (const extension of ['', '-wal', '-shm']) rmSync(`${file}${extension}`, { force: true });
      return Promise.resolve();
    },
  };
}
