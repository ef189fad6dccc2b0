-- CreateTable
CREATE TABLE "participant_links" (
    "board_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "user_name" TEXT,
    "external_user_id" TEXT,
    "external_source" TEXT,
    "token_nonce" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "participant_links_pkey" PRIMARY KEY ("board_id","user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "participant_links_token_hash_key" ON "participant_links"("token_hash");

-- AddForeignKey
ALTER TABLE "participant_links" ADD CONSTRAINT "participant_links_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

