import type { Placement, ZonePlacement } from '../boards/ports.js';
import type { Db } from '../store/database.js';
import { LoadedCache } from '../util/loadedCache.js';
import { frameIdOfDocument, zoneDocumentName } from '../store/documentNames.js';
import { frameFromRow, type Frame } from './frame.js';
import { isForbiddenWrite, placementOf as writeTargetOf, type ObjectWrite, type Point } from './writeRules.js';
import { zoneAccess, type Viewer, type ZoneAccess } from './zonePermissions.js';

/**
 * Reads frames without a caller: for the socket side, which decides access per connection,
 * and for boards, which place new content by the zone rules.
 */
export class FrameDirectory implements ZonePlacement {
  /** Frames per board for the write check, which runs on every socket update. */
  private readonly cache = new LoadedCache<string, Frame[]>();

  constructor(private readonly db: Db) {}

  /** The board's frames, cached until `invalidate` (every frame change calls it). */
  cachedFramesOfBoard(boardId: string): Promise<Frame[]> {
    return this.cache.get(boardId, () => this.framesOfBoard(boardId));
  }

  invalidate(boardId: string): void {
    this.cache.delete(boardId);
  }

  /** Forgets every board's frames (changes made elsewhere may have been missed). */
  invalidateAll(): void {
    this.cache.clear();
  }

  async framesOfBoard(boardId: string): Promise<Frame[]> {
    return (await this.db.frame.findMany({ where: { boardId } })).map(frameFromRow);
  }

  async frame(boardId: string, frameId: string): Promise<Frame | null> {
    const row = await this.db.frame.findFirst({ where: { id: frameId, boardId } });
    return row ? frameFromRow(row) : null;
  }

  /** What a viewer may do with a zone document; `none` for a frame that does not exist. */
  async accessToZoneDocument(boardId: string, frameId: string, viewer: Viewer): Promise<ZoneAccess> {
    const frame = await this.frame(boardId, frameId);
    return frame ? zoneAccess(frame, viewer) : 'none';
  }

  async placementOf(boardId: string, writer: Viewer, point: Point): Promise<Placement | null> {
    const target = writeTargetOf(writer, point, await this.cachedFramesOfBoard(boardId));
    if (!target) return null;
    if (target.kind === 'board') return { document: boardId, zoneId: null };
    return { document: zoneDocumentName(boardId, target.frame.id), zoneId: target.frame.id };
  }

  async readableDocuments(boardId: string, reader: Viewer): Promise<Placement[]> {
    const zones = (await this.cachedFramesOfBoard(boardId)).filter((frame) => zoneAccess(frame, reader) !== 'none');
    return [{ document: boardId, zoneId: null }, ...zones.map((frame) => ({ document: zoneDocumentName(boardId, frame.id), zoneId: frame.id }))];
  }

  async mayWrite(boardId: string, writer: Viewer, document: string, write: ObjectWrite): Promise<boolean> {
    const frames = await this.cachedFramesOfBoard(boardId);
    const frameId = frameIdOfDocument(document);
    if (!frameId) return !isForbiddenWrite(writer, { kind: 'board', zones: frames }, write);
    const frame = frames.find((candidate) => candidate.id === frameId);
    return frame !== undefined && zoneAccess(frame, writer) === 'write' && !isForbiddenWrite(writer, { kind: 'zone', frame }, write);
  }
}
