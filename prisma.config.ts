// Prisma CLI configuration for the embedded SQLite flavour. Prisma 7 has no JavaScript
// schema engine in the CLI any more (`engine: "js"` is gone) and would download a native
// one, which this machine and many self-hosters cannot: `prisma generate` runs through
// scripts/prisma-generate.mjs and migrations are diffed by scripts/migrations-generate.mjs
// with the Wasm schema engine, so neither needs a database URL here.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
});
