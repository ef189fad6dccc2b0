// Writes a new checked-in migration for both databases:
//   node scripts/migrations-generate.mjs <name>
// Each migration folder keeps the schema it was generated from, so the next one is
// diffed from that snapshot: no database, shadow database or network is needed.
//
// The diff is computed by Prisma's schema engine compiled to Wasm (@prisma/schema-engine-wasm),
// what `prisma migrate diff` ran with `engine: "js"` before Prisma 7: Prisma 7's CLI only runs a
// native schema engine that it downloads from outside the npm registry. Diffing two SQLite
// schema files touches no database (the engine gets a mock driver adapter); for PostgreSQL the
// engine asks the server for its version first, so it connects to DATABASE_URL (or a local
// server) as `prisma migrate diff` did through prisma/postgres.config.ts before Prisma 7.
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, mockMigrationAwareAdapterFactory } from '@prisma/driver-adapter-utils';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePostgresSchema } from './prisma-generate.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: node scripts/migrations-generate.mjs <snake_case_name>');
  process.exit(2);
}

/** Loads the Wasm schema engine (its package imports the .wasm as a module, which Node 20 cannot). */
async function loadSchemaEngine() {
  const bindingsUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bindings = await import(bindingsUrl);
  const module = new WebAssembly.Module(readFileSync(new URL('schema_engine_bg.wasm', bindingsUrl)));
  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': bindings });
  bindings.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return bindings.SchemaEngine;
}

/** A schema file as the engine takes it; a snapshot from before Prisma 7 may still name a datasource `url`, which Prisma 7 rejects. */
function schemaFile(path) {
  const content = readFileSync(path, 'utf8').replace(/^\s*url\s*=\s*"[^"]*"\s*\n/m, '');
  return { path, content };
}

/** The SQL taking a database from `from` (a schema file, or null for an empty database) to `to`. */
async function diff(SchemaEngine, provider, from, to) {
  const adapter = bindMigrationAwareSqlAdapterFactory(
    provider === 'postgres'
      ? new PrismaPg({ connectionString: process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : 'postgresql://postgres@127.0.0.1:5432/postgres' })
      : mockMigrationAwareAdapterFactory(provider),
  );
  const target = schemaFile(to);
  const engine = await SchemaEngine.new({ datamodels: [[target.path, target.content]] }, () => {}, adapter);
  try {
    const result = await engine.diff({
      from: from ? { tag: 'schemaDatamodel', files: [schemaFile(from)] } : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [target] },
      script: true,
      shadowDatabaseUrl: null,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout ?? '';
  } finally {
    engine.free();
  }
}

const flavours = [
  { dir: 'sqlite', provider: 'sqlite', schema: join(root, 'prisma/schema.prisma') },
  { dir: 'postgres', provider: 'postgres', schema: writePostgresSchema() },
];

const SchemaEngine = await loadSchemaEngine();
for (const { dir, provider, schema } of flavours) {
  const base = join(root, 'prisma/migrations', dir);
  mkdirSync(base, { recursive: true });
  const previous = readdirSync(base).filter((entry) => /^\d{4}_/.test(entry)).sort();
  const last = previous.at(-1);
  const sql = (await diff(SchemaEngine, provider, last ? join(base, last, 'schema.prisma') : null, schema))
    .replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m, '');
  if (sql.trim() === '' || sql.includes('-- This is an empty migration.')) {
    console.log(`${dir}: schema unchanged, nothing written`);
    continue;
  }
  const folder = join(base, `${String(previous.length + 1).padStart(4, '0')}_${name}`);
  if (existsSync(folder)) throw new Error(`${folder} exists`);
  mkdirSync(folder);
  // The CLI printed the script and a newline; the checked-in migrations end so.
  writeFileSync(join(folder, 'migration.sql'), `${sql}\n`);
  copyFileSync(schema, join(folder, 'schema.prisma'));
  console.log(`${dir}: wrote ${folder}`);
}
