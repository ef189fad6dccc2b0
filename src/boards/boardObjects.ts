import { randomUUID } from 'node:crypto';
import * as Y from 'yjs';
import type { ObjectInput } from './schemas.js';

/**
 * The layout of a board's Yjs document (docs/architecture.md): `doc.getMap('objects')`,
 * keyed by object id, each value a Y.Map holding the REST object's fields.
 */
export const OBJECTS_MAP = 'objects';

/**
 * `doc.getMap('componentStorage')`: the shared and anonymous storage of the components on the
 * document's objects (object id → key → value), written only by the server, which checks each
 * write against the component's manifest (components/componentStorage.ts).
 */
export const COMPONENT_STORAGE_MAP = 'componentStorage';

/** Roots of a board document that only the server writes: a socket's write into one is refused whole. */
export const SERVER_OWNED_ROOTS: ReadonlySet<string> = new Set([COMPONENT_STORAGE_MAP]);

/** A board object as the REST API shows it. */
export interface BoardObject {
  id: string;
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width?: number;
  height?: number;
  created_at: string;
  created_by: string | null;
  updated_at?: string;
  updated_by?: string | null;
  /** Set by a host or an agent (`lock_objects`): guests may not change the object. */
  locked?: boolean;
}

/** The objects map of a board document. */
export function objectsOf(doc: Y.Doc): Y.Map<unknown> {
  return doc.getMap(OBJECTS_MAP);
}

/** Adds objects to a board document; call inside a transaction. */
export function putObjects(doc: Y.Doc, objects: BoardObject[]): void {
  const map = objectsOf(doc);
  for (const object of objects) {
    const fields = Object.entries(object).filter(([, value]) => value !== undefined);
    map.set(object.id, new Y.Map<unknown>(fields));
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

/**
 * Reads every object of a board document, oldest first. Clients may also have written
 * plain JSON values instead of Y.Maps; both read the same.
 */
export function readObjects(doc: Y.Doc): BoardObject[] {
  const objects: BoardObject[] = [];
  objectsOf(doc).forEach((value, id) => {
    const fields = value instanceof Y.Map ? value.toJSON() : value;
    if (fields && typeof fields === 'object') objects.push({ ...(fields as BoardObject), id });
  });
  // A socket client may have written any value as `created_at`: only a string orders.
  const keyOf = (object: BoardObject): ObjectOrderKey => ({ id: object.id, created_at: typeof object.created_at === 'string' ? object.created_at : '' });
  return objects.sort((a, b) => compareOrderKeys(keyOf(a), keyOf(b)));
}

/** Reads one object's fields from a Y.Map value of the objects map. */
export function readObject(id: string, value: unknown): BoardObject | null {
  const fields = value instanceof Y.Map ? value.toJSON() : value;
  return fields && typeof fields === 'object' ? { ...(fields as BoardObject), id } : null;
}

/** Where an object stands in a board's listing order: by `created_at`, then by `id`. */
export interface ObjectOrderKey {
  id: string;
  /** `''` when the object has none (a client wrote it without), so it sorts first. */
  created_at: string;
}

/**
 * The order keys of every object of a board document, read field by field: listing a page
 * of a large board sorts these and converts only the page's objects to JSON. Values that are
 * not objects are skipped, as `readObjects` skips them.
 */
export function readOrderKeys(doc: Y.Doc): ObjectOrderKey[] {
  const keys: ObjectOrderKey[] = [];
  objectsOf(doc).forEach((value, id) => {
    if (!value || typeof value !== 'object') return;
    const createdAt: unknown = value instanceof Y.Map ? value.get('created_at') : (value as Record<string, unknown>).created_at;
    keys.push({ id, created_at: typeof createdAt === 'string' ? createdAt : '' });
  });
  return keys;
}

/**
 * Compares two order keys by UTF-16 code units (not `localeCompare`): a strict total order
 * that no locale changes, so two reads of the same objects always list them alike.
 */
export function compareOrderKeys(a: ObjectOrderKey, b: ObjectOrderKey): number {
  return compareCodeUnits(a.created_at, b.created_at) || compareCodeUnits(a.id, b.id);
}

export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
