import * as Y from 'yjs';
import { OBJECTS_MAP } from '../boards/boardObjects.js';

/** A point in board pixels. */
export interface Point {
  x: number;
  y: number;
}

/** What an update does to one board object. */
export interface TouchedObject {
  id: string;
  /** The object itself is removed (not one of its fields). */
  deleted: boolean;
  /** The position the update gives the object, if it sets one. */
  position?: Point;
  /** Coordinates the update writes inside a nested position map (the rest stays as it was). */
  coordinates?: Partial<Point>;
}

/** Where an item sits: inside which object of the objects map, and under which field. */
type Location = { objectKey: string; field: string | null } | null;

/**
 * Lists the board objects a Yjs update touches, without applying it: the update's structs
 * are decoded and each is placed through its parent (or its neighbour, for map entries
 * that replace a value) in the update itself or in the live document's struct store.
 * The cost is proportional to the update (with a logarithmic lookup per struct), never
 * to the size of the document.
 */
export function touchedObjects(doc: Y.Doc, update: Uint8Array): Map<string, TouchedObject> {
  const objects = doc.getMap(OBJECTS_MAP);
  const { structs, ds } = Y.decodeUpdate(update);
  const inUpdate = indexByClient(structs.filter((struct): struct is Y.Item => struct instanceof Y.Item));
  const memo = new Map<Y.Item, Location>();
  const touched = new Map<string, TouchedObject>();
  const touch = (key: string) => {
    let entry = touched.get(key);
    if (!entry) touched.set(key, (entry = { id: key, deleted: false }));
    return entry;
  };

  const find = (id: Y.ID | null): Y.Item | null => (id ? (lookup(inUpdate, id) ?? storeItem(doc, id)) : null);

  const locate = (item: Y.Item): Location => {
    if (memo.has(item)) return memo.get(item)!;
    memo.set(item, null);
    const location = locateUncached(item);
    memo.set(item, location);
    return location;
  };

  const locateUncached = (item: Y.Item): Location => {
    const parent = item.parent as unknown;
    if (parent instanceof Y.AbstractType) {
      if (parent === objects) return { objectKey: item.parentSub ?? '', field: null };
      const owner = parent._item;
      return owner ? nested(locate(owner), item.parentSub) : null;
    }
    if (typeof parent === 'string') return parent === OBJECTS_MAP ? { objectKey: item.parentSub ?? '', field: null } : null;
    if (parent instanceof Y.ID) {
      const owner = find(parent);
      return owner ? nested(locate(owner), item.parentSub) : null;
    }
    // No parent written: the item sits where its neighbour sits (same parent, same key).
    const neighbour = find(item.origin) ?? find(item.rightOrigin);
    return neighbour ? locate(neighbour) : null;
  };

  /** The map key an item is written under; an update leaves it out when the item has a neighbour. */
  const keyOf = (item: Y.Item): string | null => {
    const seen = new Set<Y.Item>();
    let current: Y.Item | null = item;
    while (current && current.parentSub === null && !seen.has(current)) {
      seen.add(current);
      current = find(current.origin) ?? find(current.rightOrigin);
    }
    return current?.parentSub ?? null;
  };

  for (const items of inUpdate.values()) {
    for (const item of items) {
      const location = locate(item);
      if (!location) continue;
      const entry = touch(location.objectKey);
      if (!(item.content instanceof Y.ContentAny)) continue;
      const value = item.content.getContent()[0] as unknown;
      if (location.field === null) {
        // An object written as a plain JSON value (readObjects reads it like a Y.Map).
        const position = (value as { position?: Partial<Point> } | null)?.position;
        if (isPoint(position)) entry.position = position;
      } else if (location.field === 'position') {
        if (isPoint(value)) entry.position = value;
        else if (Number.isFinite(value)) {
          // A coordinate inside a position written as a nested Y.Map.
          const key = keyOf(item);
          if (key === 'x' || key === 'y') entry.coordinates = { ...entry.coordinates, [key]: value as number };
        }
      }
    }
  }

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
        const location = locate(struct);
        if (!location) continue;
        const entry = touch(location.objectKey);
        if (location.field === null && struct.parent === objects && objects._map.get(location.objectKey) === struct) entry.deleted = true;
      }
    }
  });
  return touched;
}

function isPoint(value: unknown): value is Point {
  const point = value as Partial<Point> | null | undefined;
  return typeof point === 'object' && point !== null && Number.isFinite(point.x) && Number.isFinite(point.y);
}

function nested(owner: Location, key: string | null): Location {
  if (!owner) return null;
  return { objectKey: owner.objectKey, field: owner.field ?? key };
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
