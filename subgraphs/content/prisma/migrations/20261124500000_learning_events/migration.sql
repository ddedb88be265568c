CREATE TABLE "content"."learning_events" (
    "id" UUID NOT NULL,
    "student_id" TEXT NOT NULL,
    "content_id" UUID NOT NULL,
    "verb" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_seconds" DOUBLE PRECISION,
    "progress" DOUBLE PRECISION,
    "score" DOUBLE PRECISION,
    "success" BOOLEAN,
    "assessment" TEXT,
    "rating" INTEGER,
    "recorded_by" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "learning_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "learning_events_content_id_occurred_at_idx" ON "content"."learning_events"("content_id", "occurred_at");
CREATE INDEX "learning_events_student_id_occurred_at_idx" ON "content"."learning_events"("student_id", "occurred_at");

CREATE TABLE "content"."analytics_notices" (
    "content_id" UUID NOT NULL,
    "notified_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "analytics_notices_pkey" PRIMARY KEY ("content_id")
);
