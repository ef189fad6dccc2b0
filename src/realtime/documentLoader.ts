import * as Y from 'yjs';
import type { Logger } from '../logger.js';
import { itemsOutOfBounds } from '../store/documentBounds.js';
import { repairInWorker } from '../store/documentRepair.js';
import type { DocumentStore } from '../store/documentStore.js';
import { boardIdOfDocument } from './documentContext.js';

/**
 * Thrown when a loaded copy held types nested too deep to delete on this stack: the stored
 * document was repaired instead, and loading it again is plain.
 */
export class StoredDocumentRepaired extends Error {
  constructor(readonly documentName: string) {
    super(`stored document ${documentName} was repaired; load it again`);
  }
}

/**
 * Brings stored documents into memory, and repairs the ones that hold content beyond the
 * document bounds (store/documentBounds.ts), stored before socket and REST values were
 * bounded. Such a document still loads, without that content, and is stored repaired, so
 * the next load is plain:
 * - a value too deep for this stack to decode makes applying the stored state throw
 *   RangeError before anything is integrated: a worker with a large stack repairs it;
 * - a deep value that decodes here (lib0's reader goes deeper once the JIT has optimized
 *   it) would still break every later reader: a scan after each load finds it, at a few
 *   percent of the load's time, and it is deleted in place (deleting a value does not
 *   recurse into it);
 * - a chain of types nested too deep would recurse through the whole chain when deleted:
 *   the worker repairs the stored document and this load fails once (StoredDocumentRepaired).
 */
export class DocumentLoader {
  /** Repairs in flight per document, so a load and a REST read share one worker. */
  private readonly repairs = new Map<string, Promise<{ state: Uint8Array; lastSeq: number }>>();

  constructor(
    private readonly store: DocumentStore,
    private readonly logger: Logger,
  ) {}

  /** Applies the stored state of `name` to the empty `doc`; returns the last log row it holds. */
  async loadInto(name: string, doc: Y.Doc): Promise<number> {
    let lastSeq: number;
    try {
      const loaded = await this.store.load(name);
      lastSeq = loaded.lastSeq;
      if (loaded.state) Y.applyUpdate(doc, loaded.state);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      const repaired = await this.repairStored(name);
      Y.applyUpdate(doc, repaired.state);
      return repaired.lastSeq;
    }
    await this.removeInPlace(name, doc, lastSeq);
    return lastSeq;
  }

  /** A new document holding the stored state of `name`. */
  async loadFresh(name: string): Promise<Y.Doc> {
    const doc = new Y.Doc();
    try {
      await this.loadInto(name, doc);
      return doc;
    } catch (error) {
      doc.destroy();
      if (!(error instanceof StoredDocumentRepaired)) throw error;
    }
    const repaired = new Y.Doc();
    await this.loadInto(name, repaired);
    return repaired;
  }

  private async removeInPlace(name: string, doc: Y.Doc, lastSeq: number): Promise<void> {
    const items = itemsOutOfBounds(doc);
    if (items.length === 0) return;
    if (items.some((item) => item.content instanceof Y.ContentType)) {
      await this.repairStored(name);
      throw new StoredDocumentRepaired(name);
    }
    // One transaction: Yjs garbage-collects the values before the state is encoded.
    doc.transact((transaction) => items.forEach((item) => item.delete(transaction)));
    await this.store.saveRepairedSnapshot(name, Y.encodeStateAsUpdate(doc), lastSeq);
    this.logRepair(name, items.length);
  }

  private repairStored(name: string): Promise<{ state: Uint8Array; lastSeq: number }> {
    let repair = this.repairs.get(name);
    if (!repair) {
      repair = (async () => {
        const { parts, lastSeq } = await this.store.loadParts(name);
        const { state, removed } = await repairInWorker(parts);
        await this.store.saveRepairedSnapshot(name, state, lastSeq);
        this.logRepair(name, removed);
        return { state, lastSeq };
      })().finally(() => this.repairs.delete(name));
      this.repairs.set(name, repair);
    }
    return repair;
  }

  private logRepair(name: string, removed: number): void {
    this.logger.warn(
      { board_id: boardIdOfDocument(name), document: name, removed_values: removed },
      'stored document held values beyond the JSON bounds; removed them and stored the repaired document',
    );
  }
}
