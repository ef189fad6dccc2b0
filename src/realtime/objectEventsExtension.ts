import type { Extension, afterLoadDocumentPayload } from '@hocuspocus/server';
import type * as Y from 'yjs';
import { objectsOf, readObject } from '../boards/boardObjects.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import { contextOfOrigin, isBoardDocument } from './documentContext.js';
import type { UpdateJournal } from './updateJournal.js';

/**
 * Raises `object.*` events from the board document itself, so an object added over REST
 * or over a socket is reported once, the same way. Events are published only after the
 * change is durable: no event for an edit that could still be lost.
 */
export class ObjectEventsExtension implements Extension {
  extensionName = 'object-events';
  /** Per document, the chain of publishes still running, so writers can wait for them. */
  private readonly publishing = new Map<string, Promise<void>>();

  constructor(
    private readonly bus: EventBus,
    private readonly journal: UpdateJournal,
    private readonly logger: Logger,
  ) {}

  async afterLoadDocument({ document, documentName }: afterLoadDocumentPayload): Promise<void> {
    if (!isBoardDocument(documentName)) return;
    objectsOf(document).observe((event, transaction) => this.onObjectsChanged(documentName, event, transaction));
  }

  /** Resolves once the events of every change made so far to `documentName` are published. */
  settled(documentName: string): Promise<void> {
    return this.publishing.get(documentName) ?? Promise.resolve();
  }

  private onObjectsChanged(documentName: string, event: Y.YMapEvent<unknown>, transaction: Y.Transaction): void {
    const { organizationId } = contextOfOrigin(transaction.origin);
    const created: string[] = [];
    event.changes.keys.forEach((change, key) => {
      if (change.action === 'add') created.push(key);
    });
    if (created.length === 0 || !organizationId) return;
    const objects = created.map((id) => readObject(id, event.target.get(id))).filter((o) => o !== null);
    // The update reaches the journal right after observers run, in the same transaction
    // cleanup; waiting one microtask puts `whenDurable` behind it.
    const previous = this.settled(documentName);
    const next = previous
      .then(() => this.journal.whenDurable(documentName))
      .then(async () => {
        const version = this.journal.stateVersion(documentName) ?? 0;
        for (const object of objects) {
          await this.bus.publish('object.created', {
            board_id: documentName,
            organization_id: organizationId,
            object_id: object.id,
            object_type: object.type,
            object_data: object.data ?? {},
            version,
            created_by: object.created_by ?? null,
          });
        }
      })
      .catch((error) => this.logger.error({ err: error, board_id: documentName }, 'publishing object events failed'));
    this.publishing.set(documentName, next);
    void next.finally(() => {
      if (this.publishing.get(documentName) === next) this.publishing.delete(documentName);
    });
  }
}
