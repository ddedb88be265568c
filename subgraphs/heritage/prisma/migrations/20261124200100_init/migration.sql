CREATE SCHEMA IF NOT EXISTS "heritage";

CREATE TABLE "heritage"."artifacts" (
    "id" UUID NOT NULL,
    "spectrum_id" TEXT,
    "title" TEXT NOT NULL,
    "culture" TEXT NOT NULL,
    "description" TEXT,
    "period" TEXT,
    "period_start" INTEGER,
    "period_end" INTEGER,
    "materials" TEXT[],
    "dimensions" JSONB,
    "location" JSONB,
    "dublin_core" JSONB,
    "technical" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    CONSTRAINT "artifacts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "artifacts_spectrum_id_key" ON "heritage"."artifacts"("spectrum_id");
CREATE INDEX "artifacts_culture_idx" ON "heritage"."artifacts"("culture");
CREATE INDEX "artifacts_updated_at_idx" ON "heritage"."artifacts"("updated_at");

CREATE TABLE "heritage"."models" (
    "id" UUID NOT NULL,
    "artifact_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "container" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "resolution" TEXT NOT NULL,
    "file_name" TEXT,
    "content_type" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "inspection" JSONB NOT NULL,
    "validation" JSONB NOT NULL,
    "uploaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uploaded_by" TEXT NOT NULL,
    CONSTRAINT "models_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "models_artifact_id_fkey" FOREIGN KEY ("artifact_id") REFERENCES "heritage"."artifacts"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "models_artifact_id_uploaded_at_idx" ON "heritage"."models"("artifact_id", "uploaded_at");

CREATE TABLE "heritage"."tours" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "artifact_ids" TEXT[],
    "scenes" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT NOT NULL,
    CONSTRAINT "tours_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "heritage"."analytics_events" (
    "id" BIGSERIAL NOT NULL,
    "artifact_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "analytics_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "analytics_events_artifact_id_occurred_at_idx" ON "heritage"."analytics_events"("artifact_id", "occurred_at");
