import type { Db } from '../store/database.js';
import { frameFromRow, type Frame } from './frame.js';
import { zoneAccess, type Viewer, type ZoneAccess } from './zonePermissions.js';

/** Reads frames without a caller: for the socket side, which decides access per connection. */
export class FrameDirectory {
  constructor(private readonly db: Db) {}

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
}
