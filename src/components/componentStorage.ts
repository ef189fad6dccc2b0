import * as Y from 'yjs';
import { COMPONENT_STORAGE_MAP, objectsOf, type BoardObject } from '../boards/boardObjects.js';
import type { Caller } from '../boards/caller.js';
import type { DocumentAuthor, LiveDocuments } from '../boards/ports.js';
import type { Clock } from '../clock.js';
import { AppError, errors, type FieldError } from '../errors.js';
import type { PlacedObject } from '../objects/objectService.js';
import type { ObjectPlacement } from '../objects/placement.js';
import { zoneDocumentName } from '../store/documentNames.js';
import type { Db } from '../store/database.js';
import { FREE_JSON_LIMITS, findJsonViolation, type JsonLimits } from '../util/jsonBounds.js';
import type { ResolvedComponent } from './componentManifests.js';
import { EXTERNAL_COMPONENT } from './componentObjects.js';
import type { JsonValue, Manifest, StorageKeySpec, Visibility } from './manifest.js';
import { grants, valueProblem } from './manifestRules.js';

/** One stored value as a document holds it; `updated_by` only for `shared` keys. */
export interface StoredEntry {
  value: JsonValue;
  updated_by?: string | null;
  updated_at: string;
}

/** Bounds of one stored value: free-form JSON, at most 64 KiB written out. */
export const STORAGE_VALUE_LIMITS: JsonLimits = { ...FREE_JSON_LIMITS, maxBytes: 64 * 1024 };

/** How boards find a component's manifest by the URL an object names (components/componentManifests.ts). */
export interface ManifestResolver {
  resolve(url: string): Promise<ResolvedComponent | null>;
}

/**
 * The published, undeleted component an object renders: 409 when the object is no
 * external-component, 404 when its `componentUrl` names nothing this registry published,
 * 410 when its version was deleted. Storage, actions and events all start here.
 */
export async function componentOf(object: BoardObject, manifests: ManifestResolver): Promise<ResolvedComponent> {
  if (object.type !== EXTERNAL_COMPONENT) throw errors.conflict(`Object ${object.id} is a ${object.type}, not an ${EXTERNAL_COMPONENT}`);
  const url = object.data?.componentUrl;
  if (typeof url !== 'string') throw errors.conflict(`Object ${object.id} has no data.componentUrl`);
  const component = await manifests.resolve(url);
  if (!component) throw new AppError('not_found', `The componentUrl of object ${object.id} names no component published in this registry`);
  if (component.deleted) throw errors.gone(`${component.name}@${component.version}, which object ${object.id} renders, was deleted by its author`);
  return component;
}

/** Why `value` may not be stored under a key of this spec (type, enum, bounds, items, maxItems, size), or null. */
export function storageValueProblem(value: unknown, spec: StorageKeySpec, field: string): FieldError | null {
  const violation = findJsonViolation(value, STORAGE_VALUE_LIMITS, [field]);
  if (violation) return violation;
  const problem = valueProblem(value as JsonValue, spec, field);
  if (problem) return problem;
  if (spec.maxItems !== undefined && Array.isArray(value) && value.length > spec.maxItems) {
    return { field, message: `must NOT have more than ${spec.maxItems} items` };
  }
  return null;
}

/** The body of `PUT …/storage/:key`. */
export const storageWriteSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['value'],
  properties: { value: { freeJson: true } },
};

export interface ComponentStorageDependencies {
  /** The object lookup with the board's and the zones' rules (404 for what the caller may not see). */
  objects: { get(caller: Caller, boardId: string, objectId: string): Promise<PlacedObject> };
  manifests: ManifestResolver;
  /** The live documents: shared and anonymous values are written where the object lives. */
  documents: Pick<LiveDocuments, 'write' | 'read'>;
  /** The zone rules: only who may write a zone's document writes values into it. */
  frames: ObjectPlacement;
  db: Db;
  clock: Clock;
}

/** A component object found for a caller, with the document holding it. */
interface Located {
  object: PlacedObject;
  document: string;
  manifest: Manifest;
}

/**
 * Component storage (manifest `storage`): `shared` and `anonymous` values live in the document
 * holding the object (so every reader of that document sees them live, as they see the
 * object), `private` ones in the database per user, never in a document. Each key must be
 * declared in `storage.schema` and its value must fit it; the caller's role needs `read` or
 * `write` in `permissions.storage`. A value written into a document also needs the zone's
 * write right (a classmate does not change the shared state of a component in your zone); a
 * private value is the caller's own, so seeing the object is enough.
 */
export class ComponentStorage {
  constructor(private readonly deps: ComponentStorageDependencies) {}

