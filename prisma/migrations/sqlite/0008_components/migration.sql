-- CreateTable
CREATE TABLE "components" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    CONSTRAINT "components_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "component_versions" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "component_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "manifest" TEXT NOT NULL,
    "entry" TEXT NOT NULL,
    "total_bytes" INTEGER NOT NULL,
    "deprecated" BOOLEAN NOT NULL DEFAULT false,
    "deprecation_message" TEXT,
    "deleted_at" DATETIME,
    "published_at" DATETIME NOT NULL,
    CONSTRAINT "component_versions_component_id_fkey" FOREIGN KEY ("component_id") REFERENCES "components" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "component_files" (
    "version_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "blob_hash" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,

    PRIMARY KEY ("version_id", "path"),
    CONSTRAINT "component_files_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "component_versions" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "component_files_blob_hash_fkey" FOREIGN KEY ("blob_hash") REFERENCES "component_blobs" ("hash") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "component_blobs" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "content" BLOB NOT NULL,
    "size" INTEGER NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "components_name_key" ON "components"("name");

-- CreateIndex
CREATE INDEX "components_organization_id_idx" ON "components"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "component_versions_component_id_version_key" ON "component_versions"("component_id", "version");

-- CreateIndex
CREATE INDEX "component_files_blob_hash_idx" ON "component_files"("blob_hash");

