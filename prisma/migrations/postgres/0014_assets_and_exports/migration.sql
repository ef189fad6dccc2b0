-- CreateTable
CREATE TABLE "asset_blobs" (
    "hash" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "touched_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "asset_blobs_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "asset_blob_chunks" (
    "hash" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,

    CONSTRAINT "asset_blob_chunks_pkey" PRIMARY KEY ("hash","seq")
);

-- CreateTable
CREATE TABLE "assets" (
    "board_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "blob_hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "page_count" INTEGER,
    "zone_id" TEXT,
    "uploaded_by" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "assets_pkey" PRIMARY KEY ("board_id","id")
);

-- CreateTable
CREATE TABLE "asset_renditions" (
    "source_hash" TEXT NOT NULL,
    "variant" TEXT NOT NULL,
    "blob_hash" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,

    CONSTRAINT "asset_renditions_pkey" PRIMARY KEY ("source_hash","variant")
);

-- CreateTable
CREATE TABLE "export_jobs" (
    "id" TEXT NOT NULL,
    "board_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "requested_by" TEXT,
    "scope" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "container" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "progress_done" INTEGER NOT NULL,
    "progress_total" INTEGER NOT NULL,
    "result_hash" TEXT,
    "result_bytes" INTEGER,
    "file_name" TEXT,
    "error" TEXT,
    "lease_until" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "export_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "assets_organization_id_blob_hash_idx" ON "assets"("organization_id", "blob_hash");

-- CreateIndex
CREATE INDEX "assets_blob_hash_idx" ON "assets"("blob_hash");

-- CreateIndex
CREATE INDEX "export_jobs_status_created_at_idx" ON "export_jobs"("status", "created_at");

-- CreateIndex
CREATE INDEX "export_jobs_board_id_idx" ON "export_jobs"("board_id");

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_blob_hash_fkey" FOREIGN KEY ("blob_hash") REFERENCES "asset_blobs"("hash") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_jobs" ADD CONSTRAINT "export_jobs_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

