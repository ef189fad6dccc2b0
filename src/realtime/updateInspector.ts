import * as Y from 'yjs';
import { OBJECTS_MAP, SERVER_OWNED_ROOTS } from '../boards/boardObjects.js';
import type { Point } from '../frames/writeRules.js';
import { jsonValuesOf, MAX_TYPE_LEVEL } from '../store/documentBounds.js';
import { findJsonViolation, FREE_JSON_LIMITS, type JsonViolation } from '../util/jsonBounds.js';

/** What an update does to one board object. */
export interface TouchedObject {
  id: string;
  /** The object itself is removed (not one of its fields). */
  deleted: boolean;
  /** The position the update gives the object, if it sets one. */
  position?: Point;
  /** Coordinates the update writes inside a nested position map (the rest stays as it was). */
  coordinates?: Partial<Point>;
  /**
   * The update writes the object's `locked` field: sets or removes it, or writes a whole
   * object holding it. Removing the whole object does not count (its lock was its own).
   */
  writesLock?: boolean;
}

/** The object field whose writes lock or unlock an object (frames/writeRules.ts). */
const LOCK_FIELD = 'locked';

/** One item of an update whose content breaks the bounds of free-form JSON values. */
export interface OutOfBoundsContent {
  /** The item's first id and length: the structs to delete once it is applied. */
  id: Y.ID;
  length: number;
  /** The object of the objects map it lies in, or null (elsewhere, or not placed yet). */
  objectId: string | null;
  violation: JsonViolation;
}

/** What an update does, found without applying it. */
export interface UpdateInspection {
  touched: Map<string, TouchedObject>;
  /** Values beyond FREE_JSON_LIMITS the update writes. */
  outOfBounds: OutOfBoundsContent[];
  /** The update nests Yjs types deeper than MAX_TYPE_LEVEL. */
  nestsTypesTooDeep: boolean;
  /** The update writes or deletes content under a root only the server writes (boards/boardObjects.ts). */
  writesServerOwned: boolean;
}

/**
 * Where an item sits: its root type (and the key under it), the object of the objects map
 * and the object field it lies in, and how many types lie between the root and the item.
 */
interface Placement {
  root: string;
  rootKey: string | null;
  object: { key: string; field: string | null } | null;
  level: number;
}

/** How an item is placed: directly, through the item owning its parent type, or like its neighbour. */
type Step = { placement: Placement | null } | { through: Y.Item; owner: boolean };

/**
 * Lists the board objects a Yjs update touches, without applying it (see inspectUpdate).
 * Throws RangeError when the update holds a value too deep for lib0 to decode.
 */
export function touchedObjects(doc: Y.Doc, update: Uint8Array): Map<string, TouchedObject> {
  return inspectUpdate(doc, update).touched;
}

/**
 * Inspects a Yjs update without applying it: the board objects it touches, and the content
 * it writes beyond the document bounds (store/documentBounds.ts). The update's structs are
 * decoded and each is placed through its parent (or its neighbour, for map entries that
 * replace a value) in the update itself or in the live document's struct store, walking
 * up iteratively so no chain of parents can exhaust the stack. The cost is proportional to
 * the update (with a logarithmic lookup per struct), never to the size of the document.
 * Throws RangeError when the update holds a value too deep for lib0 to decode.
 */
export function inspectUpdate(doc: Y.Doc, update: Uint8Array): UpdateInspection {
  const { structs, ds } = Y.decodeUpdate(update);
  const inUpdate = indexByClient(structs.filter((struct): struct is Y.Item => struct instanceof Y.Item));
  const placer = new Placer(doc, inUpdate);
  const found: UpdateInspection = { touched: new Map(), outOfBounds: [], nestsTypesTooDeep: false, writesServerOwned: false };
  for (const items of inUpdate.values()) {
    for (const item of items) inspectWrite(item, placer, found);
  }
  const removedLocks = inspectDeletions(doc, ds, placer, found);
  // Removing an object removes its fields too: only a lock removed from an object that stays is written.
  for (const key of removedLocks) if (!found.touched.get(key)!.deleted) found.touched.get(key)!.writesLock = true;
  return found;
}

