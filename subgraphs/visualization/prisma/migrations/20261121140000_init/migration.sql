CREATE TABLE "visualization"."charts" (
    "id" UUID NOT NULL,
    "chart_type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "config" JSONB NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "data_points" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "svg" TEXT,
    "render_time_ms" INTEGER NOT NULL,
    "rendered_at" TIMESTAMPTZ(3) NOT NULL,
    "source_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    CONSTRAINT "charts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "charts_source_key_key" ON "visualization"."charts"("source_key");
CREATE INDEX "charts_created_at_idx" ON "visualization"."charts"("created_at");

CREATE TABLE "visualization"."chart_exports" (
    "id" UUID NOT NULL,
    "chart_id" UUID NOT NULL,
    "format" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "file_size" INTEGER NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "chart_exports_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "chart_exports_chart_id_fkey" FOREIGN KEY ("chart_id")
        REFERENCES "visualization"."charts"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "chart_exports_format_check" CHECK ("format" IN ('png', 'svg', 'pdf', 'json'))
);
CREATE INDEX "chart_exports_expires_at_idx" ON "visualization"."chart_exports"("expires_at");
CREATE INDEX "chart_exports_chart_id_idx" ON "visualization"."chart_exports"("chart_id");

CREATE TABLE "visualization"."outbox" (
    "id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbox_occurred_at_idx" ON "visualization"."outbox"("occurred_at");
CREATE TRIGGER "outbox_notify" AFTER INSERT ON "visualization"."outbox"
    FOR EACH ROW EXECUTE FUNCTION "platform"."notify_outbox"();
