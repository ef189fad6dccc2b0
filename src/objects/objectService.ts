import * as Y from 'yjs';
import type { Board } from '../boards/board.js';
import {
  COMPONENT_STORAGE_MAP,
  compareCodeUnits,
  compareOrderKeys,
  newObject,
  objectsOf,
  putObjects,
  readObject,
  readOrderKeys,
  type BoardObject,
  type ObjectOrderKey,
} from '../boards/boardObjects.js';
import { requireHost, type Caller } from '../boards/caller.js';
import type { BoardObjectRules, ChangeCause, DocumentAuthor, LiveDocuments } from '../boards/ports.js';
import { ELEMENTS_DEFAULT_LIMIT, type ElementsQuery, type ObjectInput, type ObjectPatch } from '../boards/schemas.js';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { BoardPlacement, ObjectPlacement, Placement } from './placement.js';

/** An object as answered: with the zone whose document holds it, if any. */
export type PlacedObject = BoardObject & { zone_id?: string };

/** Where a page of `GET /boards/<id>/elements` lies in the whole list. */
export interface ElementsPagination {
  /** Elements the caller may see now, on every page together. */
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

/** The elements listed, with their page's place (null when the whole list was asked for). */
export interface ElementList {
  elements: PlacedObject[];
  pagination: ElementsPagination | null;
}

/**
 * How often a page is read before it is answered short: an object deleted, or moved into a
 * zone's document, between sorting and reading is missing from the read, and reading once
 * more gives a whole page unless the board keeps changing that fast.
 */
const ELEMENT_PAGE_READS = 2;

/** One object in the listing order, and the document that holds it. */
interface OrderedEntry extends ObjectOrderKey {
  placement: Placement;
}

export interface ObjectServiceDependencies {
  /** The board lookup with its rights (404, 403 other organization, 410 expired). */
  boards: { get(caller: Caller, id: string): Promise<Board> };
  documents: LiveDocuments;
  /** The zone rules of where content lives and who may change it: asked once per call. */
  frames: ObjectPlacement;
  objectRules: BoardObjectRules;
  clock: Clock;
}

/**
 * The rules of board objects, the same for every writer: REST handlers and agents call these
 * functions, and the socket write check applies the same zone rules (frames/zonePlacement.ts).
 * An object lives in the document of the zone its position lies in; it is created there,
 * changed there, and never carried into another document by an edit. Each call asks the
 * frames side one question (`placement`) and takes every zone decision from its answer.
 */
export class ObjectService {
  constructor(private readonly deps: ObjectServiceDependencies) {}

  /** Adds one object to the document it belongs in, resolving once it is durable. */
  async add(caller: Caller, boardId: string, input: ObjectInput, cause?: ChangeCause): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const placement = (await this.deps.frames.placement(board.id, caller)).placeAt(input.position);
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
    for (const placement of (await this.deps.frames.placement(board.id, caller)).readable) {
      objects.push(...(await this.deps.documents.readObjects(placement.document)).map((object) => placed(object, placement)));
    }
    return objects;
  }

  /**
   * `GET /boards/<id>/elements`: the objects the caller may see (the same documents as `list`
   * and `state.objects`, so a zone hidden from the caller stays hidden), in one order over all
   * of them: `created_at`, then `id`. Sorting reads two fields per object; only the page's
   * objects are converted to JSON.
   */
  async elements(caller: Caller, boardId: string, query: ElementsQuery): Promise<ElementList> {
    const window = elementWindowOf(query);
    const board = await this.deps.boards.get(caller, boardId);
    const { readable } = await this.deps.frames.placement(board.id, caller);
    for (let read = 1; ; read += 1) {
      const ordered = await this.orderedEntries(readable);
      const chosen = window ? ordered.slice(window.offset, window.offset + window.limit) : ordered;
      const elements = await this.readEntries(chosen);
      if (elements.length === chosen.length || read === ELEMENT_PAGE_READS) {
        if (!window) return { elements, pagination: null };
        const hasMore = window.offset + chosen.length < ordered.length;
        return { elements, pagination: { total: ordered.length, ...window, has_more: hasMore } };
      }
    }
  }

