import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { PrismaClient } from '../../generated/sqlite/index.js';
import { openDeliveryLog, type DeliveryLog } from './deliveryLog.js';
import { openDirectStatements, type DirectStatements } from './directStatements.js';
import { openUpdateLog, type UpdateLog } from './updateLog.js';

export type { PrismaClient };
/** A Prisma client or the transaction client handed to `$transaction(async (tx) => …)`. */
export type Db = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends' | '$use'>;

export type DatabaseFlavour = 'sqlite' | 'postgres';

/** The service's database: one Prisma client and which database is behind it. */
export interface Database {
  prisma: PrismaClient;
  flavour: DatabaseFlavour;
  /** The Yjs update log, written through the driver directly (see updateLog.ts). */
  updateLog: UpdateLog;
  /** The webhook outbox's hot path, written through the driver directly (see deliveryLog.ts). */
  deliveryLog: DeliveryLog;
  /** Statements nearly every REST request runs, on the driver directly (see directStatements.ts). */
  statements: DirectStatements;
  close(): Promise<void>;
}

/** Path of the SQLite file a `file:` URL points at, relative paths taken from the working directory. */
export function sqliteFilePath(url: string): string {
  return resolve(url.slice('file:'.length).split('?')[0] ?? '');
}

/**
 * Opens the database named by `url`. Both flavours are generated from one model
 * (prisma/schema.prisma); their clients differ only in the SQL they compile to, so
 * the PostgreSQL client is used through the SQLite client's type.
 */
export async function openDatabase(url: string, options: { sqliteSynchronous?: 'normal' | 'full' } = {}): Promise<Database> {
  const synchronous = options.sqliteSynchronous === 'full' ? 'FULL' : 'NORMAL';
  if (url.startsWith('file:')) {
    const file = sqliteFilePath(url);
    mkdirSync(dirname(file), { recursive: true });
    const [{ PrismaBetterSqlite3 }, generated] = await Promise.all([
      import('@prisma/adapter-better-sqlite3'),
      import('../../generated/sqlite/index.js'),
    ]);
    const prisma = new generated.PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }) });
    // WAL lets readers run beside the writer; NORMAL sync in WAL mode survives a killed
    // process (the OS holds the written pages), FULL a power loss too (SQLITE_SYNCHRONOUS);
    // busy_timeout lets a second process wait.
    await prisma.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    await prisma.$queryRawUnsafe(`PRAGMA synchronous = ${synchronous}`);
    await prisma.$queryRawUnsafe('PRAGMA foreign_keys = ON');
    await prisma.$queryRawUnsafe('PRAGMA busy_timeout = 5000');
    const updateLog = openUpdateLog(url, file, synchronous);
    const deliveryLog = openDeliveryLog(url, file);
    const statements = openDirectStatements(url, file);
    return { prisma, flavour: 'sqlite', updateLog, deliveryLog, statements, close: () => closeAll(prisma, updateLog, deliveryLog, statements) };
  }
  const [{ PrismaPg }, generated] = await Promise.all([
    import('@prisma/adapter-pg'),
    import('../../generated/postgres/index.js'),
  ]);
  const prisma = new generated.PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as PrismaClient;
  await prisma.$queryRawUnsafe('SELECT 1');
  const updateLog = openUpdateLog(url);
  const deliveryLog = openDeliveryLog(url);
  const statements = openDirectStatements(url);
  return { prisma, flavour: 'postgres', updateLog, deliveryLog, statements, close: () => closeAll(prisma, updateLog, deliveryLog, statements) };
}

async function closeAll(prisma: PrismaClient, ...drivers: Array<{ close(): Promise<void> }>): Promise<void> {
  await Promise.all([prisma.$disconnect(), ...drivers.map((driver) => driver.close())]);
}
