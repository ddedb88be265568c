-- A rendered video's files live in the platform file store (platform.files and
-- platform.file_chunks); the content item keeps their ids.
ALTER TABLE "content"."content_items" ADD COLUMN "video_file_id" UUID,
    ADD COLUMN "thumbnail_file_id" UUID,
    ADD COLUMN "captions_file_id" UUID;

-- Files rendered before this change move over chunk for chunk (both stores cut 256 KiB
-- chunks). Each file's id is derived from its video and name, so the three statements agree.
INSERT INTO "platform"."files" ("id", "service", "content_type", "size", "sha256", "chunk_size", "created_at")
SELECT md5(v."video_id"::text || '/' || v."name")::uuid,
       'content',
       CASE v."name" WHEN 'video.mp4' THEN 'video/mp4' WHEN 'thumbnail.png' THEN 'image/png' ELSE 'text/vtt; charset=utf-8' END,
       sum(length(v."data")),
       encode(sha256(string_agg(v."data", ''::bytea ORDER BY v."chunk")), 'hex'),
       262144,
       now()
FROM "content"."video_files" v
GROUP BY v."video_id", v."name"
HAVING sum(length(v."data")) > 0;

INSERT INTO "platform"."file_chunks" ("file_id", "seq", "data", "created_at")
SELECT f."id", v."chunk", v."data", now()
FROM "content"."video_files" v
JOIN "platform"."files" f ON f."id" = md5(v."video_id"::text || '/' || v."name")::uuid;

UPDATE "content"."content_items" i SET
    "video_file_id" = (SELECT f."id" FROM "platform"."files" f WHERE f."id" = md5(i."id"::text || '/video.mp4')::uuid),
    "thumbnail_file_id" = (SELECT f."id" FROM "platform"."files" f WHERE f."id" = md5(i."id"::text || '/thumbnail.png')::uuid),
    "captions_file_id" = (SELECT f."id" FROM "platform"."files" f WHERE f."id" = md5(i."id"::text || '/captions.vtt')::uuid)
WHERE i."type" = 'video';

DROP TABLE "content"."video_files";