  /** Every object of the documents, in listing order; a copy left in two documents by a move sorts by document name. */
  private async orderedEntries(placements: readonly Placement[]): Promise<OrderedEntry[]> {
    const entries: OrderedEntry[] = [];
    for (const placement of placements) {
      const keys = await this.deps.documents.read(placement.document, readOrderKeys);
      for (const key of keys) entries.push({ ...key, placement });
    }
    return entries.sort((a, b) => compareOrderKeys(a, b) || compareCodeUnits(a.placement.document, b.placement.document));
  }

  /** The objects of `entries`, in their order; one no longer in its document is left out. */
  private async readEntries(entries: OrderedEntry[]): Promise<PlacedObject[]> {
    const byDocument = new Map<string, OrderedEntry[]>();
    for (const entry of entries) {
      const inDocument = byDocument.get(entry.placement.document);
      if (inDocument) inDocument.push(entry);
      else byDocument.set(entry.placement.document, [entry]);
    }
    const found = new Map<OrderedEntry, PlacedObject>();
    for (const [document, inDocument] of byDocument) {
      const objects = await this.deps.documents.read(document, (doc) => inDocument.map(({ id }) => readObject(id, objectsOf(doc).get(id))));
      inDocument.forEach((entry, index) => {
        const object = objects[index];
        if (object) found.set(entry, placed(object, entry.placement));
      });
    }
    return entries.flatMap((entry) => found.get(entry) ?? []);
  }

  /** One object the caller may see, or 404. */
  async get(caller: Caller, boardId: string, objectId: string): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const { object, placement } = await this.locate(await this.deps.frames.placement(board.id, caller), objectId);
    return placed(object, placement);
  }

  /**
   * Changes an object's data, position or size, or (hosts) locks it. An edit that would carry
   * the object into another zone's document is refused (409): it would change who owns it.
   */
  async update(caller: Caller, boardId: string, objectId: string, patch: ObjectPatch, cause?: ChangeCause): Promise<PlacedObject> {
    const board = await this.deps.boards.get(caller, boardId);
    const zones = await this.deps.frames.placement(board.id, caller);
    const { object, placement } = await this.locate(zones, objectId);
    if (patch.locked !== undefined) requireHost(caller, 'lock or unlock objects');
    const after = patch.position ?? object.position;
    if (patch.position) {
      const destination = zones.placeAt(after);
      if (!destination) throw errors.forbidden('The new position lies where this caller may not write');
      if (destination.document !== placement.document) {
        throw errors.conflict('The new position lies in another zone; an object is not carried between zones by an edit');
      }
    }
    const write = { before: object.position, after, touchesLock: object.locked === true || patch.locked !== undefined };
    if (!zones.mayWrite(placement.document, write)) {
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
    const zones = await this.deps.frames.placement(board.id, caller);
    const { object, placement } = await this.locate(zones, objectId);
    const write = { before: object.position, after: null, touchesLock: object.locked === true };
    if (!zones.mayWrite(placement.document, write)) {
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
  private async locate(zones: BoardPlacement, objectId: string): Promise<{ object: BoardObject; placement: Placement }> {
    for (const placement of zones.readable) {
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

/**
 * The window a query asks for, or null for the whole list (`pagination=false`). A `limit` or
 * `offset` next to `pagination=false` is refused, not ignored: the caller would otherwise
 * believe it got a page.
 */
function elementWindowOf(query: ElementsQuery): { limit: number; offset: number } | null {
  if (query.pagination) return { limit: query.limit ?? ELEMENTS_DEFAULT_LIMIT, offset: query.offset ?? 0 };
  const given = (['limit', 'offset'] as const).filter((name) => query[name] !== undefined);
  if (given.length === 0) return null;
  const message = 'is not allowed with pagination=false (which lists every element)';
  throw errors.badRequest(
    given.map((field) => `${field} ${message}`),
    given.map((field) => ({ field, message })),
  );
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
