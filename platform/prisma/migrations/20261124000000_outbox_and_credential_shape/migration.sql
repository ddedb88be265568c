-- Credentials carry more than scopes: the environment they act in (production or sandbox,
-- whose data is kept apart) and, for API keys, a rate-limit tier and an optional per-key limit.
ALTER TABLE "platform"."api_keys" ADD COLUMN "environment" TEXT NOT NULL DEFAULT 'production';
ALTER TABLE "platform"."api_keys" ADD COLUMN "tier" TEXT;
ALTER TABLE "platform"."api_keys" ADD COLUMN "rate_limit_per_hour" INTEGER;
ALTER TABLE "platform"."oauth_clients" ADD COLUMN "environment" TEXT NOT NULL DEFAULT 'production';
ALTER TABLE "platform"."oauth_clients" ADD COLUMN "tier" TEXT;
ALTER TABLE "platform"."oauth_clients" ADD COLUMN "rate_limit_per_hour" INTEGER;

-- One transactional outbox for every service: a service writes its events here in the
-- transaction of the change they describe. `seq` orders them for consumers that catch up
-- (webhook delivery, subscribers after a lost LISTEN connection).
CREATE TABLE "platform"."outbox" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("seq")
);
CREATE UNIQUE INDEX "outbox_id_key" ON "platform"."outbox"("id");
CREATE INDEX "outbox_occurred_at_idx" ON "platform"."outbox"("occurred_at");

-- Announces a committed event to every process's listeners. NOTIFY payloads are capped at
-- 8000 bytes: a larger event is announced without its payload and read back by id.
CREATE OR REPLACE FUNCTION "platform"."notify_outbox"() RETURNS trigger AS $$
DECLARE
  message TEXT;
BEGIN
  message := json_build_object(
    'seq', NEW.seq, 'id', NEW.id, 'schema', NEW.service, 'type', NEW.type,
    'aggregateId', NEW.aggregate_id, 'occurredAt', NEW.occurred_at, 'payload', NEW.payload)::text;
  IF octet_length(message) > 7900 THEN
    message := json_build_object(
      'seq', NEW.seq, 'id', NEW.id, 'schema', NEW.service, 'type', NEW.type,
      'aggregateId', NEW.aggregate_id, 'occurredAt', NEW.occurred_at)::text;
  END IF;
  PERFORM pg_notify('tessera_events', message);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "outbox_notify" AFTER INSERT ON "platform"."outbox"
    FOR EACH ROW EXECUTE FUNCTION "platform"."notify_outbox"();
