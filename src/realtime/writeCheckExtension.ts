import type { Extension, beforeSyncPayload } from '@hocuspocus/server';
import * as Y from 'yjs';
import { objectsOf, readObject, type BoardObject } from '../boards/boardObjects.js';
import type { FieldError } from '../errors.js';
import { frameIdOfDocument } from '../frames/frame.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import { isForbiddenWrite, type WriteTarget } from '../frames/writeRules.js';
import { boardIdOfDocument } from './documentContext.js';
import type { SocketContext } from './socketContext.js';
import { touchedObjects, type Point, type TouchedObject } from './updateInspector.js';
import { viewerOf } from './viewer.js';

/** y-protocols sync step 1 carries a state vector, not changes. */
const SYNC_STEP_1 = 0;

/** Most `details` one `write-rejected` message lists. */
const MAX_REJECTION_DETAILS = 20;

/** The rules every object written over a socket must pass, whoever writes it (objectTypes/). */
export interface SocketObjectRules {
  /**
   * A synchronous check of objects against the organization's rules as they stand now, or
   * null when nothing these updates write can break them (most updates: the check then costs
   * no second application of the update).
   */
  checkerFor(organizationId: string, updates: Uint8Array[]): Promise<((object: unknown) => FieldError[]) | null>;
}

/**
 * Checks every change a socket sends before anyone else sees it. A change to an object the
 * sender may not touch (see frames/writeRules.ts; guests only), or that leaves an object
 * breaking the object rules (custom object types; every writer, hosts included), is applied
 * and undone in one transaction: the refused content is garbage-collected before the
 * transaction's update is encoded, so other clients and the store receive only tombstones
 * and the restored values, and the sender receives the undo and converges back. The check
 * costs time in proportion to the update and the objects it touches (touchedObjects), never
 * to the document.
 */
export class WriteCheckExtension implements Extension {
  extensionName = 'write-check';

  constructor(
    private readonly frames: FrameDirectory,
    private readonly objectRules: SocketObjectRules,
  ) {}

  async beforeSync({ connection, document, documentName, type, payload }: beforeSyncPayload): Promise<void> {
    if (type === SYNC_STEP_1 || connection.readOnly) return;
    const touched = touchedObjects(document, payload);
    if (touched.size === 0 && !document.store.pendingStructs && !document.store.pendingDs) return;
    const context = connection.context as SocketContext;
    const viewer = viewerOf(context);
    const target = viewer && viewer.role !== 'host' ? await this.targetOf(documentName) : null;
    const { pendingStructs, pendingDs } = document.store;
    const updates = [payload, ...(pendingStructs ? [pendingStructs.update] : []), ...(pendingDs ? [pendingDs] : [])];
    const check = await this.objectRules.checkerFor(context.organizationId ?? context.grant?.board.organizationId ?? '', updates);
    // Nothing is awaited from here on: the objects read below are the ones the update applies to.
    addWaitingStructs(document, touched);
    if (touched.size === 0) return;
    const objects = objectsOf(document);
    const previous = new Map<string, BoardObject | null>();
    const forbidden = new Set<string>();
    for (const change of touched.values()) {
      const current = objects.has(change.id) ? readObject(change.id, objects.get(change.id)) : null;
      previous.set(change.id, current);
      const before = current?.position ?? null;
      const after = change.deleted ? null : (change.position ?? withCoordinates(before, change.coordinates));
      if (viewer && target && isForbiddenWrite(viewer, target, { before, after })) forbidden.add(change.id);
    }
    if (forbidden.size === 0 && !check) return;
    const invalid = new Map<string, FieldError[]>();
    document.transact((transaction) => {
      Y.applyUpdate(document, payload);
      for (const id of touched.keys()) {
        if (!check || forbidden.has(id) || !objects.has(id)) continue;
        const problems = problemsOf(check, objects.get(id));
        if (problems.length > 0) invalid.set(id, problems);
      }
      if (forbidden.size === 0 && invalid.size === 0) return;
      // Applying a remote update marks the transaction remote; the undo below is the server's
      // own change, and left remote Yjs would take it for a client-id clash and re-key the document.
      transaction.local = true;
      for (const id of [...forbidden, ...invalid.keys()]) restore(objects, id, previous.get(id) ?? null);
    }, { source: 'connection', connection });
    if (forbidden.size > 0) connection.sendStateless(JSON.stringify({ type: 'write-rejected', object_ids: [...forbidden], reason: 'zone-permissions' }));
    if (invalid.size > 0) connection.sendStateless(JSON.stringify(invalidObjectsMessage(invalid)));
  }

  private async targetOf(documentName: string): Promise<WriteTarget | null> {
    const frames = await this.frames.cachedFramesOfBoard(boardIdOfDocument(documentName));
    const frameId = frameIdOfDocument(documentName);
    if (!frameId) return { kind: 'board', zones: frames };
    const frame = frames.find((candidate) => candidate.id === frameId);
    return frame ? { kind: 'zone', frame } : null;
  }
}

/**
 * Structs of earlier updates that still wait in the store for what they depend on are
 * integrated by the update that brings it: the objects they touch are checked with that one.
 */
function addWaitingStructs(document: Y.Doc, touched: Map<string, TouchedObject>): void {
  for (const waiting of [document.store.pendingStructs?.update, document.store.pendingDs]) {
    if (!waiting) continue;
    // Yjs keeps them in the v2 update encoding.
    for (const [id, change] of touchedObjects(document, Y.convertUpdateFormatV2ToV1(waiting))) if (!touched.has(id)) touched.set(id, change);
  }
}

/** Runs inside the transaction: a check that fails refuses the object rather than letting it through. */
function problemsOf(check: (object: unknown) => FieldError[], object: unknown): FieldError[] {
  try {
    return check(object);
  } catch {
    return [{ field: '(object)', message: 'could not be checked' }];
  }
}

function invalidObjectsMessage(invalid: Map<string, FieldError[]>) {
  const details = [...invalid].flatMap(([objectId, problems]) => problems.map((problem) => ({ object_id: objectId, ...problem })));
  return { type: 'write-rejected', object_ids: [...invalid.keys()], reason: 'invalid-object', details: details.slice(0, MAX_REJECTION_DETAILS) };
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
