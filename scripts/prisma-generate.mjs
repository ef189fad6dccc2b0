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

// The generated client loads its query compiler from a JavaScript file holding the Wasm module as
// 4.5 MB of base64 text, and keeps that text (the module's export and its source) for the life of
// the process: 14 MiB of an idle server's 125. Prisma writes the same module as a `.wasm` file next
// to it, so the client reads that file instead.
const base64WasmLoad = `        const { Buffer } = require('node:buffer')
        const { wasm } = require('./query_compiler_fast_bg.wasm-base64.js')
        const queryCompilerWasmFileBytes = Buffer.from(wasm, 'base64')
`;
const fileWasmLoad = `        const queryCompilerWasmFileBytes = require('node:fs').readFileSync(require('node:path').join(__dirname, 'query_compiler_fast_bg.wasm'))
`;

/** Makes one generated client read its query compiler from the `.wasm` file. Fails on an unknown layout. */
export function loadCompilerFromWasmFile(clientDirectory) {
  const indexFile = join(clientDirectory, 'index.js');
  const source = readFileSync(indexFile, 'utf8');
  if (source.includes(fileWasmLoad)) return;
  if (!source.includes(base64WasmLoad)) {
    throw new Error(`${indexFile}: the query compiler is not loaded as this script expects (did Prisma change?)`);
  }
  writeFileSync(indexFile, source.replace(base64WasmLoad, fileWasmLoad));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writePostgresSchema();
  prisma(['generate', '--config', join(root, 'prisma.config.ts')]);
  prisma(['generate', '--config', join(root, 'prisma/postgres.config.ts')]);
  loadCompilerFromWasmFile(join(root, 'generated/sqlite'));
  loadCompilerFromWasmFile(join(root, 'generated/postgres'));
}
