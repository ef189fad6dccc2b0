import type { Extension, beforeSyncPayload } from '@hocuspocus/server';
import * as Y from 'yjs';
import { objectsOf, readObject, type BoardObject } from '../boards/boardObjects.js';
import type { FieldError } from '../errors.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import { isForbiddenWrite, type Point, type WriteTarget } from '../frames/writeRules.js';
import { writeTargetOfDocument } from '../frames/zonePlacement.js';
import type { Viewer } from '../frames/zonePermissions.js';
import { MAX_TYPE_LEVEL, nestsDeeperThan } from '../store/documentBounds.js';
import { FREE_JSON_LIMITS } from '../util/jsonBounds.js';
import { CloseEvents } from './closeEvents.js';
import { boardIdOfDocument } from './documentContext.js';
import type { WriteRejected } from './messages.js';
import type { SocketContext } from './socketContext.js';
import { sendServerMessage } from './socketMessenger.js';
import { inspectUpdate, type OutOfBoundsContent, type TouchedObject, type UpdateInspection } from './updateInspector.js';
import { viewerOf } from './viewer.js';

/** y-protocols sync step 1 carries a state vector, not changes. */
const SYNC_STEP_1 = 0;

/** Most `details` one `write-rejected` message lists. */
const MAX_REJECTION_DETAILS = 20;

/** The rules every object written over a socket must pass, whoever writes it (objectTypes/). */
export interface SocketObjectRules {
  /**
   * A synchronous check of objects (after the write, against what each was) by the rules as
   * they stand now, or null when nothing these updates write can break them (most updates: the
   * check then costs no second application of the update). `current` are the objects the
   * updates touch, as they are before them.
   */
  checkerFor(organizationId: string, updates: Uint8Array[], current: readonly unknown[], role: 'host' | 'guest'): Promise<((object: unknown, previous: unknown) => FieldError[]) | null>;
}

/**
 * Checks every change a socket sends before anyone else sees it. A change to an object the
 * sender may not touch (see frames/writeRules.ts: zones, and locks: a guest's change to a
 * locked object, or a guest locking or unlocking one), a value beyond the bounds of free-form
 * JSON (util/jsonBounds.ts; every writer), or a change that leaves an object breaking the
 * object rules (custom object types; every writer, hosts included) is applied and undone in
 * one transaction: the refused content is garbage-collected before the transaction's update
 * is encoded, so other clients and the store receive only tombstones and the restored
 * values, and the sender receives the undo and converges back. An update that cannot even
 * be taken apart safely (too deep to decode, or types nested too deep to undo) is not
 * applied at all, and the socket is closed. The check costs time in proportion to the update
 * and the objects it touches (inspectUpdate), never to the document.
 */
export class WriteCheckExtension implements Extension {
  extensionName = 'write-check';

  constructor(
    private readonly frames: FrameDirectory,
    private readonly objectRules: SocketObjectRules,
  ) {}

