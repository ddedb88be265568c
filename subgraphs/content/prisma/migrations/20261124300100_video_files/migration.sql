CREATE TABLE "content"."video_files" (
    "video_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "chunk" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    CONSTRAINT "video_files_pkey" PRIMARY KEY ("video_id","name","chunk")
);
ALTER TABLE "content"."video_files" ADD CONSTRAINT "video_files_video_id_fkey" FOREIGN KEY ("video_id") REFERENCES "content"."content_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;
