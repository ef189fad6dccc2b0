import { randomUUID } from 'node:crypto';
import type { BoardFrames } from '../boards/boardService.js';
import type { Clock } from '../clock.js';
import type { Db } from '../store/database.js';

/**
 * The frames of a duplicated board (POST /boards/<id>/duplicate). A copy keeps what a frame is
 * (name, order, bounds, lock mode, colour, visibility, and its `zone_visibility`, so assigning
 * it again in the copy restores its privacy mode) and loses whom it was for: a
 * duplicate copies no participant history, so a zone becomes a plain frame. `zone_version`
 * starts again at 1.
 */
export class FrameCopier implements BoardFrames {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async frameIds(boardId: string): Promise<string[]> {
    const rows = await this.db.frame.findMany({ where: { boardId }, select: { id: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map((row) => row.id);
  }

  async copyFrames(fromBoardId: string, toBoardId: string): Promise<void> {
    const rows = await this.db.frame.findMany({ where: { boardId: fromBoardId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    if (rows.length === 0) return;
    const copyIds = new Map(rows.map((row) => [row.id, randomUUID()]));
    const now = this.clock.now().getTime();
    await this.db.frame.createMany({
      data: rows.map((row, index) => {
        // One millisecond apart, in the source's order: frames of equal `order` list as they did.
        const createdAt = new Date(now + index);
        return {
          id: copyIds.get(row.id)!,
          boardId: toBoardId,
          name: row.name,
          order: row.order,
          boundsX: row.boundsX,
          boundsY: row.boundsY,
          boundsWidth: row.boundsWidth,
          boundsHeight: row.boundsHeight,
          lockMode: row.lockMode,
          backgroundColor: row.backgroundColor,
          visibility: row.visibility,
          parentFrameId: row.parentFrameId === null ? null : (copyIds.get(row.parentFrameId) ?? null),
          assignedParticipantId: null,
          assignedUserId: null,
          zoneVisibility: row.zoneVisibility,
          zoneVersion: 1,
          createdAt,
          updatedAt: createdAt,
        };
      }),
    });
  }
}
