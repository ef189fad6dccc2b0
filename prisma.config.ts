// Prisma CLI configuration for the embedded SQLite flavour. `engine: "js"` makes the
// CLI use the JavaScript schema engine with a driver adapter, so no native engine
// binary is downloaded (this machine and many self-hosters are offline).
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { defineConfig } from 'prisma/config';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/schema.prisma',
  async adapter() {
    return new PrismaBetterSQLite3({ url: process.env.DATABASE_URL?.startsWith('file:') ? process.env.DATABASE_URL : 'file:./data/whiteboard.db' });
  },
});