  async beforeSync({ connection, document, documentName, type, payload }: beforeSyncPayload): Promise<void> {
    if (type === SYNC_STEP_1 || connection.readOnly) return;
    const context = connection.context as SocketContext;
    const inspection = inspectOrRefuse(document, payload, context);
    const { touched, outOfBounds } = inspection;
    if (touched.size === 0 && outOfBounds.length === 0 && !document.store.pendingStructs && !document.store.pendingDs) return;
    const viewer = viewerOf(context);
    // Hosts too: writeRules decides who may write where (the zone areas of the board document).
    const target = viewer ? await this.targetOf(documentName) : null;
    const { pendingStructs, pendingDs } = document.store;
    const updates = [payload, ...(pendingStructs ? [pendingStructs.update] : []), ...(pendingDs ? [pendingDs] : [])];
    const objects = objectsOf(document);
    const current = [...touched.keys()].flatMap((id) => (objects.has(id) ? [objects.get(id)] : []));
    const organizationId = context.organizationId ?? context.grant?.board.organizationId ?? '';
    const check = await this.objectRules.checkerFor(organizationId, updates, current, viewer?.role ?? 'host');
    // Nothing is awaited from here on: the objects read below are the ones the update applies to.
    addWaitingStructs(document, inspection, context);
    if (touched.size === 0 && outOfBounds.length === 0) return;
    const previous = new Map<string, BoardObject | null>();
    const forbidden = new Map<string, ForbiddenReason>();
    const withRefusedValues = new Set(outOfBounds.flatMap(({ objectId }) => (objectId === null ? [] : [objectId])));
    for (const change of touched.values()) {
      const current = objects.has(change.id) ? readObject(change.id, objects.get(change.id)) : null;
      previous.set(change.id, current);
      const reason = viewer && target ? forbiddenReason(viewer, target, change, current) : null;
      if (reason) forbidden.set(change.id, reason);
    }
    if (forbidden.size === 0 && outOfBounds.length === 0 && !check) return;
    const invalid = new Map<string, FieldError[]>();
    document.transact((transaction) => {
      Y.applyUpdate(document, payload);
      for (const id of touched.keys()) {
        if (!check || forbidden.has(id) || withRefusedValues.has(id) || !objects.has(id)) continue;
        const problems = problemsOf(check, objects.get(id), previous.get(id) ?? null);
        if (problems.length > 0) invalid.set(id, problems);
      }
      if (forbidden.size === 0 && invalid.size === 0 && outOfBounds.length === 0) return;
      // Applying a remote update marks the transaction remote; the undo below is the server's
      // own change, and left remote Yjs would take it for a client-id clash and re-key the document.
      transaction.local = true;
      for (const id of new Set([...forbidden.keys(), ...invalid.keys(), ...withRefusedValues])) restore(objects, id, previous.get(id) ?? null);
      // Whatever restoring left in place (content outside the objects map) goes too.
      deleteApplied(document, transaction, outOfBounds);
    }, { source: 'connection', connection });
    for (const reason of new Set(forbidden.values())) {
      const objectIds = [...forbidden].flatMap(([id, forbiddenBy]) => (forbiddenBy === reason ? [id] : []));
      sendServerMessage(connection, { type: 'write-rejected', object_ids: objectIds, reason });
    }
    if (invalid.size > 0) sendServerMessage(connection, invalidObjectsMessage(invalid));
    if (outOfBounds.length > 0) sendServerMessage(connection, invalidValuesMessage(outOfBounds));
  }

  /** The document's write target as REST object calls find it (frames/zonePlacement.ts). */
  private async targetOf(documentName: string): Promise<WriteTarget | null> {
    return writeTargetOfDocument(documentName, await this.frames.cachedFramesOfBoard(boardIdOfDocument(documentName)));
  }
}

/**
 * An update's inspection, or the socket closed and the update refused whole, before any of
 * it is applied: an update holding a value too deep for lib0 to decode (RangeError), nesting
 * Yjs types deeper than the bounds (undoing those would recurse as deep), or writing where
 * only the server writes (component storage: no client of ours ever does).
 */
function inspectOrRefuse(document: Y.Doc, update: Uint8Array, context: SocketContext): UpdateInspection {
  let inspection: UpdateInspection;
  try {
    inspection = inspectUpdate(document, update);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return refuseUpdate(context);
  }
  return inspection.nestsTypesTooDeep || inspection.writesServerOwned ? refuseUpdate(context) : inspection;
}

function refuseUpdate(context: SocketContext): never {
  context.closeSocket(CloseEvents.InvalidUpdate);
  // Hocuspocus drops a message whose beforeSync throws, and closes the connection with the code thrown.
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- Hocuspocus reads `code` and `reason` off the thrown value
  throw { ...CloseEvents.InvalidUpdate };
}

/**
 * Structs of earlier updates that still wait in the store for what they depend on are
 * integrated by the update that brings it: what they touch and hold is checked with that one.
 */
