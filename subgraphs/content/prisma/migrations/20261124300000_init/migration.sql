CREATE SCHEMA IF NOT EXISTS "content";

CREATE TABLE "content"."content_items" (
    "id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "subject" TEXT,
    "grade_level" TEXT,
    "standards" TEXT[],
    "body" JSONB NOT NULL,
    "metadata" JSONB NOT NULL,
    "origin" TEXT NOT NULL,
    "engine" TEXT,
    "parent_id" UUID,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "content_items_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "content_items_type_subject_grade_level_idx" ON "content"."content_items"("type", "subject", "grade_level");
CREATE INDEX "content_items_created_at_idx" ON "content"."content_items"("created_at");

CREATE TABLE "content"."validations" (
    "id" UUID NOT NULL,
    "overall_score" DOUBLE PRECISION NOT NULL,
    "report" JSONB NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "validations_pkey" PRIMARY KEY ("id")
);
