import type { BoardObject } from '../boards/boardObjects.js';
import type { Caller } from '../boards/caller.js';
import { AppError, errors } from '../errors.js';
import type { Viewer } from '../frames/zonePermissions.js';
import type { ObjectPlacement } from '../objects/placement.js';
import { FREE_JSON_LIMITS, findJsonViolation, type JsonLimits } from '../util/jsonBounds.js';
import type { ResolvedComponent } from './componentManifests.js';
import { EXTERNAL_COMPONENT } from './componentObjects.js';
import { componentOf, invalid, type ManifestResolver } from './componentStorage.js';
import type { JsonValue } from './manifest.js';

/**
 * Global events between components (manifest `globalEvents`): a component emits a named event
 * with a payload; the server checks the name against its `emit` patterns and routes it to the
 * board's components whose `listen` patterns match. Names are short identifiers such as
 * `timer:tick`; patterns may use `*` for any run of characters (`timer:*`, `*`).
 */

/** An event name: 1–100 characters of letters, digits and `: . _ - /`, starting with a letter or digit (no `*`). */
export const EVENT_NAME = /^[A-Za-z0-9][A-Za-z0-9:._\-/]{0,99}$/;

/** Bounds of an event's payload: free-form JSON, at most 16 KiB written out (it goes to every socket of the board). */
export const EVENT_PAYLOAD_LIMITS: JsonLimits = { ...FREE_JSON_LIMITS, maxBytes: 16 * 1024 };

/**
 * Whether `name` matches `pattern`, where `*` stands for any run of characters (possibly
 * empty) and everything else for itself. Glob matching with one backtrack point: at worst
 * pattern length × name length steps (names are at most 100 characters), and no regular
 * expression is built from a manifest's text.
 */
export function matchesEventPattern(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === name[n]) {
      p += 1;
      n += 1;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p;
      resume = n;
      p += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      n = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** Whether any of a manifest's patterns matches `name`. */
export function matchesAnyPattern(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => matchesEventPattern(pattern, name));
}

/** What a socket asks to emit. */
export interface ComponentEventInput {
  object_id: string;
  name: string;
  payload: JsonValue;
}

/** An event accepted for routing: the components that listen to it, with the document each lives in. */
export interface RoutedComponentEvent {
  object_id: string;
  name: string;
  payload: JsonValue;
  /** The sender's user id (null for the shared guest link and an undeclared host). */
  from: string | null;
  targets: Array<{ objectId: string; document: string }>;
}

export interface ComponentEventsDependencies {
  manifests: ManifestResolver;
  /** The zone rules: which documents of a board a viewer may read. */
  frames: ObjectPlacement;
  /**
   * The objects of a document loaded now, or null when it is not: a document no socket has
   * open shows its components to nobody, so no event needs to reach them (and routing never
   * loads stored documents, whatever the event rate).
   */
  liveObjects(document: string): BoardObject[] | null;
}

/** Sees every document of a board (hosts read every zone). */
const EVERYTHING: Viewer = { role: 'host', userId: null };

/** The rules of global events: who may emit what, and which components hear it. */
export class ComponentEvents {
  constructor(private readonly deps: ComponentEventsDependencies) {}

  /**
   * Checks an event a socket emits and finds its listeners. Refused (AppError): a bad name or
   * payload (400), an object the sender cannot see (404), no component, or a deleted one
   * (409, 404, 410), a name outside the component's `globalEvents.emit` (403).
   */
  async route(sender: Caller, boardId: string, input: ComponentEventInput): Promise<RoutedComponentEvent> {
    if (!EVENT_NAME.test(input.name)) {
      throw errors.badRequest('name must be 1-100 characters of letters, digits and : . _ - / (starting with a letter or digit)');
    }
    const violation = findJsonViolation(input.payload, EVENT_PAYLOAD_LIMITS, ['payload']);
    if (violation) throw invalid(violation);
    const source = await this.findVisible(sender, boardId, input.object_id);
    const component = await componentOf(source, this.deps.manifests);
    if (!matchesAnyPattern(component.manifest.globalEvents.emit, input.name)) {
      throw errors.forbidden(`${component.name}@${component.version} does not declare "${input.name}" in globalEvents.emit`);
    }
    return { ...input, from: sender.userId, targets: await this.listeners(boardId, input.name, source.id) };
  }

  /** The targets of a routed event that `reader` may see (an object in a zone it cannot read is never named to it). */
  async targetsFor(reader: Viewer, boardId: string, event: RoutedComponentEvent): Promise<string[]> {
    const readable = new Set((await this.deps.frames.placement(boardId, reader)).readable.map((placement) => placement.document));
    return event.targets.filter((target) => readable.has(target.document)).map((target) => target.objectId);
  }

  /** The object in a document the sender may read and has open, or 404. */
  private async findVisible(sender: Viewer, boardId: string, objectId: string): Promise<BoardObject> {
    for (const { document } of (await this.deps.frames.placement(boardId, sender)).readable) {
      const object = this.deps.liveObjects(document)?.find((candidate) => candidate.id === objectId);
      if (object) return object;
    }
    throw errors.notFound('Object');
  }

  /** The board's loaded component objects (the source excepted) whose manifests listen to `name`. */
  private async listeners(boardId: string, name: string, sourceId: string): Promise<RoutedComponentEvent['targets']> {
    const resolved = new Map<string, Promise<ResolvedComponent | null>>();
    const targets: RoutedComponentEvent['targets'] = [];
    for (const { document } of (await this.deps.frames.placement(boardId, EVERYTHING)).readable) {
      for (const object of this.deps.liveObjects(document) ?? []) {
        if (object.type !== EXTERNAL_COMPONENT || object.id === sourceId) continue;
        const url = object.data?.componentUrl;
        if (typeof url !== 'string') continue;
        if (!resolved.has(url)) resolved.set(url, resolveOrNull(object, this.deps.manifests));
        const component = await resolved.get(url)!;
        if (component && matchesAnyPattern(component.manifest.globalEvents.listen, name)) targets.push({ objectId: object.id, document });
      }
    }
    return targets;
  }
}

/** A listener whose component is gone or unknown simply hears nothing. */
async function resolveOrNull(object: BoardObject, manifests: ManifestResolver): Promise<ResolvedComponent | null> {
  try {
    return await componentOf(object, manifests);
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
}
