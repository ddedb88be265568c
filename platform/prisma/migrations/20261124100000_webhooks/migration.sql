-- Webhook delivery, shared by every service that offers webhooks: subscriptions per service
-- and environment, one delivery per (subscription, outbox event), and a log of attempts.
CREATE TABLE "platform"."webhook_subscriptions" (
    "id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secret_sealed" TEXT NOT NULL,
    "description" TEXT,
    "status" TEXT NOT NULL,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_subscriptions_status_check" CHECK ("status" IN ('active', 'disabled'))
);
CREATE INDEX "webhook_subscriptions_service_environment_idx" ON "platform"."webhook_subscriptions"("service", "environment");

CREATE TABLE "platform"."webhook_deliveries" (
    "id" UUID NOT NULL,
    "subscription_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id")
        REFERENCES "platform"."webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'sending', 'delivered', 'failed', 'cancelled'))
);
CREATE UNIQUE INDEX "webhook_deliveries_subscription_id_event_id_key" ON "platform"."webhook_deliveries"("subscription_id", "event_id");
CREATE INDEX "webhook_deliveries_status_lease_until_idx" ON "platform"."webhook_deliveries"("status", "lease_until");
CREATE INDEX "webhook_deliveries_subscription_id_created_at_idx" ON "platform"."webhook_deliveries"("subscription_id", "created_at");

CREATE TABLE "platform"."webhook_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "response_body" TEXT,
    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id")
        REFERENCES "platform"."webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "webhook_attempts_delivery_id_id_idx" ON "platform"."webhook_attempts"("delivery_id", "id");

CREATE TABLE "platform"."webhook_cursors" (
    "service" TEXT NOT NULL,
    "last_seq" BIGINT NOT NULL,
    CONSTRAINT "webhook_cursors_pkey" PRIMARY KEY ("service")
);
