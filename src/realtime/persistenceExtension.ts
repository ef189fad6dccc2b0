import { Database } from '@hocuspocus/extension-database';
import { isTransactionOrigin, type Extension, type afterLoadDocumentPayload } from '@hocuspocus/server';
import type * as Y from 'yjs';
import { objectsOf } from '../boards/boardObjects.js';
import type { Logger } from '../logger.js';
import type { DocumentStore } from '../store/documentStore.js';
import { SerialQueue } from '../util/keyedQueue.js';
import { boardIdOfDocument } from './documentContext.js';
import { DocumentLoader } from './documentLoader.js';
import type { UpdateJournal } from './updateJournal.js';

/** Transaction meta key: the promise of the state version the transaction's update made once committed. */
const COMMITTED_VERSION = Symbol('committed state version');

/**
 * Resolves, once a transaction's update is committed, with the board `state.version` it made;
 * undefined if the update was not journaled (a document being deleted, or another instance's).
 * Readable once the transaction's cleanup is over (its `update` listeners ran), not in observers.
 */
export async function committedVersionOf(transaction: Y.Transaction): Promise<number | undefined> {
  return (transaction.meta.get(COMMITTED_VERSION) as Promise<number | undefined> | undefined) ?? undefined;
}

/**
 * Persistence in two layers:
 * - every update is appended to the update log the moment it is applied (UpdateJournal),
 *   so an acknowledged update survives `kill -9`;
 * - Hocuspocus' debounced `onStoreDocument` (through @hocuspocus/extension-database)
 *   writes a compacted snapshot and drops the log rows it covers.
 * A document that fails to load throws, so Hocuspocus refuses its connections instead of
 * serving (and later storing) an empty document; one that holds values beyond the bounds
 * loads without them (DocumentLoader).
 */
/** Log rows a live document may gather before it is compacted into a snapshot. */
const COMPACT_AFTER_UPDATES = 500;

/**
 * Writes a document's snapshot, given its live state and the last log row that state is known
 * to hold: from that state when this instance alone writes the document, from the store when
 * several instances do (DocumentStore.compactStored). The instance mode chooses.
 */
export type SnapshotWriter = (store: DocumentStore, name: string, state: Uint8Array, uptoSeq: number) => Promise<void>;

/** What persistence tells observability (metrics) of document loads; nothing by default. */
export interface DocumentLoadObserver {
  /** A document's load from the store took `durationMs` and ended as `outcome`. */
  documentLoaded(durationMs: number, outcome: 'loaded' | 'failed'): void;
}

const LOADS_NOT_OBSERVED: DocumentLoadObserver = { documentLoaded: () => undefined };

/** The snapshot of the one instance that holds every update of its documents. */
export const snapshotFromMemory: SnapshotWriter = (store, name, state, uptoSeq) => store.saveSnapshot(name, state, uptoSeq);

export class PersistenceExtension implements Extension {
  extensionName = 'persistence';
  /** Runs before extensions that read the loaded document. */
  priority = 200;
  private readonly database: Database;
  private readonly loader: DocumentLoader;
  /** Documents being deleted: nothing more is written for them. */
  private readonly deleting = new Set<string>();
  /** Updates logged per document since its last snapshot. */
  private readonly uncompacted = new Map<string, number>();
  /**
   * Compactions run one at a time, each in a turn of its own. Boards under the same load reach
   * the threshold together (Hocuspocus stores each every 10 s while it changes), and twenty
   * compactions back to back held the event loop for 200–300 ms at 1,000 clients.
   */
  private readonly compactions = new SerialQueue();

  constructor(
    private readonly store: DocumentStore,
    private readonly journal: UpdateJournal,
    private readonly logger: Logger,
    writeSnapshot: SnapshotWriter = snapshotFromMemory,
    private readonly loads: DocumentLoadObserver = LOADS_NOT_OBSERVED,
  ) {
    this.loader = new DocumentLoader(store, logger);
    this.database = new Database({
      store: async ({ documentName, state }) => {
        if (this.deleting.has(documentName)) return;
        // Read the watermark now: `state` was encoded in this same tick, so it holds every committed row.
        const uptoSeq = this.journal.lastCommittedSeq(documentName);
        try {
          await writeSnapshot(this.store, documentName, state, uptoSeq);
        } catch (error) {
          // Every update is already in the update log, so a failed compaction loses nothing.
          // Not rethrowing lets Hocuspocus unload the document instead of keeping it in memory
          // forever (a document whose store throws is never unloaded); the next store compacts instead.
          this.logger.error({ err: error, document: documentName }, 'snapshot failed; the update log still holds every change');
        }
      },
    });
  }

