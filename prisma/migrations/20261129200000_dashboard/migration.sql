-- CreateEnum
CREATE TYPE "ReviewItemStatus" AS ENUM ('PENDING', 'DONE');

-- CreateEnum
CREATE TYPE "ReviewVerdict" AS ENUM ('ACCEPT', 'FIX', 'REJECT');

-- Full-text search over a turn: its response, the messages it added to the conversation and its next state.
-- Hand-written (Prisma sees only `Unsupported("tsvector")`): a STORED generated column, so every writer (the
-- proxy, imports, tests) gets it without knowing about it. JSON text is unescaped enough for the parser, and
-- each part is capped so an oversized request can never push the tsvector past its 1 MB limit and fail an insert.
CREATE FUNCTION "ocrl_search_text"(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT translate(replace(replace(replace(left(coalesce(t, ''), 60000), '\n', ' '), '\t', ' '), '\r', ' '), '\"', '  ')
$$;

ALTER TABLE "turns" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  to_tsvector('english'::regconfig, "ocrl_search_text"("content"))
  || to_tsvector('english'::regconfig, "ocrl_search_text"(jsonb_path_query_array("messagesDelta", '$[*].content')::text))
  || to_tsvector('english'::regconfig, "ocrl_search_text"("nextState"->>'content'))
) STORED;

-- CreateTable
CREATE TABLE "review_queues" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "filter" JSONB NOT NULL DEFAULT '{}',
    "reviewersPerItem" INTEGER NOT NULL DEFAULT 1,
    "lockTtlS" INTEGER NOT NULL DEFAULT 300,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" TIMESTAMP(3),

    CONSTRAINT "review_queues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_assignees" (
    "queueId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_assignees_pkey" PRIMARY KEY ("queueId","userId")
);

-- CreateTable
CREATE TABLE "review_items" (
    "id" TEXT NOT NULL,
    "queueId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "disputed" BOOLEAN NOT NULL DEFAULT false,
    "disputeReason" TEXT,
    "status" "ReviewItemStatus" NOT NULL DEFAULT 'PENDING',
    "submittedCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "review_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_locks" (
    "itemId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_locks_pkey" PRIMARY KEY ("itemId","userId")
);

-- CreateTable
CREATE TABLE "review_seen" (
    "itemId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_seen_pkey" PRIMARY KEY ("itemId","userId")
);

