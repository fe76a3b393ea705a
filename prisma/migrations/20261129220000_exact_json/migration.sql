-- Request content is stored as `json`, not `jsonb`: jsonb reorders object keys (shorter first), so a
-- reassembled request would no longer match the bytes the client sent (e.g. {"type","text"} content parts).
-- The full-text column is generated from these columns, so it is dropped and recreated around the change.
DROP INDEX IF EXISTS "turns_search_idx";
ALTER TABLE "turns" DROP COLUMN "search";

-- AlterTable
ALTER TABLE "blobs" ALTER COLUMN "content" SET DATA TYPE JSON;
-- AlterTable
ALTER TABLE "turns" ALTER COLUMN "messagesDelta" SET DATA TYPE JSON,
ALTER COLUMN "toolCalls" SET DATA TYPE JSON,
ALTER COLUMN "nextState" SET DATA TYPE JSON;

ALTER TABLE "turns" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  to_tsvector('english'::regconfig, "ocrl_search_text"("content"))
  || to_tsvector('english'::regconfig, "ocrl_search_text"(jsonb_path_query_array("messagesDelta"::jsonb, '$[*].content')::text))
  || to_tsvector('english'::regconfig, "ocrl_search_text"("nextState"->>'content'))
) STORED;
CREATE INDEX "turns_search_idx" ON "turns" USING GIN ("search");
