-- CreateTable
CREATE TABLE "frames" (
    "id" TEXT NOT NULL,
    "board_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "order" INTEGER NOT NULL DEFAULT 0,
    "bounds_x" DOUBLE PRECISION NOT NULL,
    "bounds_y" DOUBLE PRECISION NOT NULL,
    "bounds_width" DOUBLE PRECISION NOT NULL,
    "bounds_height" DOUBLE PRECISION NOT NULL,
    "lock_mode" TEXT NOT NULL,
    "background_color" TEXT,
    "visibility" TEXT NOT NULL,
    "parent_frame_id" TEXT,
    "assigned_participant_id" TEXT,
    "assigned_user_id" TEXT,
    "zone_visibility" TEXT NOT NULL,
    "zone_version" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "frames_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "board_participants" (
    "board_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "first_joined_at" TIMESTAMP(3) NOT NULL,
    "last_joined_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "board_participants_pkey" PRIMARY KEY ("board_id","user_id")
);

-- CreateIndex
CREATE INDEX "frames_board_id_order_idx" ON "frames"("board_id", "order");

-- AddForeignKey
ALTER TABLE "frames" ADD CONSTRAINT "frames_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "board_participants" ADD CONSTRAINT "board_participants_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

