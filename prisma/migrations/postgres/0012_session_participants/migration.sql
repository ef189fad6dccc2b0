-- AlterTable
ALTER TABLE "participant_links" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'personal';

-- CreateIndex
CREATE INDEX "participant_links_board_id_kind_created_at_idx" ON "participant_links"("board_id", "kind", "created_at");

