import type { Connection, Hocuspocus } from '@hocuspocus/server';
import * as Y from 'yjs';
import type { Board } from '../boards/board.js';
import { objectsOf, readObject } from '../boards/boardObjects.js';
import { presentFrame, zoneDocumentName, type Frame } from '../frames/frame.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import type { FrameChangeListener } from '../frames/frameService.js';
import { contains, isZone, zoneAccess } from '../frames/zonePermissions.js';
import type { BoardDocuments } from './boardDocuments.js';
import { CloseEvents } from './closeEvents.js';
import type { ServerMessage } from './messages.js';
import type { SocketContext } from './socketContext.js';
import type { SocketMessenger } from './socketMessenger.js';
import { viewerOf } from './viewer.js';

/**
 * Applies a frame change to the live side at once: tells each socket what it may see
 * (`frame:*`), re-decides every open connection to the zone's document (closed when the
 * right is gone, read-only or writable as the rules now say), and moves a zone's objects
 * with it when the host moves the zone.
 */
export class ZoneSync implements FrameChangeListener {
  constructor(
    private readonly hocuspocus: Hocuspocus,
    private readonly messenger: SocketMessenger,
    private readonly documents: BoardDocuments,
    private readonly frames: FrameDirectory,
  ) {}

  async frameChanged(board: Board, before: Frame | null, after: Frame): Promise<void> {
    this.frames.invalidate(board.id);
    this.announce(board.id, before, after);
    this.reauthorize(board.id, after);
    if (before && isZone(before)) await this.carryObjects(board, before, after);
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

  /** Moves the objects of a zone the host moved, in one transaction per document. */
  private async carryObjects(board: Board, before: Frame, after: Frame): Promise<void> {
    const dx = after.bounds.x - before.bounds.x;
    const dy = after.bounds.y - before.bounds.y;
    if (dx === 0 && dy === 0) return;
    const context = { boardId: board.id, organizationId: board.organizationId, userId: null };
    const shift = (inside: (position: { x: number; y: number }) => boolean) => (doc: Y.Doc) => {
      const objects = objectsOf(doc);
      objects.forEach((value, id) => {
        const object = readObject(id, value);
        if (!object?.position || !inside(object.position)) return;
        const position = { x: object.position.x + dx, y: object.position.y + dy };
        // Objects written as plain JSON values (readObjects reads both shapes) are replaced whole.
        if (value instanceof Y.Map) value.set('position', position);
        else objects.set(id, { ...(value as object), position });
      });
    };
    await this.documents.write(zoneDocumentName(board.id, after.id), context, shift(() => true));
    await this.documents.write(board.id, context, shift((position) => contains(before.bounds, position)));
  }
}

/** A connection that lost the right to a zone stops receiving it at once. */
function closeZoneConnection(connection: Connection): void {
  connection.close({ code: CloseEvents.ZoneForbidden.code, reason: CloseEvents.ZoneForbidden.reason });
}
