import type { Extension, beforeSyncPayload } from '@hocuspocus/server';
import * as Y from 'yjs';
import { objectsOf, readObject, type BoardObject } from '../boards/boardObjects.js';
import { frameIdOfDocument } from '../frames/frame.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import { isForbiddenWrite, type WriteTarget } from '../frames/writeRules.js';
import { boardIdOfDocument } from './documentContext.js';
import type { SocketContext } from './socketContext.js';
import { touchedObjects, type Point } from './updateInspector.js';
import { viewerOf } from './zoneSync.js';

/** y-protocols sync step 1 carries a state vector, not changes. */
const SYNC_STEP_1 = 0;

/**
 * Checks every change a socket sends before anyone else sees it. A change to an object the
 * sender may not touch (see frames/writeRules.ts) is applied and undone in one transaction:
 * the forbidden content is garbage-collected before the transaction's update is encoded, so
 * other clients and the store receive only tombstones and the restored values, and the
 * sender receives the undo and converges back. The check costs time in proportion to the
 * update (touchedObjects), never to the document.
 */
export class WriteCheckExtension implements Extension {
  extensionName = 'write-check';

  constructor(private readonly frames: FrameDirectory) {}

  async beforeSync({ connection, document, documentName, type, payload }: beforeSyncPayload): Promise<void> {
    if (type === SYNC_STEP_1 || connection.readOnly) return;
    const viewer = viewerOf(connection.context as SocketContext);
    if (!viewer || viewer.role === 'host') return;
    const touched = touchedObjects(document, payload);
    if (touched.size === 0) return;
    const target = await this.targetOf(documentName);
    if (!target) return;
    const objects = objectsOf(document);
    const forbidden = new Map<string, BoardObject | null>();
    for (const change of touched.values()) {
      const current = objects.has(change.id) ? readObject(change.id, objects.get(change.id)) : null;
      const before = current?.position ?? null;
      const after = change.deleted ? null : (change.position ?? withCoordinates(before, change.coordinates));
      if (isForbiddenWrite(viewer, target, { before, after })) forbidden.set(change.id, current);
    }
    if (forbidden.size === 0) return;
    document.transact((transaction) => {
      Y.applyUpdate(document, payload);
      // Applying a remote update marks the transaction remote; the undo below is the server's
      // own change, and left remote Yjs would take it for a client-id clash and re-key the document.
      transaction.local = true;
      for (const [id, previous] of forbidden) restore(objects, id, previous);
    }, { source: 'connection', connection });
    connection.sendStateless(JSON.stringify({ type: 'write-rejected', object_ids: [...forbidden.keys()], reason: 'zone-permissions' }));
  }

  private async targetOf(documentName: string): Promise<WriteTarget | null> {
    const frames = await this.frames.cachedFramesOfBoard(boardIdOfDocument(documentName));
    const frameId = frameIdOfDocument(documentName);
    if (!frameId) return { kind: 'board', zones: frames };
    const frame = frames.find((candidate) => candidate.id === frameId);
    return frame ? { kind: 'zone', frame } : null;
  }
}

/** A position with the coordinates an update wrote into its nested position map, if any. */
function withCoordinates(position: Point | null, coordinates: Partial<Point> | undefined): Point | null {
  return coordinates ? ({ ...position, ...coordinates } as Point) : position;
}

/** Puts an object back as it was (or removes it if it did not exist). */
function restore(objects: Y.Map<unknown>, id: string, previous: BoardObject | null): void {
  if (!previous) {
    objects.delete(id);
    return;
  }
  const current = objects.get(id);
  if (!(current instanceof Y.Map)) {
    objects.set(id, new Y.Map<unknown>(Object.entries(previous).filter(([, value]) => value !== undefined)));
    return;
  }
  const fields = previous as unknown as Record<string, unknown>;
  for (const key of [...current.keys()]) if (!(key in fields)) current.delete(key);
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && JSON.stringify(current.get(key)) !== JSON.stringify(value)) current.set(key, value);
  }
}
