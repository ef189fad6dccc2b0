-- CreateTable
CREATE TABLE "participant_links" (
    "board_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "user_name" TEXT,
    "external_user_id" TEXT,
    "external_source" TEXT,
    "token_nonce" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,

    PRIMARY KEY ("board_id", "user_id"),
    CONSTRAINT "participant_links_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "participant_links_token_hash_key" ON "participant_links"("token_hash");

