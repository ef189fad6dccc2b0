import type { AppConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { openDatabase, type Database } from '../store/database.js';
import { migrate } from '../store/migrator.js';

/** Opens the database (SQLite or PostgreSQL, by DATABASE_URL) and applies the migrations it has not had. */
export async function openStore(config: AppConfig, logger: Logger): Promise<Database> {
  const database = await openDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  const applied = await migrate(database);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  return database;
}
