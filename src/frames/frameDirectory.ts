import type { ObjectPlacement } from '../objects/placement.js';
import type { Db } from '../store/database.js';
import { LoadedCache } from '../util/loadedCache.js';
import { frameFromRow, type Frame } from './frame.js';
import { ZonePlacement } from './zonePlacement.js';
import { zoneAccess, type Viewer, type ZoneAccess } from './zonePermissions.js';

/**
 * Reads frames without a caller: for the socket side, which decides access per connection,
 * and for objects, which ask it one question per call (`placement`).
 */
export class FrameDirectory implements ObjectPlacement {
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

  /** The zone rules of a board for `viewer`, over one read of its cached frames. */
  async placement(boardId: string, viewer: Viewer): Promise<ZonePlacement> {
    return new ZonePlacement(boardId, viewer, await this.cachedFramesOfBoard(boardId));
  }
}