  /** Every declared key's value (its default while unset) and visibility. */
  async read(caller: Caller, boardId: string, objectId: string): Promise<{ values: Record<string, JsonValue>; visibility: Record<string, Visibility> }> {
    const { object, document, manifest } = await this.locate(caller, boardId, objectId);
    if (!grants(manifest.permissions.storage[caller.role], 'read')) throw errors.forbidden(`The component's permissions do not let a ${caller.role} read its storage`);
    const inDocument = await this.documentEntries(document, object.id);
    const own = caller.userId ? await this.privateValues(boardId, object.id, caller.userId) : new Map<string, JsonValue>();
    const values: Record<string, JsonValue> = {};
    for (const [key, spec] of Object.entries(manifest.storage.schema)) {
      const stored = manifest.storage.visibility[key] === 'private' ? own.get(key) : inDocument.get(key)?.value;
      values[key] = stored !== undefined ? stored : structuredClone(spec.default ?? null);
    }
    return { values, visibility: { ...manifest.storage.visibility } };
  }

  /** Stores one key's value where its visibility says. */
  async write(caller: Caller, boardId: string, objectId: string, key: string, value: unknown): Promise<{ key: string; value: JsonValue; visibility: Visibility }> {
    const { object, document, manifest } = await this.locate(caller, boardId, objectId);
    if (!grants(manifest.permissions.storage[caller.role], 'write')) throw errors.forbidden(`The component's permissions do not let a ${caller.role} write its storage`);
    const spec = Object.hasOwn(manifest.storage.schema, key) ? manifest.storage.schema[key] : undefined;
    if (!spec) throw invalid({ field: 'key', message: `"${key}" is not declared in the component's storage.schema` });
    const problem = storageValueProblem(value, spec, 'value');
    if (problem) throw invalid(problem);
    const stored = value as JsonValue;
    const visibility = manifest.storage.visibility[key] ?? 'shared';
    const now = this.deps.clock.now();
    if (visibility === 'private') {
      if (!caller.userId) {
        throw errors.forbidden(`"${key}" is private storage, kept per user: this credential names no user (the API key and the shared guest link carry none; use a personal link)`);
      }
      await this.writePrivate(boardId, object.id, caller.userId, key, stored, now);
    } else {
      if (!(await this.deps.frames.placement(boardId, caller)).mayWrite(document, { before: null, after: null })) {
        throw errors.forbidden(`The object lies in a zone this caller may not write: its ${visibility} storage is the zone's`);
      }
      // Anonymous values never record who wrote them; shared ones say who did.
      const entry: StoredEntry = visibility === 'shared' ? { value: stored, updated_by: caller.userId, updated_at: now.toISOString() } : { value: stored, updated_at: now.toISOString() };
      await this.deps.documents.write(document, author(caller, boardId), (doc) => putEntry(doc, object.id, key, entry));
    }
    return { key, value: stored, visibility };
  }

  private async locate(caller: Caller, boardId: string, objectId: string): Promise<Located> {
    const object = await this.deps.objects.get(caller, boardId, objectId);
    const { manifest } = await componentOf(object, this.deps.manifests);
    return { object, document: object.zone_id ? zoneDocumentName(boardId, object.zone_id) : boardId, manifest };
  }

  /** The object's entries in its document (the live one when loaded). */
  private async documentEntries(document: string, objectId: string): Promise<Map<string, StoredEntry>> {
    const entries = new Map<string, StoredEntry>();
    await this.deps.documents.read(document, (doc) => {
      const map = doc.getMap(COMPONENT_STORAGE_MAP).get(objectId);
      if (!(map instanceof Y.Map)) return;
      map.forEach((entry: unknown, key) => {
        if (isEntry(entry)) entries.set(key, entry);
      });
    });
    return entries;
  }

  private async privateValues(boardId: string, objectId: string, userId: string): Promise<Map<string, JsonValue>> {
    const rows = await this.deps.db.componentStorageValue.findMany({ where: { boardId, objectId, userId }, select: { key: true, value: true } });
    return new Map(rows.map((row) => [row.key, JSON.parse(row.value) as JsonValue]));
  }

  private async writePrivate(boardId: string, objectId: string, userId: string, key: string, value: JsonValue, now: Date): Promise<void> {
    const where = { boardId_objectId_userId_key: { boardId, objectId, userId, key } };
    const data = { value: JSON.stringify(value), updatedAt: now };
    // Two first writes of one key may race to insert: the loser updates the winner's row.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.deps.db.componentStorageValue.upsert({ where, create: { boardId, objectId, userId, key, ...data }, update: data });
        return;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'P2002' || attempt === 3) throw error;
      }
    }
  }
}

/** Sets one entry in the document's storage map; the object must still be there. */
function putEntry(doc: Y.Doc, objectId: string, key: string, entry: StoredEntry): void {
  if (!objectsOf(doc).has(objectId)) throw errors.notFound('Object');
  const root = doc.getMap<unknown>(COMPONENT_STORAGE_MAP);
  let entries = root.get(objectId);
  if (!(entries instanceof Y.Map)) {
    entries = new Y.Map<unknown>();
    root.set(objectId, entries);
  }
  (entries as Y.Map<unknown>).set(key, entry);
}

/** A 400 as the edge's validation renders one: `message[]` and `details[]`. */
export function invalid(problem: FieldError): AppError {
  return errors.badRequest([`${problem.field} ${problem.message}`], [problem]);
}

function isEntry(value: unknown): value is StoredEntry {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'value');
}

function author(caller: Caller, boardId: string): DocumentAuthor {
  return { boardId, organizationId: caller.organizationId, userId: caller.userId };
}
