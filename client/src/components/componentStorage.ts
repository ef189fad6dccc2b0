import * as Y from 'yjs';
import { isPlainObject, type JsonObject, type JsonValue } from './protocol.js';

/** The server-owned map of a document holding components' shared and anonymous storage (plan "Storage"). */
export const STORAGE_MAP = 'componentStorage';

/**
 * The storage values of one object as its document holds them: `componentStorage` →
 * objectId → key → `{ value, updated_by?, updated_at }`. Read defensively: the map is the
 * server's, but a document arrives from anywhere (a device copy, an older server).
 */
export function storageOf(doc: Y.Doc, objectId: string): JsonObject {
  const entry = doc.getMap<unknown>(STORAGE_MAP).get(objectId);
  const values: JsonObject = {};
  const pairs: [string, unknown][] = entry instanceof Y.Map ? [...(entry as Y.Map<unknown>).entries()] : isPlainObject(entry) ? Object.entries(entry) : [];
  for (const [key, record] of pairs) {
    const plain = record instanceof Y.Map ? (record.toJSON() as unknown) : record;
    if (isPlainObject(plain) && 'value' in plain) values[key] = plain.value as JsonValue;
  }
  return values;
}

/** Calls `changed(objectId)` for every object whose storage entry a transaction touched. */
export function observeStorage(doc: Y.Doc, changed: (objectId: string) => void): void {
  const map = doc.getMap<unknown>(STORAGE_MAP);
  map.observeDeep((events) => {
    const ids = new Set<string>();
    for (const event of events) {
      if (event.target === map) for (const key of event.changes.keys.keys()) ids.add(key);
      else if (event.path.length > 0) ids.add(String(event.path[0]));
    }
    for (const id of ids) changed(id);
  });
}

/** The keys whose values differ between what a frame was last told and what is now (removed keys: null). */
export function changedKeys(before: JsonObject, after: JsonObject): [string, JsonValue][] {
  const changes: [string, JsonValue][] = [];
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key) || JSON.stringify(before[key]) !== JSON.stringify(value)) changes.push([key, value]);
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) changes.push([key, null]);
  return changes;
}