-- CreateTable
CREATE TABLE "review_submissions" (
    "id" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "verdict" "ReviewVerdict" NOT NULL,
    "value" INTEGER NOT NULL,
    "hint" TEXT,
    "exclude" BOOLEAN NOT NULL DEFAULT false,
    "labelId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_submissions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_rollups" (
    "experimentId" TEXT NOT NULL,
    "runKey" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "axis" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "bucket" BIGINT NOT NULL,
    "min" DOUBLE PRECISION NOT NULL,
    "max" DOUBLE PRECISION NOT NULL,
    "sum" DOUBLE PRECISION NOT NULL,
    "count" INTEGER NOT NULL,
    "firstX" BIGINT NOT NULL,
    "lastX" BIGINT NOT NULL,
    "last" DOUBLE PRECISION NOT NULL,
    "lastTs" TIMESTAMP(3) NOT NULL,
    "lastStep" INTEGER,

    CONSTRAINT "metric_rollups_pkey" PRIMARY KEY ("experimentId","runKey","name","axis","level","bucket")
);

-- CreateIndex
CREATE UNIQUE INDEX "review_queues_experimentId_name_key" ON "review_queues"("experimentId", "name");

-- CreateIndex
CREATE INDEX "review_assignees_userId_idx" ON "review_assignees"("userId");

-- CreateIndex
CREATE INDEX "review_items_queueId_status_disputed_createdAt_idx" ON "review_items"("queueId", "status", "disputed", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "review_items_queueId_turnId_key" ON "review_items"("queueId", "turnId");

-- CreateIndex
CREATE INDEX "review_locks_userId_expiresAt_idx" ON "review_locks"("userId", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "review_submissions_itemId_userId_key" ON "review_submissions"("itemId", "userId");

-- CreateIndex
CREATE INDEX "turns_createdAt_idx" ON "turns"("createdAt");

-- CreateIndex
CREATE INDEX "turns_search_idx" ON "turns" USING GIN ("search");

-- CreateIndex
CREATE INDEX "labels_source_createdAt_idx" ON "labels"("source", "createdAt");

-- CreateIndex
CREATE INDEX "metric_points_runId_name_step_idx" ON "metric_points"("runId", "name", "step");

-- AddForeignKey
ALTER TABLE "review_queues" ADD CONSTRAINT "review_queues_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_assignees" ADD CONSTRAINT "review_assignees_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "review_queues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_assignees" ADD CONSTRAINT "review_assignees_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "review_queues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_items" ADD CONSTRAINT "review_items_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_locks" ADD CONSTRAINT "review_locks_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "review_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_locks" ADD CONSTRAINT "review_locks_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_seen" ADD CONSTRAINT "review_seen_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "review_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_seen" ADD CONSTRAINT "review_seen_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_submissions" ADD CONSTRAINT "review_submissions_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "review_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_submissions" ADD CONSTRAINT "review_submissions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_submissions" ADD CONSTRAINT "review_submissions_labelId_fkey" FOREIGN KEY ("labelId") REFERENCES "labels"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metric_rollups" ADD CONSTRAINT "metric_rollups_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Metric rollups (hand-written): every insert into metric_points also folds its rows into metric_rollups at
-- each level of both x axes, in one grouped upsert per statement. Width of a bucket: 16^level steps, or
-- 1000 * 16^(level-1) ms. Rows are upserted in key order so concurrent writers take row locks in one order.
CREATE FUNCTION "metric_rollups_ingest"(rows "metric_points"[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "metric_rollups" AS r
    ("experimentId", "runKey", "name", "axis", "level", "bucket", "min", "max", "sum", "count", "firstX", "lastX", "last", "lastTs", "lastStep")
  SELECT p."experimentId", p."runKey", p."name", l.axis, l.level, floor(p.x / l.width)::bigint,
         min(p.value), max(p.value), sum(p.value), count(*)::int, min(p.x), max(p.x),
         (array_agg(p.value ORDER BY p.x DESC, p.id DESC))[1],
         (array_agg(p.ts ORDER BY p.x DESC, p.id DESC))[1],
         (array_agg(p.step ORDER BY p.x DESC, p.id DESC))[1]
  FROM (
    SELECT m."experimentId", coalesce(m."runId", '') AS "runKey", m."name", m.value, m.step, m.ts, m.id, a.axis,
           CASE a.axis WHEN 'step' THEN m.step::bigint ELSE floor(extract(epoch FROM m.ts) * 1000)::bigint END AS x
    FROM unnest(rows) AS m
    CROSS JOIN (VALUES ('step'), ('time')) AS a(axis)
    WHERE a.axis = 'time' OR m.step IS NOT NULL
  ) p
  JOIN (VALUES ('step', 1, 16::bigint), ('step', 2, 256::bigint), ('step', 3, 4096::bigint), ('step', 4, 65536::bigint),
               ('time', 1, 1000::bigint), ('time', 2, 16000::bigint), ('time', 3, 256000::bigint),
               ('time', 4, 4096000::bigint), ('time', 5, 65536000::bigint)) AS l(axis, level, width)
    ON l.axis = p.axis
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("experimentId", "runKey", "name", "axis", "level", "bucket") DO UPDATE SET
    "min" = least(r."min", excluded."min"),
    "max" = greatest(r."max", excluded."max"),
    "sum" = r."sum" + excluded."sum",
    "count" = r."count" + excluded."count",
    "firstX" = least(r."firstX", excluded."firstX"),
    "last" = CASE WHEN excluded."lastX" >= r."lastX" THEN excluded."last" ELSE r."last" END,
    "lastTs" = CASE WHEN excluded."lastX" >= r."lastX" THEN excluded."lastTs" ELSE r."lastTs" END,
    "lastStep" = CASE WHEN excluded."lastX" >= r."lastX" THEN excluded."lastStep" ELSE r."lastStep" END,
    "lastX" = greatest(r."lastX", excluded."lastX")
$$;

CREATE FUNCTION "metric_points_rollup_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "metric_rollups_ingest"(ARRAY(SELECT n::"metric_points" FROM new_rows n));
  RETURN NULL;
END
$$;

CREATE TRIGGER "metric_points_rollup" AFTER INSERT ON "metric_points"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "metric_points_rollup_trigger"();

-- Points recorded before this migration.
SELECT "metric_rollups_ingest"(ARRAY(SELECT m FROM "metric_points" m));
