-- CreateTable
CREATE TABLE "component_storage_values" (
    "board_id" TEXT NOT NULL,
    "object_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updated_at" DATETIME NOT NULL,

    PRIMARY KEY ("board_id", "object_id", "user_id", "key"),
    CONSTRAINT "component_storage_values_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "component_action_counts" (
    "board_id" TEXT NOT NULL,
    "object_id" TEXT NOT NULL,
    "action_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("board_id", "object_id", "action_id"),
    CONSTRAINT "component_action_counts_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

