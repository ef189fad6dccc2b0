-- CreateTable
CREATE TABLE "board_storage" (
    "board_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "board_storage_pkey" PRIMARY KEY ("board_id")
);

-- CreateIndex
CREATE INDEX "board_storage_organization_id_bytes_idx" ON "board_storage"("organization_id", "bytes");

-- AddForeignKey
ALTER TABLE "board_storage" ADD CONSTRAINT "board_storage_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Written by hand (Prisma has no triggers). The migrator splits statements at a `;` that ends a
-- line, so a function keeps the `;` of its inner statements inside its lines.

-- Backfill: what each board's documents hold now.
INSERT INTO "board_storage" ("board_id", "organization_id", "bytes")
SELECT b."id", b."organization_id",
  COALESCE((SELECT SUM(LENGTH(s."state")) FROM "document_snapshots" s WHERE s."board_id" = b."id"), 0)
  + COALESCE((SELECT SUM(LENGTH(u."update")) FROM "document_updates" u WHERE u."board_id" = b."id"), 0)
FROM "boards" b;

-- A new board's row, counting any documents written under its id before it.
CREATE FUNCTION "board_storage_board_created"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO "board_storage" ("board_id", "organization_id", "bytes") VALUES (NEW."id", NEW."organization_id",
    COALESCE((SELECT SUM(LENGTH(s."state")) FROM "document_snapshots" s WHERE s."board_id" = NEW."id"), 0)
    + COALESCE((SELECT SUM(LENGTH(u."update")) FROM "document_updates" u WHERE u."board_id" = NEW."id"), 0)); RETURN NULL; END $$;

CREATE TRIGGER "board_storage_board_created" AFTER INSERT ON "boards"
  FOR EACH ROW EXECUTE FUNCTION "board_storage_board_created"();

-- The update log takes its rows a batch per statement: counted once per statement and board.
CREATE FUNCTION "board_storage_updates_added"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE "board_storage" s SET "bytes" = s."bytes" + a."bytes"
    FROM (SELECT "board_id", SUM(LENGTH("update")) AS "bytes" FROM "added" GROUP BY "board_id") a
    WHERE s."board_id" = a."board_id"; RETURN NULL; END $$;

CREATE TRIGGER "board_storage_updates_added" AFTER INSERT ON "document_updates"
  REFERENCING NEW TABLE AS "added" FOR EACH STATEMENT EXECUTE FUNCTION "board_storage_updates_added"();

CREATE FUNCTION "board_storage_updates_removed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE "board_storage" s SET "bytes" = s."bytes" - r."bytes"
    FROM (SELECT "board_id", SUM(LENGTH("update")) AS "bytes" FROM "removed" GROUP BY "board_id") r
    WHERE s."board_id" = r."board_id"; RETURN NULL; END $$;

CREATE TRIGGER "board_storage_updates_removed" AFTER DELETE ON "document_updates"
  REFERENCING OLD TABLE AS "removed" FOR EACH STATEMENT EXECUTE FUNCTION "board_storage_updates_removed"();

CREATE FUNCTION "board_storage_update_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE "board_storage" SET "bytes" = "bytes" - LENGTH(OLD."update") WHERE "board_id" = OLD."board_id"; UPDATE "board_storage"
    SET "bytes" = "bytes" + LENGTH(NEW."update") WHERE "board_id" = NEW."board_id"; RETURN NULL; END $$;

CREATE TRIGGER "board_storage_update_changed" AFTER UPDATE OF "update", "board_id" ON "document_updates"
  FOR EACH ROW EXECUTE FUNCTION "board_storage_update_changed"();

-- Snapshots change once per compaction: counted row by row.
CREATE FUNCTION "board_storage_snapshot_changed"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  IF TG_OP <> 'INSERT' THEN UPDATE "board_storage" SET "bytes" = "bytes" - LENGTH(OLD."state") WHERE "board_id" = OLD."board_id"; END IF; IF TG_OP <> 'DELETE' THEN UPDATE "board_storage"
    SET "bytes" = "bytes" + LENGTH(NEW."state") WHERE "board_id" = NEW."board_id"; END IF; RETURN NULL; END $$;

CREATE TRIGGER "board_storage_snapshot_changed" AFTER INSERT OR DELETE OR UPDATE OF "state", "board_id" ON "document_snapshots"
  FOR EACH ROW EXECUTE FUNCTION "board_storage_snapshot_changed"();
