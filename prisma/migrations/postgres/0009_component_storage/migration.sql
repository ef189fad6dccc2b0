-- CreateTable
CREATE TABLE "component_storage_values" (
    "board_id" TEXT NOT NULL,
    "object_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "component_storage_values_pkey" PRIMARY KEY ("board_id","object_id","user_id","key")
);

-- CreateTable
CREATE TABLE "component_action_counts" (
    "board_id" TEXT NOT NULL,
    "object_id" TEXT NOT NULL,
    "action_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "component_action_counts_pkey" PRIMARY KEY ("board_id","object_id","action_id")
);

-- AddForeignKey
ALTER TABLE "component_storage_values" ADD CONSTRAINT "component_storage_values_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "component_action_counts" ADD CONSTRAINT "component_action_counts_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