  onLoadDocument: Extension['onLoadDocument'] = async ({ document, documentName }) => {
    const started = performance.now();
    try {
      // A previous instance of this document may have unloaded with updates still waiting
      // for their commit; loading before they land would serve (and later store) less.
      await this.journal.whenDurable(documentName);
      this.journal.noteLoaded(documentName, await this.loader.loadInto(documentName, document));
    } catch (error) {
      this.loads.documentLoaded(performance.now() - started, 'failed');
      throw error;
    }
    this.loads.documentLoaded(performance.now() - started, 'loaded');
  };

  /** A new document holding the durable state of a document that is not loaded (REST reads). */
  loadStored(documentName: string): Promise<Y.Doc> {
    return this.loader.loadFresh(documentName);
  }

  /**
   * Compacts a document that is being left (no connections) or whose log tail has grown
   * past COMPACT_AFTER_UPDATES. Every update is durable in the log already, so compacting
   * on Hocuspocus' 2 s / 10 s debounce would only spend CPU: encoding whole documents in
   * bursts stalled fan-out (p99 over 200 ms at 1,000 clients).
   */
  onStoreDocument: Extension['onStoreDocument'] = async (payload) => {
    const pending = this.uncompacted.get(payload.documentName) ?? 0;
    // Connections now, not when the store was scheduled: the last one may have just left.
    if (payload.document.getConnectionsCount() > 0 && pending < COMPACT_AFTER_UPDATES) return;
    await this.compactions.run(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await this.database.onStoreDocument(payload);
    });
    const now = this.uncompacted.get(payload.documentName) ?? 0;
    if (now - pending > 0) this.uncompacted.set(payload.documentName, now - pending);
    else this.uncompacted.delete(payload.documentName);
  };

  async afterLoadDocument({ document, documentName }: afterLoadDocumentPayload): Promise<void> {
    // A plain 'update' listener runs synchronously at the end of each transaction, so the
    // update is in the journal before the code that made it can ask whether it is durable.
    const objectsCount = countObjects(document);
    document.on('update', (update: Uint8Array, origin: unknown, _doc: Y.Doc, transaction: Y.Transaction) => {
      if (this.deleting.has(documentName)) return;
      // Another instance received it and persists it (multi-instance mode).
      if (isTransactionOrigin(origin) && origin.source === 'redis') return;
      // Every document of a board moves the board's version and keeps its own object count (the board's or its frame's).
      const board = { id: boardIdOfDocument(documentName), objectsCount: objectsCount() };
      transaction.meta.set(COMMITTED_VERSION, this.journal.record(documentName, update, board));
      this.uncompacted.set(documentName, (this.uncompacted.get(documentName) ?? 0) + 1);
    });
  }

  /** Stops all writes for a document that is being deleted. */
  markDeleting(documentName: string): void {
    this.deleting.add(documentName);
    this.journal.forget(documentName);
  }

  /** Lets a name be used again once its deletion has finished and the document is unloaded. */
  async afterUnloadDocument({ documentName }: { documentName: string }): Promise<void> {
    this.deleting.delete(documentName);
    this.uncompacted.delete(documentName);
    this.logger.debug({ document: documentName }, 'document unloaded');
  }
}

/**
 * The number of objects of a document (a board's or a zone's), kept up to date from the objects
 * map's own changes: `Y.Map.size` walks every entry, and it was read on every update. The map's
 * observers run before the document's 'update' listeners, so the count is current there.
 */
function countObjects(document: Y.Doc): () => number {
  const objects = objectsOf(document);
  let count = objects.size;
  objects.observe((event) => {
    for (const { action } of event.changes.keys.values()) count += action === 'add' ? 1 : action === 'delete' ? -1 : 0;
  });
  return () => count;
}
