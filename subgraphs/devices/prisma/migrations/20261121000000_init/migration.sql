CREATE TABLE "devices"."signals" (
    "id" UUID NOT NULL,
    "device_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submitted_by" TEXT NOT NULL,
    CONSTRAINT "signals_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "signals_device_id_observed_at_idx" ON "devices"."signals"("device_id", "observed_at");

CREATE TABLE "devices"."aac_devices" (
    "device_id" TEXT NOT NULL,
    "dwell_config" JSONB,
    "dwell_state" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "aac_devices_pkey" PRIMARY KEY ("device_id")
);

CREATE TABLE "devices"."dwell_events" (
    "id" UUID NOT NULL,
    "device_id" TEXT NOT NULL,
    "signal_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "x" DOUBLE PRECISION NOT NULL,
    "y" DOUBLE PRECISION NOT NULL,
    "dwell_ms" INTEGER,
    "reason" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "dwell_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "dwell_events_device_id_occurred_at_idx" ON "devices"."dwell_events"("device_id", "occurred_at");

CREATE TABLE "devices"."alerts" (
    "id" UUID NOT NULL,
    "device_id" TEXT NOT NULL,
    "priority" TEXT NOT NULL,
    "message" TEXT,
    "status" TEXT NOT NULL,
    "escalation_level" INTEGER NOT NULL DEFAULT 0,
    "raised_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "raised_by" TEXT NOT NULL,
    "acknowledged_at" TIMESTAMPTZ(3),
    "acknowledged_by" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "resolved_by" TEXT,
    "escalated_at" TIMESTAMPTZ(3),
    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alerts_priority_check" CHECK ("priority" IN ('high', 'medium', 'low')),
    CONSTRAINT "alerts_status_check" CHECK ("status" IN ('active', 'acknowledged', 'resolved'))
);
CREATE INDEX "alerts_device_id_raised_at_idx" ON "devices"."alerts"("device_id", "raised_at");
CREATE INDEX "alerts_status_raised_at_idx" ON "devices"."alerts"("status", "raised_at");

CREATE TABLE "devices"."circuits" (
    "id" UUID NOT NULL,
    "qubits" INTEGER NOT NULL,
    "gates" TEXT[],
    "shots" INTEGER,
    "seed" BIGINT,
    "probabilities" JSONB NOT NULL,
    "counts" JSONB,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submitted_by" TEXT NOT NULL,
    CONSTRAINT "circuits_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "devices"."outbox" (
    "id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbox_occurred_at_idx" ON "devices"."outbox"("occurred_at");
CREATE TRIGGER "outbox_notify" AFTER INSERT ON "devices"."outbox"
    FOR EACH ROW EXECUTE FUNCTION "platform"."notify_outbox"();
