import type { Extension, afterLoadDocumentPayload } from '@hocuspocus/server';
import type * as Y from 'yjs';
import { objectsOf, readObject, readObjects, type BoardObject } from '../boards/boardObjects.js';
import type { ChangeCause } from '../boards/ports.js';
import type { EventBus } from '../events/bus.js';
import type { EventName } from '../events/types.js';
import type { Logger } from '../logger.js';
import { frameIdOfDocument } from '../store/documentNames.js';
import { boardIdOfDocument, contextOfOrigin } from './documentContext.js';
import { KeyedQueue } from '../util/keyedQueue.js';
import { committedVersionOf } from './persistenceExtension.js';

/** One object's change within one transaction. */
type ObjectChange =
  | { kind: 'created'; after: BoardObject }
  | { kind: 'updated'; before: BoardObject; after: BoardObject }
  | { kind: 'deleted'; before: BoardObject };

const EVENT_NAMES = { created: 'object.created', updated: 'object.updated', deleted: 'object.deleted' } as const satisfies Record<ObjectChange['kind'], EventName>;

/**
 * Raises `object.created`, `object.updated` and `object.deleted` from the board's documents
 * themselves (its own and its zones', the latter with `zone_id`), once per changed object per
 * transaction, whether the change came over REST or a socket, attributed to whoever made it.
 * Events are published only after the change is durable: no event for an edit that could
 * still be lost. Content the server relocates (into a zone's document when a zone comes to
 * cover it) was neither created nor deleted, and raises nothing. An event no listener would
 * act on (EventBus.isWanted) is not built at all.
 */
export class ObjectEventsExtension implements Extension {
  extensionName = 'object-events';
  /** Per document, the publishes still running, in order, so writers can wait for them. */
  private readonly publishing = new KeyedQueue<string>();

  constructor(
    private readonly bus: EventBus,
    private readonly logger: Logger,
  ) {}

  async afterLoadDocument({ document, documentName }: afterLoadDocumentPayload): Promise<void> {
    // The last known state of every object: a deleted Y.Map no longer holds its fields,
    // and `changes.before` needs the whole previous object.
    const known = new Map(readObjects(document).map((object) => [object.id, object]));
    objectsOf(document).observeDeep((events, transaction) => {
      const changes = collectChanges(events, known);
      if (changes.length > 0) this.publish(documentName, changes, transaction);
    });
  }

  /** Resolves once the events of every change made so far to `documentName` are published. */
  settled(documentName: string): Promise<void> {
    return this.publishing.idle(documentName);
  }

  private publish(documentName: string, changes: ObjectChange[], transaction: Y.Transaction): void {
    const { organizationId, userId = null, relocation, cause } = contextOfOrigin(transaction.origin);

    if (!organizationId || relocation) return;
    const boardId = boardIdOfDocument(documentName);
    // Every socket edit raises one: most boards have no webhook target or agent trigger that takes it.
    const wanted = changes.filter((change) => this.bus.isWanted(EVENT_NAMES[change.kind], { boardId, organizationId }));
    if (wanted.length === 0) return;
    const zoneId = frameIdOfDocument(documentName);
    const scope = { board_id: boardId, organization_id: organizationId, ...(zoneId ? { zone_id: zoneId } : {}) };
    // The update reaches the journal right after observers run, in the same transaction
    // cleanup; a queued task starts from a promise callback, so it reads the commit only after
    // that (even on an idle queue). The version is the one
    // this transaction's update made, not whatever was committed by the time it is read.
    void this.publishing
      .run(documentName, async () => {
        const version = await committedVersionOf(transaction);
        // Never journaled (its document is being deleted): not durable, so no event.
        if (version === undefined) return;
        for (const change of wanted) await this.publishChange(scope, change, version, userId, cause);
      })
      .catch((error) => this.logger.error({ err: error, board_id: documentName }, 'publishing object events failed'));
  }

  private async publishChange(
    scope: { board_id: string; organization_id: string; zone_id?: string },
    change: ObjectChange,
    version: number,
    userId: string | null,
    cause: ChangeCause | undefined,
  ) {
    const meta = { cause, object: change.kind === 'deleted' ? change.before : change.after };
    switch (change.kind) {
      case 'created':
        return this.bus.publish('object.created', {
          ...scope,
          object_id: change.after.id,
          object_type: change.after.type,
          object_data: change.after.data ?? {},
          version,
          created_by: change.after.created_by ?? userId,
        }, meta);
      case 'updated':
        return this.bus.publish('object.updated', {
          ...scope,
          object_id: change.after.id,
          object_type: change.after.type,
          changes: diff(change.before, change.after),
          version,
          updated_by: userId,
        }, meta);
      case 'deleted':
        return this.bus.publish('object.deleted', {
          ...scope,
          object_id: change.before.id,
          object_type: change.before.type,
          object_data: change.before.data ?? {},
          version,
          deleted_by: userId,
        }, meta);
    }
  }
}

/** The objects a transaction touched, against (and updating) the last known states. */
function collectChanges(events: ReadonlyArray<Y.YEvent<Y.AbstractType<unknown>>>, known: Map<string, BoardObject>): ObjectChange[] {
  const touched = new Set<string>();
  for (const event of events) {
    if (event.path.length === 0) event.changes.keys.forEach((_change, key) => touched.add(key));
    else touched.add(String(event.path[0]));
  }
  const objects = events[0]!.currentTarget as Y.Map<unknown>;
  const changes: ObjectChange[] = [];
  for (const id of touched) {
    const before = known.get(id);
    const after = objects.has(id) ? readObject(id, objects.get(id)) : null;
    if (after) known.set(id, after);
    else known.delete(id);
    if (!before && after) changes.push({ kind: 'created', after });
    else if (before && !after) changes.push({ kind: 'deleted', before });
    else if (before && after && JSON.stringify(before) !== JSON.stringify(after)) changes.push({ kind: 'updated', before, after });
  }
  return changes;
}

/** The fields that differ, before and after (`changes{before, after}` of object.updated). */
function diff(before: BoardObject, after: BoardObject): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const result = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const key of keys) {
    const b = (before as unknown as Record<string, unknown>)[key];
    const a = (after as unknown as Record<string, unknown>)[key];
    if (JSON.stringify(b) !== JSON.stringify(a)) {
      result.before[key] = b;
      result.after[key] = a;
    }
  }
  return result;
}
