import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Connection, Hocuspocus } from '@hocuspocus/server';
import * as Y from 'yjs';
import type { Board } from '../boards/board.js';
import { objectsOf, putObjects, readObject, type BoardObject } from '../boards/boardObjects.js';
import { presentFrame, type Bounds, type Frame } from '../frames/frame.js';
import { zoneDocumentName } from '../store/documentNames.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import type { FrameChangeListener } from '../frames/frameService.js';
import { zoneAt, type Point } from '../frames/writeRules.js';
import { contains, isActiveZone, isZone, zoneAccess } from '../frames/zonePermissions.js';
import type { BoardDocuments } from './boardDocuments.js';
import { CloseEvents } from './closeEvents.js';
import type { ServerMessage } from './messages.js';
import { frameToWire, type SocketSignal } from './socketSignals.js';
import type { InstanceChannel } from '../store/instanceChannels.js';
import type { SocketContext } from './socketContext.js';
import type { SocketMessenger } from './socketMessenger.js';
import { viewerOf } from './viewer.js';

/**
 * Applies a frame change to the live side at once: tells each socket what it may see
 * (`frame:*`), re-decides every open connection to the zone's document (closed when the
 * right is gone, read-only or writable as the rules now say), and keeps the zone's content
 * in the zone's document (gatherContent).
 */
export class ZoneSync implements FrameChangeListener {
  constructor(
    private readonly hocuspocus: Hocuspocus,
    private readonly messenger: SocketMessenger,
    private readonly documents: BoardDocuments,
    private readonly frames: FrameDirectory,
    private readonly signals: InstanceChannel<SocketSignal>,
  ) {}

  async frameChanged(board: Board, before: Frame | null, after: Frame): Promise<void> {
    this.signals.publish({ kind: 'frame-changed', boardId: board.id, before: before && frameToWire(before), after: frameToWire(after) });
    this.frameChangedHere(board.id, before, after);
    // The documents' changes reach the other instances as any change does.
    await this.gatherContent(board, before, after);
  }

  /** What a frame change does to this instance's sockets and caches. */
  frameChangedHere(boardId: string, before: Frame | null, after: Frame): void {
    this.frames.invalidate(boardId);
    this.announce(boardId, before, after);
    this.reauthorize(boardId, after);
  }

  private announce(boardId: string, before: Frame | null, after: Frame): void {
    const record = presentFrame(after);
    const archived = after.visibility === 'archived' && before?.visibility !== 'archived';
    const type = before === null ? 'frame:created' : archived ? 'frame:deleted' : 'frame:updated';
    const message: ServerMessage = { type, frame: record };
    const gone: ServerMessage = { type: 'frame:deleted', frame: { id: after.id } };
    // A lock mode set over REST reaches clients the way a host's `frame:lock` does.
    const lock: ServerMessage | null =
      before && before.lockMode !== after.lockMode ? { type: 'frame:lock', frameId: after.id, lockMode: after.lockMode, from: 'api' } : null;
    const document = this.hocuspocus.documents.get(boardId);
    for (const connection of document?.getConnections() ?? []) {
      const viewer = viewerOf(connection.context as SocketContext);
      if (!viewer) continue;
      if (zoneAccess(after, viewer) !== 'none') {
        this.messenger.send(connection, message);
        if (lock) this.messenger.send(connection, lock);
      } else if (before && zoneAccess(before, viewer) !== 'none') {
        this.messenger.send(connection, gone);
      }
    }
  }

  private reauthorize(boardId: string, frame: Frame): void {
    const document = this.hocuspocus.documents.get(zoneDocumentName(boardId, frame.id));
    for (const connection of document?.getConnections() ?? []) {
      const viewer = viewerOf(connection.context as SocketContext);
      const access = viewer ? zoneAccess(frame, viewer) : 'none';
      if (access === 'none') closeZoneConnection(connection);
      else connection.readOnly = access === 'read';
    }
  }

