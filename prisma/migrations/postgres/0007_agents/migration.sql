-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "board_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "persona" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "priority" INTEGER NOT NULL,
    "visibility" TEXT NOT NULL,
    "max_actions_per_minute" INTEGER NOT NULL,
    "budget_tokens" INTEGER,
    "spent_tokens" INTEGER NOT NULL DEFAULT 0,
    "actions_count" INTEGER NOT NULL DEFAULT 0,
    "last_action_at" TIMESTAMP(3),
    "memory" TEXT NOT NULL DEFAULT '{}',
    "scan_pending" BOOLEAN NOT NULL DEFAULT false,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_actions" (
    "id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "trigger_event_type" TEXT NOT NULL,
    "trigger_event_data" TEXT NOT NULL,
    "should_act" BOOLEAN NOT NULL,
    "reasoning" TEXT NOT NULL,
    "action_type" TEXT NOT NULL,
    "action_params" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "result" TEXT NOT NULL,
    "error_message" TEXT,
    "tokens_used" INTEGER NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_actions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_schedules" (
    "agent_id" TEXT NOT NULL,
    "entry_index" INTEGER NOT NULL,
    "pattern" TEXT NOT NULL,
    "next_run_at" TIMESTAMP(3),
    "last_run_at" TIMESTAMP(3),
    "lease_owner" TEXT,
    "lease_until" TIMESTAMP(3),

    CONSTRAINT "agent_schedules_pkey" PRIMARY KEY ("agent_id","entry_index")
);

-- CreateIndex
CREATE INDEX "agents_board_id_created_at_idx" ON "agents"("board_id", "created_at");

-- CreateIndex
CREATE INDEX "agent_actions_agent_id_created_at_idx" ON "agent_actions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "agent_schedules_next_run_at_idx" ON "agent_schedules"("next_run_at");

-- AddForeignKey
ALTER TABLE "agents" ADD CONSTRAINT "agents_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_actions" ADD CONSTRAINT "agent_actions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_schedules" ADD CONSTRAINT "agent_schedules_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

