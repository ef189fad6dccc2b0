-- AlterTable
ALTER TABLE "boards" ADD COLUMN     "guest_token_hash" TEXT,
ADD COLUMN     "host_token_hash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "boards_host_token_hash_key" ON "boards"("host_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "boards_guest_token_hash_key" ON "boards"("guest_token_hash");

