// Writes a new checked-in migration for both databases:
//   node scripts/migrations-generate.mjs <name>
// Each migration folder keeps the schema it was generated from, so the next one is
// diffed from that snapshot: no database, shadow database or network is needed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePostgresSchema } from './prisma-generate.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: node scripts/migrations-generate.mjs <snake_case_name>');
  process.exit(2);
}

const flavours = [
  { dir: 'sqlite', schema: join(root, 'prisma/schema.prisma'), config: join(root, 'prisma.config.ts') },
  { dir: 'postgres', schema: writePostgresSchema(), config: join(root, 'prisma/postgres.config.ts') },
];

mkdirSync(join(root, 'data'), { recursive: true });
for (const { dir, schema, config } of flavours) {
  const base = join(root, 'prisma/migrations', dir);
  mkdirSync(base, { recursive: true });
  const previous = readdirSync(base).filter((entry) => /^\d{4}_/.test(entry)).sort();
  const last = previous.at(-1);
  const from = last ? ['--from-schema-datamodel', join(base, last, 'schema.prisma')] : ['--from-empty'];
  const sql = execFileSync(
    process.execPath,
    [join(root, 'node_modules/prisma/build/index.js'), 'migrate', 'diff', '--config', config, ...from, '--to-schema-datamodel', schema, '--script'],
    { cwd: root, encoding: 'utf8' },
  ).replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, '');
  if (sql.includes('-- This is an empty migration.')) {
    console.log(`${dir}: schema unchanged, nothing written`);
    continue;
  }
  const folder = join(base, `${String(previous.length + 1).padStart(4, '0')}_${name}`);
  if (existsSync(folder)) throw new Error(`${folder} exists`);
  mkdirSync(folder);
  writeFileSync(join(folder, 'migration.sql'), sql);
  copyFileSync(schema, join(folder, 'schema.prisma'));
  console.log(`${dir}: wrote ${folder}`);
}
