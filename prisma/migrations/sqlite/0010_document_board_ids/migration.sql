-- AlterTable
ALTER TABLE "document_snapshots" ADD COLUMN "board_id" TEXT;

-- AlterTable
ALTER TABLE "document_updates" ADD COLUMN "board_id" TEXT;

-- Backfill: a document's name starts with its board's id (`<board>` or `<board>/zones/<frame>`).
UPDATE "document_snapshots" SET "board_id" = SUBSTR("name", 1, 36) WHERE "board_id" IS NULL;
UPDATE "document_updates" SET "board_id" = SUBSTR("name", 1, 36) WHERE "board_id" IS NULL;

-- CreateIndex
CREATE INDEX "document_snapshots_board_id_idx" ON "document_snapshots"("board_id");

-- CreateIndex
CREATE INDEX "document_updates_board_id_idx" ON "document_updates"("board_id");