/** The entry of an object the update touches, added on first touch. */
function touch(found: UpdateInspection, key: string): TouchedObject {
  let entry = found.touched.get(key);
  if (!entry) found.touched.set(key, (entry = { id: key, deleted: false }));
  return entry;
}

/** What one item the update writes does: where it lands, whether it breaks a bound, what it sets on its object. */
function inspectWrite(item: Y.Item, placer: Placer, found: UpdateInspection): void {
  const placement = placer.place(item);
  if (placement && SERVER_OWNED_ROOTS.has(placement.root)) found.writesServerOwned = true;
  if (placement && item.content instanceof Y.ContentType && placement.level + 1 > MAX_TYPE_LEVEL) found.nestsTypesTooDeep = true;
  const violation = violationOf(item.content, placement);
  if (violation) found.outOfBounds.push({ id: item.id, length: item.length, objectId: placement?.object?.key ?? null, violation });
  const location = placement?.object;
  if (!location) return;
  const entry = touch(found, location.key);
  if (location.field === LOCK_FIELD) entry.writesLock = true;
  if (!(item.content instanceof Y.ContentAny) || violation) return;
  const value = item.content.getContent()[0] as unknown;
  if (location.field === null) {
    // An object written as a plain JSON value (readObjects reads it like a Y.Map).
    const position = (value as { position?: Partial<Point> } | null)?.position;
    if (isPoint(position)) entry.position = position;
    if (typeof value === 'object' && value !== null && Object.hasOwn(value, LOCK_FIELD)) entry.writesLock = true;
  } else if (location.field === 'position') {
    if (isPoint(value)) entry.position = value;
    else if (Number.isFinite(value)) {
      // A coordinate inside a position written as a nested Y.Map.
      const key = placer.keyOf(item);
      if (key === 'x' || key === 'y') entry.coordinates = { ...entry.coordinates, [key]: value as number };
    }
  }
}

/**
 * What the update's delete set removes from the live document: objects deleted, server-owned
 * content. Returns the objects whose lock field it removes.
 */
function inspectDeletions(doc: Y.Doc, ds: ReturnType<typeof Y.decodeUpdate>['ds'], placer: Placer, found: UpdateInspection): Set<string> {
  const objects = doc.getMap(OBJECTS_MAP);
  const removedLocks = new Set<string>();
  ds.clients.forEach((ranges, client) => {
    const structsOfClient = doc.store.clients.get(client);
    if (!structsOfClient) return;
    for (const range of ranges) {
      const end = range.clock + range.len;
      if (range.clock >= Y.getState(doc.store, client)) continue;
      for (let index = Y.findIndexSS(structsOfClient, range.clock); index < structsOfClient.length; index += 1) {
        const struct = structsOfClient[index]!;
        if (struct.id.clock >= end) break;
        if (!(struct instanceof Y.Item) || struct.deleted) continue;
        const placement = placer.place(struct);
        if (placement && SERVER_OWNED_ROOTS.has(placement.root)) found.writesServerOwned = true;
        const location = placement?.object;
        if (!location) continue;
        const entry = touch(found, location.key);
        if (location.field === null && struct.parent === objects && objects._map.get(location.key) === struct) entry.deleted = true;
        if (location.field === LOCK_FIELD) removedLocks.add(location.key);
      }
    }
  });
  return removedLocks;
}

/**
 * Places items, of the update or of the live document, through their parents or neighbours
 * (see inspectUpdate); each item is placed once per inspection.
 */
class Placer {
  private readonly objects: Y.Map<unknown>;
  private readonly memo = new Map<Y.Item, Placement | null>();

  constructor(
    private readonly doc: Y.Doc,
    private readonly inUpdate: Map<number, Y.Item[]>,
  ) {
    this.objects = doc.getMap(OBJECTS_MAP);
  }

