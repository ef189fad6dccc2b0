// Generates the two Prisma clients (SQLite and PostgreSQL) from the one model in
// prisma/schema.prisma. Runs on `npm install`; needs no database and no network.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sqliteSchema = join(root, 'prisma/schema.prisma');
const postgresSchema = join(root, 'prisma/postgres/schema.prisma');

/** Rewrites the SQLite schema into its PostgreSQL twin. */
export function writePostgresSchema() {
  const source = readFileSync(sqliteSchema, 'utf8');
  const twin = source
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output     = "../generated/sqlite"', 'output     = "../../generated/postgres"');
  mkdirSync(dirname(postgresSchema), { recursive: true });
  writeFileSync(postgresSchema, `// GENERATED from prisma/schema.prisma by scripts/prisma-generate.mjs. Do not edit.\n${twin}`);
  return postgresSchema;
}

function prisma(args) {
  execFileSync(process.execPath, [join(root, 'node_modules/prisma/build/index.js'), ...args], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
      // Prisma 7's CLI makes sure the native schema engine is there before `generate`,
      // downloading it from outside the npm registry, though generating never runs it
      // (the client compiles queries with Wasm). Naming an existing file skips the download.
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writePostgresSchema();
  prisma(['generate', '--config', join(root, 'prisma.config.ts')]);
  prisma(['generate', '--config', join(root, 'prisma/postgres.config.ts')]);
}
