import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

const MIGRATIONS_ROOT = fileURLToPath(new URL('../../prisma/migrations/', import.meta.url));
/** Any constant works; it only has to be the same for every instance of the service. */
const POSTGRES_MIGRATION_LOCK = 7_202_611;

/**
 * Splits a migration into statements at each `;` that ends a line: Prisma never puts one inside a
 * literal, and the hand-written triggers of 0011_board_storage keep their inner `;` inside lines.
 */
function statements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((chunk) => chunk.replace(/^\s*--.*$/gm, '').trim())
    .filter((chunk) => chunk.length > 0);
}

/**
 * Applies the checked-in SQL migrations of this database's flavour that are not yet
 * recorded in `_app_migrations`, each in its own transaction. Prisma's own
 * `migrate deploy` cannot run offline on PostgreSQL here, so the service carries this
 * small migrator and uses it on both databases. Returns the names it applied.
 */
export async function migrate(database: Database): Promise<string[]> {
  const { prisma, flavour } = database;
  // Under the lock too: instances starting together on an empty PostgreSQL database would
  // otherwise race in `CREATE TABLE IF NOT EXISTS` (a duplicate key in `pg_type`).
  await prisma.$transaction(async (tx) => {
    if (flavour === 'postgres') await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${POSTGRES_MIGRATION_LOCK})`);
    await tx.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS "_app_migrations" ("name" TEXT PRIMARY KEY, "applied_at" TEXT NOT NULL)');
  });
  const folder = `${MIGRATIONS_ROOT}${flavour}`;
  const available = readdirSync(folder).filter((name) => /^\d{4}_/.test(name)).sort();
  const applied: string[] = [];
  for (const name of available) {
    const sql = readFileSync(`${folder}/${name}/migration.sql`, 'utf8');
    const done = await prisma.$transaction(async (tx) => {
      if (flavour === 'postgres') await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${POSTGRES_MIGRATION_LOCK})`);
      const [p1, p2] = flavour === 'postgres' ? ['$1', '$2'] : ['?', '?'];
      const rows = await tx.$queryRawUnsafe<unknown[]>(`SELECT "name" FROM "_app_migrations" WHERE "name" = ${p1}`, name);
      if (rows.length > 0) return false;
      for (const statement of statements(sql)) await tx.$executeRawUnsafe(statement);
      await tx.$executeRawUnsafe(
        `INSERT INTO "_app_migrations" ("name", "applied_at") VALUES (${p1}, ${p2})`,
        name,
        new Date().toISOString(),
      );
      return true;
    }, { timeout: 60_000 });
    if (done) applied.push(name);
  }
  return applied;
}
