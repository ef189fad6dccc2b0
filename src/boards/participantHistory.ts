import type { Db } from '../store/database.js';
import type { BoardRole } from './accessTokens.js';

/** Remembers everyone who joined a board, so zones can be assigned to known participants. */
export class ParticipantHistory {
  constructor(private readonly db: Db) {}

  async record(boardId: string, userId: string, role: BoardRole, at: Date): Promise<void> {
    await this.db.boardParticipant.upsert({
      where: { boardId_userId: { boardId, userId } },
      create: { boardId, userId, role, firstJoinedAt: at, lastJoinedAt: at },
      update: { role, lastJoinedAt: at },
    });
  }

  /** Forgets participants whose ids can never come back (session participants forgotten with their credential). */
  async forget(boardId: string, userIds: string[]): Promise<void> {
    if (userIds.length > 0) await this.db.boardParticipant.deleteMany({ where: { boardId, userId: { in: userIds } } });
  }
}
