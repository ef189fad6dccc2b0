-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "last_action_at" DATETIME,
    "memory" TEXT NOT NULL DEFAULT '{}',
    "scan_pending" BOOLEAN NOT NULL DEFAULT false,
    "created_by" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "agents_board_id_fkey" FOREIGN KEY ("board_id") REFERENCES "boards" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "agent_actions" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "created_at" DATETIME NOT NULL,
    CONSTRAINT "agent_actions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "agent_schedules" (
    "agent_id" TEXT NOT NULL,
    "entry_index" INTEGER NOT NULL,
    "pattern" TEXT NOT NULL,
    "next_run_at" DATETIME,
    "last_run_at" DATETIME,
    "lease_owner" TEXT,
    "lease_until" DATETIME,

    PRIMARY KEY ("agent_id", "entry_index"),
    CONSTRAINT "agent_schedules_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "agents_board_id_created_at_idx" ON "agents"("board_id", "created_at");

-- CreateIndex
CREATE INDEX "agent_actions_agent_id_created_at_idx" ON "agent_actions"("agent_id", "created_at");

-- CreateIndex
CREATE INDEX "agent_schedules_next_run_at_idx" ON "agent_schedules"("next_run_at");

