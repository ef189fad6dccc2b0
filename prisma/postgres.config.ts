// Prisma CLI configuration for the PostgreSQL twin schema (see scripts/prisma-generate.mjs).
import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'postgres/schema.prisma',
  async adapter() {
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' });
  },
});
