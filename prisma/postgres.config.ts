// Prisma CLI configuration for the PostgreSQL twin schema (see scripts/prisma-generate.mjs).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'postgres/schema.prisma',
});
