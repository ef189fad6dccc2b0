-- AlterTable
ALTER TABLE "frames" ADD COLUMN     "objects_count" INTEGER NOT NULL DEFAULT 0;