  place(item: Y.Item): Placement | null {
    const path: Array<{ item: Y.Item; owner: boolean }> = [];
    let current = item;
    let placement: Placement | null;
    for (;;) {
      if (this.memo.has(current)) {
        placement = this.memo.get(current)!;
        break;
      }
      // Marked before it is known: a cycle of references resolves to "nowhere".
      this.memo.set(current, null);
      const step = this.stepOf(current);
      if ('placement' in step) {
        placement = step.placement;
        this.memo.set(current, placement);
        break;
      }
      path.push({ item: current, owner: step.owner });
      current = step.through;
    }
    for (let index = path.length - 1; index >= 0; index -= 1) {
      const { item: below, owner } = path[index]!;
      if (placement && owner) placement = nestedPlacement(placement, below.parentSub);
      this.memo.set(below, placement);
    }
    return placement;
  }

  /** The map key an item is written under; an update leaves it out when the item has a neighbour. */
  keyOf(item: Y.Item): string | null {
    const seen = new Set<Y.Item>();
    let current: Y.Item | null = item;
    while (current && current.parentSub === null && !seen.has(current)) {
      seen.add(current);
      current = this.find(current.origin) ?? this.find(current.rightOrigin);
    }
    return current?.parentSub ?? null;
  }

  private find(id: Y.ID | null): Y.Item | null {
    return id ? (lookup(this.inUpdate, id) ?? storeItem(this.doc, id)) : null;
  }

  private stepOf(item: Y.Item): Step {
    const parent = item.parent as unknown;
    if (parent instanceof Y.AbstractType) {
      const owner = parent._item;
      if (owner) return { through: owner, owner: true };
      return { placement: rootPlacement(parent === this.objects ? OBJECTS_MAP : (Y.findRootTypeKey(parent) ?? ''), item.parentSub) };
    }
    if (typeof parent === 'string') return { placement: rootPlacement(parent, item.parentSub) };
    // No parent written: the item sits where its neighbour sits (same parent, same key).
    const next = parent instanceof Y.ID ? this.find(parent) : (this.find(item.origin) ?? this.find(item.rightOrigin));
    return next ? { through: next, owner: parent instanceof Y.ID } : { placement: null };
  }
}

function rootPlacement(root: string, key: string | null): Placement {
  return { root, rootKey: key, object: root === OBJECTS_MAP ? { key: key ?? '', field: null } : null, level: 0 };
}

/** The first bound a struct's values break, with the path from its object (or root) named. */
function violationOf(content: Y.Item['content'], placement: Placement | null): JsonViolation | null {
  const values = jsonValuesOf(content);
  if (!values) return null;
  const root = placement?.object
    ? (placement.object.field === null ? [] : [placement.object.field])
    : [placement?.root ?? '(document)', ...(placement?.rootKey !== null && placement?.rootKey !== undefined ? [placement.rootKey] : [])];
  for (const value of values) {
    const violation = findJsonViolation(value, FREE_JSON_LIMITS, root);
    if (violation) return violation;
  }
  return null;
}

function nestedPlacement(owner: Placement, key: string | null): Placement {
  const object = owner.object && { key: owner.object.key, field: owner.object.field ?? key };
  return { root: owner.root, rootKey: owner.rootKey, object, level: owner.level + 1 };
}

function isPoint(value: unknown): value is Point {
  const point = value as Partial<Point> | null | undefined;
  return typeof point === 'object' && point !== null && Number.isFinite(point.x) && Number.isFinite(point.y);
}

function indexByClient(items: Y.Item[]): Map<number, Y.Item[]> {
  const index = new Map<number, Y.Item[]>();
  for (const item of items) {
    const list = index.get(item.id.client) ?? [];
    list.push(item);
    index.set(item.id.client, list);
  }
  return index;
}

/** Binary search: an update lists each client's structs in clock order. */
function lookup(index: Map<number, Y.Item[]>, id: Y.ID): Y.Item | null {
  const items = index.get(id.client);
  if (!items) return null;
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const item = items[middle]!;
    if (id.clock < item.id.clock) high = middle - 1;
    else if (id.clock >= item.id.clock + item.length) low = middle + 1;
    else return item;
  }
  return null;
}

function storeItem(doc: Y.Doc, id: Y.ID): Y.Item | null {
  if (id.clock >= Y.getState(doc.store, id.client)) return null;
  const struct = Y.getItem(doc.store, id) as Y.Item | Y.GC;
  return struct instanceof Y.Item ? struct : null;
}