function addWaitingStructs(document: Y.Doc, inspection: UpdateInspection, context: SocketContext): void {
  for (const waiting of [document.store.pendingStructs?.update, document.store.pendingDs]) {
    if (!waiting) continue;
    // Yjs keeps them in the v2 update encoding.
    const found = inspectOrRefuse(document, Y.convertUpdateFormatV2ToV1(waiting), context);
    for (const [id, change] of found.touched) if (!inspection.touched.has(id)) inspection.touched.set(id, change);
    inspection.outOfBounds.push(...found.outOfBounds);
  }
}

/** Deletes the structs of refused content that the update integrated (content still waiting is checked when it lands). */
function deleteApplied(document: Y.Doc, transaction: Y.Transaction, refused: OutOfBoundsContent[]): void {
  for (const { id, length } of refused) {
    const structs = document.store.clients.get(id.client);
    if (!structs || id.clock >= Y.getState(document.store, id.client)) continue;
    for (let index = Y.findIndexSS(structs, id.clock); index < structs.length; index += 1) {
      const struct = structs[index]!;
      if (struct.id.clock >= id.clock + length) break;
      if (struct instanceof Y.Item && !struct.deleted) struct.delete(transaction);
    }
  }
}

/** Runs inside the transaction: a check that fails refuses the object rather than letting it through. */
function problemsOf(check: (object: unknown, previous: unknown) => FieldError[], object: unknown, previous: unknown): FieldError[] {
  try {
    return check(object, previous);
  } catch {
    return [{ field: '(object)', message: 'could not be checked' }];
  }
}

function invalidObjectsMessage(invalid: Map<string, FieldError[]>): WriteRejected {
  const details = [...invalid].flatMap(([objectId, problems]) => problems.map((problem) => ({ object_id: objectId, ...problem })));
  return { type: 'write-rejected', object_ids: [...invalid.keys()], reason: 'invalid-object', details: details.slice(0, MAX_REJECTION_DETAILS) };
}

function invalidValuesMessage(refused: OutOfBoundsContent[]): WriteRejected {
  const objectIds = [...new Set(refused.flatMap(({ objectId }) => (objectId === null ? [] : [objectId])))];
  const details = refused.map(({ objectId, violation }) => ({ ...(objectId === null ? {} : { object_id: objectId }), ...violation }));
  return { type: 'write-rejected', object_ids: objectIds, reason: 'invalid-value', details: details.slice(0, MAX_REJECTION_DETAILS) };
}

type ForbiddenReason = 'zone-permissions' | 'locked';

/**
 * Why the viewer may not make this change, or null when it may: the zone rules first, then
 * the lock (the object was locked, or the change locks or unlocks it; writeRules says who may).
 */
function forbiddenReason(viewer: Viewer, target: WriteTarget, change: TouchedObject, current: BoardObject | null): ForbiddenReason | null {
  const before = current?.position ?? null;
  const after = change.deleted ? null : (change.position ?? withCoordinates(before, change.coordinates));
  if (isForbiddenWrite(viewer, target, { before, after })) return 'zone-permissions';
  const touchesLock = current?.locked === true || change.writesLock === true;
  return touchesLock && isForbiddenWrite(viewer, target, { before, after, touchesLock }) ? 'locked' : null;
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
    if (value !== undefined && !isSameValue(current.get(key), value)) current.set(key, value);
  }
}

/**
 * Whether a field still holds its previous value. A refused value may be nested thousands
 * of levels deep: it is measured iteratively and never handed to JSON.stringify.
 */
function isSameValue(current: unknown, previous: unknown): boolean {
  const plain: unknown = current instanceof Y.AbstractType ? current.toJSON() : current;
  return !nestsDeeperThan(plain, MAX_TYPE_LEVEL + FREE_JSON_LIMITS.maxDepth) && JSON.stringify(plain) === JSON.stringify(previous);
}
