import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { Database } from '../../src/store/database.js';
import { DocumentStore } from '../../src/store/documentStore.js';
import { forEachStoreAdapter, insertBoard, type ContractDatabase } from '../helpers/storeAdapters.js';

/**
 * `board_storage` (migration 0011): the database's triggers keep each board's byte count equal
 * to the bytes of its documents' rows, whatever writes them. Storage quotas read only this count.
 */

type Operation =
  | { kind: 'append'; document: number; sizes: number[] }
  | { kind: 'compact'; document: number; size: number }
  | { kind: 'repair'; document: number; size: number }
  | { kind: 'delete-documents'; board: number }
  | { kind: 'create-late-board' }
  | { kind: 'delete-board'; board: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), document: fc.nat(3), sizes: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('compact' as const), document: fc.nat(3), size: fc.integer({ min: 1, max: 2_000 }) }),
  fc.record({ kind: fc.constant('repair' as const), document: fc.nat(3), size: fc.integer({ min: 1, max: 2_000 }) }),
  fc.record({ kind: fc.constant('delete-documents' as const), board: fc.nat(2) }),
  fc.constant({ kind: 'create-late-board' as const }),
  fc.record({ kind: fc.constant('delete-board' as const), board: fc.nat(1) }),
);

/** Bytes of a board's document rows, read row by row. */
async function rowBytes(database: Database, boardId: string): Promise<number> {
  const snapshots = await database.prisma.documentSnapshot.findMany({ where: { boardId }, select: { state: true } });
  const updates = await database.prisma.documentUpdate.findMany({ where: { boardId }, select: { update: true } });
  return [...snapshots.map((row) => row.state.length), ...updates.map((row) => row.update.length)].reduce((sum, bytes) => sum + bytes, 0);
}

async function counted(database: Database, boardId: string): Promise<number | null> {
  const row = await database.prisma.boardStorage.findUnique({ where: { boardId } });
  return row ? Number(row.bytes) : null;
}

function registerBoardStorage(open: () => ContractDatabase): void {
  it('counts exactly the bytes of each board’s documents through appends, compactions, repairs and deletions, boards created late included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 10 }), async (operations) => {
        const database = open().current;
        const store = new DocumentStore(database);
        const first = await insertBoard(database);
        const organizationId = (await database.prisma.board.findUniqueOrThrow({ where: { id: first } })).organizationId;
        const boards = [first, await insertBoard(database, organizationId), randomUUID()];
        // The third board's row does not exist until `create-late-board`: its documents come first.
        const existing = new Set(boards.slice(0, 2));
        const documents = [boards[0]!, `${boards[0]}/zones/${randomUUID()}`, boards[1]!, boards[2]!];
        for (const step of operations) {
          switch (step.kind) {
            case 'append':
              await store.append([{ name: documents[step.document]!, updates: step.sizes.map((size) => randomBytes(size)) }]);
              break;
            case 'compact': {
              const name = documents[step.document]!;
              await store.saveSnapshot(name, randomBytes(step.size), await store.lastSeq(name));
              break;
            }
            case 'repair': {
              const name = documents[step.document]!;
              await store.saveRepairedSnapshot(name, randomBytes(step.size), await store.lastSeq(name));
              break;
            }
            case 'delete-documents':
              await store.deleteBoardDocuments(boards[step.board]!);
              break;
            case 'create-late-board':
              if (!existing.has(boards[2]!)) await insertBoard(database, organizationId, boards[2]);
              existing.add(boards[2]!);
              break;
            case 'delete-board':
              await database.prisma.board.deleteMany({ where: { id: boards[step.board] } });
              existing.delete(boards[step.board]!);
              break;
          }
          for (const board of boards) {
            expect(await counted(database, board)).toBe(existing.has(board) ? await rowBytes(database, board) : null);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
}

forEachStoreAdapter('board storage', registerBoardStorage);
