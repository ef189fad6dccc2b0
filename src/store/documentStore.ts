import * as Y from 'yjs';
import { compactionThread } from './compactionThread.js';
import type { Database } from './database.js';
import { boardIdOfDocumentName } from './documentNames.js';
import type { AppendResult, DocumentAppend, StoredParts } from './updateLog.js';

/**
 * Durable Yjs state: an append-only update log plus compacted snapshots.
 * An update is durable once `append` resolved; a snapshot replaces the log rows it covers.
 */
export class DocumentStore {
  constructor(private readonly database: Database) {}

  /** The merged state of a document (snapshot plus log tail), or null if it has none. */
  async load(name: string): Promise<{ state: Uint8Array | null; lastSeq: number }> {
    const { parts, lastSeq } = await this.loadParts(name);
    if (parts.length === 0) return { state: null, lastSeq };
    return { state: parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts), lastSeq };
  }

  /** The stored parts of a document, unmerged: its snapshot (if any), then its log tail. */
  loadParts(name: string): Promise<StoredParts> {
    return this.database.updateLog.loadParts(name);
  }

  /**
   * A document's stored parts merged into one state, as a fresh document holding them all
   * (deleted content collected), and the last log row it covers: what a compaction stores.
   * Read through the driver and merged on a worker thread (compactionThread.ts).
   */
  async loadMerged(name: string): Promise<{ state: Uint8Array; lastSeq: number }> {
    const { parts, lastSeq } = await this.loadParts(name);
    return { state: await compactionThread.merge(parts), lastSeq };
  }

  /** The last log row a document's stored state covers (see UpdateLog.lastSeq). */
  lastSeq(name: string): Promise<number> {
    return this.database.updateLog.lastSeq(name);
  }

  /** Appends the updates of several documents in one transaction (a group commit). */
  append(batch: DocumentAppend[]): Promise<Map<string, AppendResult>> {
    return this.database.updateLog.append(batch);
  }

  /** Stores a compacted state covering every log row up to `uptoSeq`, and drops those rows. */
  async saveSnapshot(name: string, state: Uint8Array, uptoSeq: number): Promise<void> {
    const updatedAt = new Date();
    await this.database.prisma.$transaction([
      this.database.prisma.documentSnapshot.upsert({
        where: { name },
        create: { name, boardId: boardIdOfDocumentName(name), state: Buffer.from(state), uptoSeq, updatedAt },
        update: { state: Buffer.from(state), uptoSeq, updatedAt },
      }),
      this.database.prisma.documentUpdate.deleteMany({ where: { name, seq: { lte: uptoSeq } } }),
    ]);
  }

  /**
   * Compacts a document from what is stored, not from any instance's memory: its snapshot and
   * every log row, applied to a fresh document (so deleted content is garbage-collected),
   * become the new snapshot, and the rows it covers go. Several instances can hold one
   * document, each missing rows the others appended lately; a snapshot of one instance's
   * memory could drop those rows, this one cannot. Compactions of one document run one at a
   * time (an advisory lock on PostgreSQL; SQLite has one writer). The rows are merged on a
   * worker thread (compactionThread.ts): that is most of a compaction's CPU.
   */
  async compactStored(name: string): Promise<void> {
    await this.database.prisma.$transaction(
      async (tx) => {
        if (this.database.flavour === 'postgres') {
          await tx.$queryRawUnsafe('SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtextextended($1, 0))) AS lock', name);
        }
        const stored = await tx.documentSnapshot.findUnique({ where: { name }, select: { uptoSeq: true } });
        // After the lock.
        const { state: merged, lastSeq: uptoSeq } = await this.loadMerged(name);
        if (uptoSeq <= (stored?.uptoSeq ?? 0)) return;
        const state = Buffer.from(merged);
        const updatedAt = new Date();
        await tx.documentSnapshot.upsert({
          where: { name },
          create: { name, boardId: boardIdOfDocumentName(name), state, uptoSeq, updatedAt },
          update: { state, uptoSeq, updatedAt },
        });
        await tx.documentUpdate.deleteMany({ where: { name, seq: { lte: uptoSeq } } });
      },
      { timeout: 30_000 },
    );
  }

  /**
   * Stores a repaired state covering every log row up to `uptoSeq`, unless a snapshot reaching
   * further was stored meanwhile (by the live document, which holds those rows and was
   * repaired when it loaded): that one must not be replaced by an older state. Returns
   * whether the repaired state was stored.
   */
  async saveRepairedSnapshot(name: string, state: Uint8Array, uptoSeq: number): Promise<boolean> {
    const fields = { boardId: boardIdOfDocumentName(name), state: Buffer.from(state), uptoSeq, updatedAt: new Date() };
    try {
      return await this.database.prisma.$transaction(async (tx) => {
        const replaced = await tx.documentSnapshot.updateMany({ where: { name, uptoSeq: { lte: uptoSeq } }, data: fields });
        if (replaced.count === 0) {
          if (await tx.documentSnapshot.findUnique({ where: { name }, select: { name: true } })) return false;
          await tx.documentSnapshot.create({ data: { name, ...fields } });
        }
        await tx.documentUpdate.deleteMany({ where: { name, seq: { lte: uptoSeq } } });
        return true;
      });
    } catch (error) {
      // Another repair of the same document created the snapshot first: it stored the same state.
      if ((error as { code?: string }).code === 'P2002') return false;
      throw error;
    }
  }

  /** Deletes a board's document and every zone document under it. */
  async deleteBoardDocuments(boardId: string): Promise<void> {
    const names = { OR: [{ name: boardId }, { name: { startsWith: `${boardId}/` } }] };
    await this.database.prisma.$transaction([
      this.database.prisma.documentSnapshot.deleteMany({ where: names }),
      this.database.prisma.documentUpdate.deleteMany({ where: names }),
    ]);
  }
}
