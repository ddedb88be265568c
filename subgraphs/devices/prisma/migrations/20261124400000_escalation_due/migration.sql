-- Escalations are due times on the alerts themselves, escalated in batches by a sweep, instead
-- of one queued job per alert and level.
ALTER TABLE "devices"."alerts" ADD COLUMN "next_escalation_at" TIMESTAMPTZ(3);
CREATE INDEX "alerts_status_next_escalation_at_idx" ON "devices"."alerts"("status", "next_escalation_at");

-- Active alerts keep escalating, on the default delays (60 / 300 / 900 s) from their last step.
UPDATE "devices"."alerts"
SET "next_escalation_at" = COALESCE("escalated_at", "raised_at")
  + CASE "priority" WHEN 'high' THEN 60 WHEN 'medium' THEN 300 ELSE 900 END * INTERVAL '1 second'
WHERE "status" = 'active';
