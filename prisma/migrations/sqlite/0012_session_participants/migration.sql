-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_participant_links" (
    "board_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "user_name" TEXT,
    "external_user_id" TEXT,
    "external_source" TEXT,
    "token_nonce" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'personal',
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,

    PRIMARY KEY ("board_id", "user_id"),
    CONSTRAINT "participant_links_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_participant_links" ("board_id", "created_at", "external_source", "external_user_id", "token_hash", "token_nonce", "updated_at", "user_id", "user_name") SELECT "board_id", "created_at", "external_source", "external_user_id", "token_hash", "token_nonce", "updated_at", "user_id", "user_name" FROM "participant_links";
DROP TABLE "participant_links";
ALTER TABLE "new_participant_links" RENAME TO "participant_links";
CREATE UNIQUE INDEX "participant_links_token_hash_key" ON "participant_links"("token_hash");
CREATE INDEX "participant_links_board_id_kind_created_at_idx" ON "participant_links"("board_id", "kind", "created_at");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

