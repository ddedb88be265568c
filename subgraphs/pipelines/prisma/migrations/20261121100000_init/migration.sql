CREATE TABLE "pipelines"."pipelines" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "source" JSONB NOT NULL,
    "destination" JSONB NOT NULL,
    "transformations" JSONB NOT NULL,
    "sync" JSONB NOT NULL,
    "schedule" TEXT,
    "next_run_at" TIMESTAMPTZ(3),
    "cursor_state" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    CONSTRAINT "pipelines_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "pipelines_next_run_at_idx" ON "pipelines"."pipelines"("next_run_at");

CREATE TABLE "pipelines"."runs" (
    "id" UUID NOT NULL,
    "pipeline_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "records_read" INTEGER NOT NULL DEFAULT 0,
    "records_processed" INTEGER NOT NULL DEFAULT 0,
    "error_code" TEXT,
    "error_message" TEXT,
    "cursor_from" JSONB,
    "cursor_to" JSONB,
    CONSTRAINT "runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "runs_pipeline_id_fkey" FOREIGN KEY ("pipeline_id")
        REFERENCES "pipelines"."pipelines"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "runs_status_check" CHECK ("status" IN ('running', 'success', 'failed', 'cancelled'))
);
CREATE INDEX "runs_pipeline_id_started_at_idx" ON "pipelines"."runs"("pipeline_id", "started_at");
-- At most one run of a pipeline at a time, whichever replica starts it.
CREATE UNIQUE INDEX "runs_one_running_per_pipeline" ON "pipelines"."runs"("pipeline_id") WHERE "status" = 'running';

CREATE TABLE "pipelines"."run_logs" (
    "id" BIGSERIAL NOT NULL,
    "run_id" UUID NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "level" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    CONSTRAINT "run_logs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "run_logs_run_id_fkey" FOREIGN KEY ("run_id")
        REFERENCES "pipelines"."runs"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "run_logs_run_id_id_idx" ON "pipelines"."run_logs"("run_id", "id");

CREATE TABLE "pipelines"."outbox" (
    "id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbox_occurred_at_idx" ON "pipelines"."outbox"("occurred_at");
CREATE TRIGGER "outbox_notify" AFTER INSERT ON "pipelines"."outbox"
    FOR EACH ROW EXECUTE FUNCTION "platform"."notify_outbox"();
