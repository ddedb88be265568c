CREATE TABLE "platform"."api_keys" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "platform"."api_keys"("key_hash");

CREATE TABLE "platform"."oauth_clients" (
    "client_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("client_id")
);

CREATE TABLE "platform"."oauth_tokens" (
    "token_hash" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "scopes" TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "oauth_tokens_pkey" PRIMARY KEY ("token_hash"),
    CONSTRAINT "oauth_tokens_client_id_fkey" FOREIGN KEY ("client_id")
        REFERENCES "platform"."oauth_clients"("client_id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "oauth_tokens_expires_at_idx" ON "platform"."oauth_tokens"("expires_at");

CREATE TABLE "platform"."rate_limit_counters" (
    "key" TEXT NOT NULL,
    "window_start" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key", "window_start")
);

-- Every service's outbox table fires this on insert, so an event reaches the listeners of
-- every process when (and only when) the transaction that wrote it commits. NOTIFY payloads
-- are capped at 8000 bytes: a larger event is announced by id and read back from its outbox.
CREATE FUNCTION "platform"."notify_outbox"() RETURNS trigger AS $$
DECLARE
  message TEXT;
BEGIN
  message := json_build_object(
    'id', NEW.id, 'schema', TG_TABLE_SCHEMA, 'type', NEW.type,
    'aggregateId', NEW.aggregate_id, 'occurredAt', NEW.occurred_at, 'payload', NEW.payload)::text;
  IF octet_length(message) > 7900 THEN
    message := json_build_object(
      'id', NEW.id, 'schema', TG_TABLE_SCHEMA, 'type', NEW.type,
      'aggregateId', NEW.aggregate_id, 'occurredAt', NEW.occurred_at)::text;
  END IF;
  PERFORM pg_notify('tessera_events', message);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
