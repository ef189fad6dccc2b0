import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrator.js';
import { createTestDatabase, postgresServerUrl, type TestDatabase } from './testDatabase.js';

/** A migrated database of one flavour that a contract suite may close and reopen. */
export interface ContractDatabase {
  /** The database as last opened. */
  readonly current: Database;
  readonly flavour: TestDatabase['flavour'];
  /** Closes the database and opens the same one again, as a restarted service would. */
  reopen(): Promise<Database>;
  /** Closes the database and drops it. */
  dispose(): Promise<void>;
}

/** Opens a fresh database of a flavour, migrated: what a contract suite runs against. */
export type ContractDatabaseFactory = () => Promise<ContractDatabase>;

function contractDatabase(flavour: TestDatabase['flavour']): ContractDatabaseFactory {
  return async () => {
    const created = await createTestDatabase(flavour);
    let current = await openDatabase(created.url);
    await migrate(current);
    return {
      flavour,
      get current() {
        return current;
      },
      async reopen() {
        await current.close();
        current = await openDatabase(created.url);
        return current;
      },
      async dispose() {
        await current.close();
        await created.drop();
      },
    };
  };
}

/**
 * Registers one contract suite per store adapter in the same run: SQLite always, PostgreSQL
 * when DATABASE_URL points at a PostgreSQL server (skipped, saying so, otherwise).
 */
export function forEachStoreAdapter(port: string, register: (database: () => ContractDatabase) => void): void {
  const adapters: Array<{ title: string; factory: ContractDatabaseFactory | null }> = [
    { title: 'SQLite', factory: contractDatabase('sqlite') },
    { title: 'PostgreSQL', factory: postgresServerUrl() ? contractDatabase('postgres') : null },
  ];
  for (const { title, factory } of adapters) {
    describe(`${port}: ${title} adapter`, () => {
      if (!factory) {
        it.skip(`runs only when DATABASE_URL points at PostgreSQL (DATABASE_URL=postgresql://…); it is ${process.env.DATABASE_URL ? 'another database' : 'unset'}`, () => undefined);
        return;
      }
      let database: ContractDatabase | undefined;
      beforeAll(async () => {
        database = await factory();
      });
      afterAll(async () => {
        await database?.dispose();
      });
      register(() => {
        if (!database) throw new Error(`the ${title} database did not open`);
        return database;
      });
    });
  }
}

/** A board row, in a new organization unless one is named: what an append's counters and the storage triggers move. */
export async function insertBoard(database: Database, organizationId?: string, id: string = randomUUID()): Promise<string> {
  const now = new Date();
  const organization = organizationId ?? (await database.prisma.organization.create({ data: { id: randomUUID(), name: 'Contract', plan: 'professional', createdAt: now } })).id;
  const board = await database.prisma.board.create({
    data: {
      id, organizationId: organization, title: 'Contract board', status: 'active', config: '{}', tokenNonce: randomUUID(),
      createdAt: now, updatedAt: now, expiresAt: new Date(now.getTime() + 86_400_000),
    },
  });
  return board.id;
}