  /**
   * Keeps a zone's content in the zone's document as the zone changes. A moved zone takes
   * its objects along. Board-document objects that come to lie inside an active zone (created,
   * assigned, restored, moved or resized over them) move into the zone's document: written
   * there first, then deleted from the board's, so a crash in between leaves a copy rather than
   * losing one. An unassigned zone keeps its objects in its document, which is everyone's now.
   */
  private async gatherContent(board: Board, before: Frame | null, after: Frame): Promise<void> {
    const offset = before && isZone(before) ? { dx: after.bounds.x - before.bounds.x, dy: after.bounds.y - before.bounds.y } : { dx: 0, dy: 0 };
    const moved = offset.dx !== 0 || offset.dy !== 0;
    const covers = isActiveZone(after) && (!before || !isActiveZone(before) || !sameBounds(before.bounds, after.bounds));
    // Objects an earlier version left in the board document inside an active zone travel with it.
    const carried = before && isActiveZone(before) && moved ? before.bounds : null;
    const incoming = covers ? await this.objectsEntering(board.id, after, carried, offset) : [];
    if (!moved && incoming.length === 0) return;
    const context = { boardId: board.id, organizationId: board.organizationId, userId: null, relocation: true };
    await this.documents.write(zoneDocumentName(board.id, after.id), context, (doc) => {
      if (moved) shiftObjects(doc, offset);
      placeObjects(doc, incoming.map(({ placed }) => placed));
    });
    if (incoming.length > 0) await this.documents.write(board.id, context, (doc) => removeUnchanged(doc, incoming.map(({ original }) => original)));
  }

  /** Board-document objects that lie inside `zone` once it changed, each as it is and as it goes into the zone. */
  private async objectsEntering(boardId: string, zone: Frame, carried: Bounds | null, offset: Offset): Promise<Moving[]> {
    const frames = await this.frames.framesOfBoard(boardId);
    const entering: Moving[] = [];
    for (const original of await this.documents.readObjects(boardId)) {
      if (!isPoint(original.position)) continue;
      const position = carried && contains(carried, original.position) ? { x: original.position.x + offset.dx, y: original.position.y + offset.dy } : original.position;
      if (zoneAt(position, frames)?.id === zone.id) entering.push({ original, placed: { ...original, position } });
    }
    return entering;
  }
}

interface Offset {
  dx: number;
  dy: number;
}

/** A board-document object moving into a zone document: as it is, and as it lands. */
interface Moving {
  original: BoardObject;
  placed: BoardObject;
}

function sameBounds(a: Bounds, b: Bounds): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}

function isPoint(value: unknown): value is Point {
  const point = value as { x?: unknown; y?: unknown } | null;
  return typeof point === 'object' && point !== null && typeof point.x === 'number' && typeof point.y === 'number';
}

/** Moves every object of a document by `offset`; call inside a transaction. */
function shiftObjects(doc: Y.Doc, { dx, dy }: Offset): void {
  const objects = objectsOf(doc);
  objects.forEach((value, id) => {
    const object = readObject(id, value);
    if (!object || !isPoint(object.position)) return;
    const position = { x: object.position.x + dx, y: object.position.y + dy };
    // Objects written as plain JSON values (readObjects reads both shapes) are replaced whole.
    if (value instanceof Y.Map) value.set('position', position);
    else objects.set(id, { ...(value as object), position });
  });
}

/**
 * Puts objects moving in into a zone document. An object already there keeps its id: the
 * same object (copied by a move a crash cut short) is not copied twice, and a different
 * one arriving under that id gets a new id rather than overwriting it.
 */
function placeObjects(doc: Y.Doc, objects: BoardObject[]): void {
  const existing = objectsOf(doc);
  const fresh = objects.flatMap((object) => {
    if (!existing.has(object.id)) return [object];
    if (isDeepStrictEqual(readObject(object.id, existing.get(object.id)), object)) return [];
    return [{ ...object, id: randomUUID() }];
  });
  putObjects(doc, fresh);
}

/** Deletes the moved objects from the board document, unless one changed since it was copied (it stays). */
function removeUnchanged(doc: Y.Doc, originals: BoardObject[]): void {
  const objects = objectsOf(doc);
  for (const original of originals) {
    if (isDeepStrictEqual(readObject(original.id, objects.get(original.id)), original)) objects.delete(original.id);
  }
}

/** A connection that lost the right to a zone stops receiving it at once. */
function closeZoneConnection(connection: Connection): void {
  connection.close({ code: CloseEvents.ZoneForbidden.code, reason: CloseEvents.ZoneForbidden.reason });
}
