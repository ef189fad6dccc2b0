import { randomUUID } from 'node:crypto';
import * as Y from 'yjs';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Board } from './board.js';
import { COMPONENT_STORAGE_MAP, objectsOf, putObjects, readObject, type BoardObject } from './boardObjects.js';
import { requireHost, type Caller } from './caller.js';
import type { BoardObjectRules, ChangeCause, DocumentAuthor, LiveDocuments, Placement, ZonePlacement } from './ports.js';
import type { ObjectInput, ObjectPatch } from './schemas.js';

/** An object as answered: with the zone whose document holds it, if any. */
export type PlacedObject = BoardObject & { zone_id?: string };

export interface ObjectServiceDependencies {
  /** The board lookup with its rights (404, 403 other organization, 410 expired). */
  boards: { get(caller: Caller, id: string): Promise<Board> };
  documents: LiveDocuments;
  /** The zone rules of where content lives and who may change it. */
  frames: ZonePlacement;
  objectRules: BoardObjectRules;
  clock: Clock;
}

/**
 * The rules of board objects, the same for every writer: REST handlers and agents call these
 * functions, and the socket write check applies the same zone rules (frames/writeRules.ts).
 * An object lives in the document of the zone its position lies in; it is created there,
 * changed there, and never carried into another document by an edit.
 */
export class ObjectService {
  constructor(private readonly deps: ObjectServiceDependencies) {}

  /** Adds one object to the document it belongs in, resolving once it is durable. */
  async add(caller: Caller, boardId: string, input: ObjectInput, cause?: ChangeCause): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const placement = await this.deps.frames.placementOf(board.id, caller, input.position);
    if (!placement) throw errors.forbidden('The position lies in a zone this caller may not write');
    await this.deps.objectRules.validateObjects(board.organizationId, [input], { role: caller.role });
    const object = newObject(input, this.deps.clock.now(), caller.userId);
    await this.deps.documents.write(placement.document, authorOf(board, caller, cause), (doc) => putObjects(doc, [object]));
    return placed(object, placement);
  }

  /** Every object of the board the caller may see, its own document's first. */
  async list(caller: Caller, boardId: string): Promise<PlacedObject[]> {
    const board = await this.deps.boards.get(caller, boardId);
    const objects: PlacedObject[] = [];
    for (const placement of await this.deps.frames.readableDocuments(board.id, caller)) {
      objects.push(...(await this.deps.documents.readObjects(placement.document)).map((object) => placed(object, placement)));
    }
    return objects;
  }

  /** One object the caller may see, or 404. */
  async get(caller: Caller, boardId: string, objectId: string): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const { object, placement } = await this.locate(caller, board, objectId);
    return placed(object, placement);
  }

  /**
   * Changes an object's data, position or size, or (hosts) locks it. An edit that would carry
   * the object into another zone's document is refused (409): it would change who owns it.
   */
  async update(caller: Caller, boardId: string, objectId: string, patch: ObjectPatch, cause?: ChangeCause): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const { object, placement } = await this.locate(caller, board, objectId);
    if (patch.locked !== undefined) requireHost(caller, 'lock or unlock objects');
    const after = patch.position ?? object.position;
    if (patch.position) {
      const destination = await this.deps.frames.placementOf(board.id, caller, after);
      if (!destination) throw errors.forbidden('The new position lies where this caller may not write');
      if (destination.document !== placement.document) {
        throw errors.conflict('The new position lies in another zone; an object is not carried between zones by an edit');
      }
    }
    const write = { before: object.position, after, touchesLock: object.locked === true || patch.locked !== undefined };
    if (!(await this.deps.frames.mayWrite(board.id, caller, placement.document, write))) {
      throw errors.forbidden(object.locked ? 'The object is locked' : 'This caller may not change objects there');
    }
    const updated = withPatch(object, patch, caller.userId, this.deps.clock.now());
    await this.deps.objectRules.validateObjects(board.organizationId, [updated], { role: caller.role, previous: () => object });
    await this.writeExisting(board, caller, placement, objectId, cause, (fields) => {
      for (const [key, value] of Object.entries(updated)) {
        if (key === 'id' || value === undefined) continue;
        if (JSON.stringify(fields.get(key)) !== JSON.stringify(value)) fields.set(key, value);
      }
      if (patch.locked === false) fields.delete('locked');
    });
    return placed(updated, placement);
  }

  /** Removes an object; answers what it was. */
  async remove(caller: Caller, boardId: string, objectId: string, cause?: ChangeCause): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const { object, placement } = await this.locate(caller, board, objectId);
    const write = { before: object.position, after: null, touchesLock: object.locked === true };
    if (!(await this.deps.frames.mayWrite(board.id, caller, placement.document, write))) {
      throw errors.forbidden(object.locked ? 'The object is locked' : 'This caller may not remove objects there');
    }
    await this.deps.documents.write(placement.document, authorOf(board, caller, cause), (doc) => {
      if (!objectsOf(doc).has(objectId)) throw errors.notFound('Object');
      objectsOf(doc).delete(objectId);
      // A component's shared storage goes with it (its private values stay in the database).
      doc.getMap(COMPONENT_STORAGE_MAP).delete(objectId);
    });
    return placed(object, placement);
  }

  /** Finds the document holding an object the caller may see. */
  private async locate(caller: Caller, board: Board, objectId: string): Promise<{ object: BoardObject; placement: Placement }> {
    for (const placement of await this.deps.frames.readableDocuments(board.id, caller)) {
      const object = (await this.deps.documents.readObjects(placement.document)).find((candidate) => candidate.id === objectId);
      if (object) return { object, placement };
    }
    throw errors.notFound('Object');
  }

  /** Changes the fields of an object that must still exist when the change applies. */
  private async writeExisting(
    board: Board,
    caller: Caller,
    placement: Placement,
    objectId: string,
    cause: ChangeCause | undefined,
    change: (fields: Y.Map<unknown>) => void,
  ): Promise<void> {
    await this.deps.documents.write(placement.document, authorOf(board, caller, cause), (doc) => {
      const value = objectsOf(doc).get(objectId);
      if (value instanceof Y.Map) return change(value);
      const plain = value === undefined ? null : readObject(objectId, value);
      if (!plain) throw errors.notFound('Object');
      // A client wrote the object as a plain value: it becomes a Y.Map holding the same fields.
      const fields = new Y.Map<unknown>(Object.entries(plain).filter(([, field]) => field !== undefined));
      objectsOf(doc).set(objectId, fields);
      change(fields);
    });
  }
}

/** A new board object from client input. */
export function newObject(input: ObjectInput, now: Date, createdBy: string | null = null): BoardObject {
  return {
    id: randomUUID(),
    type: input.type,
    data: input.data,
    position: { x: input.position.x, y: input.position.y },
    width: input.width,
    height: input.height,
    created_at: now.toISOString(),
    created_by: createdBy,
  };
}

function withPatch(object: BoardObject, patch: ObjectPatch, userId: string | null, now: Date): BoardObject {
  const { locked, ...fields } = patch;
  return {
    ...object,
    ...fields,
    ...(locked === true ? { locked: true } : {}),
    ...(locked === false ? { locked: undefined } : {}),
    updated_at: now.toISOString(),
    updated_by: userId,
  };
}

function placed(object: BoardObject, placement: Placement): PlacedObject {
  return placement.zoneId ? { ...object, zone_id: placement.zoneId } : object;
}

function authorOf(board: Board, caller: Caller, cause: ChangeCause | undefined): DocumentAuthor {
  return { boardId: board.id, organizationId: board.organizationId, userId: caller.userId, ...(cause ? { cause } : {}) };
}
