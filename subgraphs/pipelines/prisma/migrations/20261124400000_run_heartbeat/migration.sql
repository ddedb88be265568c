-- A running run's worker touches `heartbeat_at` every few seconds; a run whose heartbeat has
-- stopped lost its worker (a killed process) and is failed by the next sweep.
ALTER TABLE "pipelines"."runs" ADD COLUMN "heartbeat_at" TIMESTAMPTZ(3);
CREATE INDEX "runs_status_heartbeat_at_idx" ON "pipelines"."runs"("status", "heartbeat_at");
