-- CreateTable
CREATE TABLE "frames" (
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
    CONSTRAINT "frames_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "board_participants" (
    "board_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "first_joined_at" DATETIME NOT NULL,
    "last_joined_at" DATETIME NOT NULL,

    PRIMARY KEY ("board_id", "user_id"),
    CONSTRAINT "board_participants_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "frames_board_id_order_idx" ON "frames"("board_id", "order");

