CREATE TABLE "platform"."files" (
    "id" UUID NOT NULL,
    "service" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "chunk_size" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "files_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "files_service_idx" ON "platform"."files"("service");

CREATE TABLE "platform"."file_chunks" (
    "file_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "file_chunks_pkey" PRIMARY KEY ("file_id", "seq")
);
CREATE INDEX "file_chunks_created_at_idx" ON "platform"."file_chunks"("created_at");
