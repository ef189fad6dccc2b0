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
}
