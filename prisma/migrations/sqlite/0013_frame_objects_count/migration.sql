-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_frames" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "board_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "order" INTEGER NOT NULL DEFAULT 0,
    "bounds_x" REAL NOT NULL,
    "bounds_y" REAL NOT NULL,
    "bounds_width" REAL NOT NULL,
    "bounds_height" REAL NOT NULL,
    "lock_mode" TEXT NOT NULL,
    "background_color" TEXT,
    "visibility" TEXT NOT NULL,
    "parent_frame_id" TEXT,
    "assigned_participant_id" TEXT,
    "assigned_user_id" TEXT,
    "zone_visibility" TEXT NOT NULL,
    "zone_version" INTEGER NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,
    "objects_count" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "frames_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_frames" ("assigned_participant_id", "assigned_user_id", "background_color", "board_id", "bounds_height", "bounds_width", "bounds_x", "bounds_y", "created_at", "id", "lock_mode", "name", "order", "parent_frame_id", "updated_at", "visibility", "zone_version", "zone_visibility") SELECT "assigned_participant_id", "assigned_user_id", "background_color", "board_id", "bounds_height", "bounds_width", "bounds_x", "bounds_y", "created_at", "id", "lock_mode", "name", "order", "parent_frame_id", "updated_at", "visibility", "zone_version", "zone_visibility" FROM "frames";
DROP TABLE "frames";
ALTER TABLE "new_frames" RENAME TO "frames";
CREATE INDEX "frames_board_id_order_idx" ON "frames"("board_id", "order");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

