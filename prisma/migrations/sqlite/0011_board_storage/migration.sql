-- CreateTable
CREATE TABLE "board_storage" (
    "board_id" TEXT NOT NULL PRIMARY KEY,
    "organization_id" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "board_storage_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "board_storage_organization_id_bytes_idx" ON "board_storage"("organization_id", "bytes");


-- Written by hand (Prisma has no triggers). The migrator splits statements at a `;` that ends a
-- line, so a trigger keeps the `;` of its inner statements inside its lines.

-- Backfill: what each board's documents hold now.
INSERT INTO "board_storage" ("board_id", "organization_id", "bytes")
SELECT b."id", b."organization_id",
  COALESCE((SELECT SUM(LENGTH(s."state")) FROM "document_snapshots" s WHERE s."board_id" = b."id"), 0)
  + COALESCE((SELECT SUM(LENGTH(u."update")) FROM "document_updates" u WHERE u."board_id" = b."id"), 0)
FROM "boards" b;

-- A new board's row, counting any documents written under its id before it.
CREATE TRIGGER "board_storage_board_created" AFTER INSERT ON "boards" BEGIN
  INSERT INTO "board_storage" ("board_id", "organization_id", "bytes") VALUES (NEW."id", NEW."organization_id",
    COALESCE((SELECT SUM(LENGTH(s."state")) FROM "document_snapshots" s WHERE s."board_id" = NEW."id"), 0)
    + COALESCE((SELECT SUM(LENGTH(u."update")) FROM "document_updates" u WHERE u."board_id" = NEW."id"), 0)); END;

CREATE TRIGGER "board_storage_update_added" AFTER INSERT ON "document_updates" BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" + LENGTH(NEW."update") WHERE "board_id" = NEW."board_id"; END;

CREATE TRIGGER "board_storage_update_removed" AFTER DELETE ON "document_updates" BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" - LENGTH(OLD."update") WHERE "board_id" = OLD."board_id"; END;

CREATE TRIGGER "board_storage_update_changed" AFTER UPDATE OF "update", "board_id" ON "document_updates" BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" - LENGTH(OLD."update") WHERE "board_id" = OLD."board_id"; UPDATE "board_storage"
    SET "bytes" = "bytes" + LENGTH(NEW."update") WHERE "board_id" = NEW."board_id"; END;

CREATE TRIGGER "board_storage_snapshot_added" AFTER INSERT ON "document_snapshots" BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" + LENGTH(NEW."state") WHERE "board_id" = NEW."board_id"; END;

CREATE TRIGGER "board_storage_snapshot_removed" AFTER DELETE ON "document_snapshots" BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" - LENGTH(OLD."state") WHERE "board_id" = OLD."board_id"; END;

CREATE TRIGGER "board_storage_snapshot_changed" AFTER UPDATE OF "state", "board_id" ON "document_snapshots" BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" - LENGTH(OLD."state") WHERE "board_id" = OLD."board_id"; UPDATE "board_storage"
    SET "bytes" = "bytes" + LENGTH(NEW."state") WHERE "board_id" = NEW."board_id"; END;
