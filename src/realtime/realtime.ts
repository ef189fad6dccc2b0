import { Hocuspocus } from '@hocuspocus/server';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { Database } from '../store/database.js';
import { DocumentStore } from '../store/documentStore.js';
import { BoardDocuments } from './boardDocuments.js';
import { ObjectEventsExtension } from './objectEventsExtension.js';
import { PersistenceExtension } from './persistenceExtension.js';
import { UpdateJournal } from './updateJournal.js';

/** How long shutdown waits for loaded documents to compact and unload. */
const SHUTDOWN_UNLOAD_TIMEOUT_MS = 5_000;

export interface RealtimeDependencies {
  database: Database;
  bus: EventBus;
  logger: Logger;
}

/** The realtime side of the service, seen from the outside. */
export interface Realtime {
  documents: BoardDocuments;
  hocuspocus: Hocuspocus;
  close(): Promise<void>;
}

/**
 * Composition root of the realtime side: the Hocuspocus engine and its extensions, one
 * per concern. Multi-instance mode will only add extensions to this list.
 */
export function createRealtime({ database, bus, logger }: RealtimeDependencies): Realtime {
  const log = logger.child({ component: 'realtime' });
  const store = new DocumentStore(database);
  const journal = new UpdateJournal(store, log);
  const persistence = new PersistenceExtension(store, journal, log);
  const objectEvents = new ObjectEventsExtension(bus, journal, log);
  const hocuspocus = new Hocuspocus({
    quiet: true,
    debounce: 2_000,
    maxDebounce: 10_000,
    extensions: [persistence, objectEvents],
  });
  const documents = new BoardDocuments(hocuspocus, store, journal, persistence, objectEvents);

  async function close(): Promise<void> {
    hocuspocus.closeConnections();
    hocuspocus.flushPendingStores();
    const deadline = Date.now() + SHUTDOWN_UNLOAD_TIMEOUT_MS;
    while (hocuspocus.getDocumentsCount() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await journal.close();
  }

  return { documents, hocuspocus, close };
}
