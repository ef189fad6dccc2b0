import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The PostgreSQL server the benches use when DATABASE_URL points at one; SQLite otherwise. */
export const POSTGRES_BASE = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : null;

/**
 * A fresh database for one server start: a SQLite file, or a PostgreSQL database of its own on
 * the server DATABASE_URL names (a bench must not measure what earlier runs left behind);
 * `drop` removes it.
 */
export async function freshDatabase(prefix = 'wb_bench'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  if (!POSTGRES_BASE) {
    const file = join(tmpdir(), `${name}.db`);
    return { url: `file:${file}`, drop: async () => ['', '-wal', '-shm', '-journal'].forEach((ext) => rmSync(`${file}${ext}`, { force: true })) };
  }
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_BASE });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_BASE);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
