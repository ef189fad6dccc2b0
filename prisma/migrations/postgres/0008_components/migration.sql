-- CreateTable
CREATE TABLE "components" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "components_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "component_versions" (
    "id" TEXT NOT NULL,
    "component_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "manifest" TEXT NOT NULL,
    "entry" TEXT NOT NULL,
    "total_bytes" INTEGER NOT NULL,
    "deprecated" BOOLEAN NOT NULL DEFAULT false,
    "deprecation_message" TEXT,
    "deleted_at" TIMESTAMP(3),
    "published_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "component_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "component_files" (
    "version_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "blob_hash" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,

    CONSTRAINT "component_files_pkey" PRIMARY KEY ("version_id","path")
);

-- CreateTable
CREATE TABLE "component_blobs" (
    "hash" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,

    CONSTRAINT "component_blobs_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "components_name_key" ON "components"("name");

-- CreateIndex
CREATE INDEX "components_organization_id_idx" ON "components"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "component_versions_component_id_version_key" ON "component_versions"("component_id", "version");

-- CreateIndex
CREATE INDEX "component_files_blob_hash_idx" ON "component_files"("blob_hash");

-- AddForeignKey
ALTER TABLE "components" ADD CONSTRAINT "components_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "component_versions" ADD CONSTRAINT "component_versions_component_id_fkey" FOREIGN KEY ("component_id") REFERENCES "components"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "component_files" ADD CONSTRAINT "component_files_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "component_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "component_files" ADD CONSTRAINT "component_files_blob_hash_fkey" FOREIGN KEY ("blob_hash") REFERENCES "component_blobs"("hash") ON DELETE RESTRICT ON UPDATE CASCADE;

