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


-- Metric rollups (hand-written): every insert into metric_points also folds its rows into metric_rollups, in
-- one grouped upsert per statement. Bucket widths: 16^level steps (axis "step"), 1000 * 16^level ms (axis
-- "time"), levels 1..4. Level 1 is aggregated from the new points, each higher level from the level below
-- (16 times fewer rows), and keys sort with the "C" collation: the sort is most of the cost. Rows are
-- upserted in key order so concurrent writers take row locks in one order.
CREATE FUNCTION "metric_points_rollup_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH pts AS (
    SELECT m."experimentId" COLLATE "C" AS e, coalesce(m."runId", '') COLLATE "C" AS r, m."name" COLLATE "C" AS n,
           m.value, m.step, m.ts, m.id, m.step::bigint AS sx, floor(extract(epoch FROM m.ts) * 1000)::bigint AS tx
    FROM new_rows m
  ), l1 AS (
    SELECT e, r, n, 'step'::text AS axis, floor(sx / 16.0)::bigint AS bucket,
           min(value) AS mn, max(value) AS mx, sum(value) AS sm, count(*) AS cnt, min(sx) AS fx, max(sx) AS lx,
           (array_agg(value ORDER BY sx DESC, id DESC))[1] AS lv, (array_agg(ts ORDER BY sx DESC, id DESC))[1] AS lts,
           (array_agg(step ORDER BY sx DESC, id DESC))[1] AS lst
    FROM pts WHERE step IS NOT NULL GROUP BY e, r, n, floor(sx / 16.0)
    UNION ALL
    SELECT e, r, n, 'time', floor(tx / 16000.0)::bigint,
           min(value), max(value), sum(value), count(*), min(tx), max(tx),
           (array_agg(value ORDER BY tx DESC, id DESC))[1], (array_agg(ts ORDER BY tx DESC, id DESC))[1],
           (array_agg(step ORDER BY tx DESC, id DESC))[1]
    FROM pts GROUP BY e, r, n, floor(tx / 16000.0)
  ), levels AS (
    SELECT e, r, n, axis, 1 AS level, bucket, mn, mx, sm, cnt, fx, lx, lv, lts, lst FROM l1
    UNION ALL
    SELECT e, r, n, axis, k, floor(bucket / power(16, k - 1))::bigint,
           min(mn), max(mx), sum(sm), sum(cnt), min(fx), max(lx),
           (array_agg(lv ORDER BY lx DESC))[1], (array_agg(lts ORDER BY lx DESC))[1], (array_agg(lst ORDER BY lx DESC))[1]
    FROM l1 CROSS JOIN generate_series(2, 4) k
    GROUP BY e, r, n, axis, k, floor(bucket / power(16, k - 1))
  )
  INSERT INTO "metric_rollups" AS m
    ("experimentId", "runKey", "name", "axis", "level", "bucket", "min", "max", "sum", "count", "firstX", "lastX", "last", "lastTs", "lastStep")
  SELECT e, r, n, axis, level, bucket, mn, mx, sm, cnt::int, fx, lx, lv, lts, lst
  FROM levels ORDER BY e, r, n, axis, level, bucket
  ON CONFLICT ("experimentId", "runKey", "name", "axis", "level", "bucket") DO UPDATE SET
    "min" = least(m."min", excluded."min"),
    "max" = greatest(m."max", excluded."max"),
    "sum" = m."sum" + excluded."sum",
    "count" = m."count" + excluded."count",
    "firstX" = least(m."firstX", excluded."firstX"),
    "last" = CASE WHEN excluded."lastX" >= m."lastX" THEN excluded."last" ELSE m."last" END,
    "lastTs" = CASE WHEN excluded."lastX" >= m."lastX" THEN excluded."lastTs" ELSE m."lastTs" END,
    "lastStep" = CASE WHEN excluded."lastX" >= m."lastX" THEN excluded."lastStep" ELSE m."lastStep" END,
    "lastX" = greatest(m."lastX", excluded."lastX");
  RETURN NULL;
END
$$;

CREATE TRIGGER "metric_points_rollup" AFTER INSERT ON "metric_points"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "metric_points_rollup_trigger"();

-- Points recorded before this migration: written again, so the trigger folds them in.
CREATE TEMP TABLE "_metric_points_before" ON COMMIT DROP AS SELECT * FROM "metric_points";
DELETE FROM "metric_points";
INSERT INTO "metric_points" SELECT * FROM "_metric_points_before";

-- Turn facets (table and indexes as Prisma generates them; triggers hand-written).
CREATE TABLE "turn_facets" (
    "turnId" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "runId" TEXT,
    "turnType" "TurnType" NOT NULL,
    "status" "TurnStatus" NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "judged" BOOLEAN NOT NULL DEFAULT false,
    "score" INTEGER,
    "validVotes" INTEGER,
    "agreeVotes" INTEGER,
    "split" BOOLEAN NOT NULL DEFAULT false,
    "userValue" INTEGER,
    "relabeled" BOOLEAN NOT NULL DEFAULT false,
    "disputed" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "turn_facets_pkey" PRIMARY KEY ("turnId")
);

CREATE INDEX "turn_facets_experimentId_createdAt_turnId_idx" ON "turn_facets"("experimentId", "createdAt", "turnId");
CREATE INDEX "turn_facets_createdAt_turnId_idx" ON "turn_facets"("createdAt", "turnId");
CREATE INDEX "turn_facets_runId_createdAt_idx" ON "turn_facets"("runId", "createdAt");
CREATE INDEX "turn_facets_sessionId_createdAt_idx" ON "turn_facets"("sessionId", "createdAt");
CREATE INDEX "turn_facets_experimentId_policyVersion_createdAt_idx" ON "turn_facets"("experimentId", "policyVersion", "createdAt");
CREATE INDEX "turn_facets_experimentId_score_createdAt_idx" ON "turn_facets"("experimentId", "score", "createdAt");
CREATE INDEX "turn_facets_experimentId_judged_createdAt_idx" ON "turn_facets"("experimentId", "judged", "createdAt");
CREATE INDEX "turn_facets_experimentId_relabeled_createdAt_idx" ON "turn_facets"("experimentId", "relabeled", "createdAt");
CREATE INDEX "turn_facets_experimentId_split_createdAt_idx" ON "turn_facets"("experimentId", "split", "createdAt");
CREATE INDEX "turn_facets_experimentId_disputed_createdAt_idx" ON "turn_facets"("experimentId", "disputed", "createdAt");

ALTER TABLE "turn_facets" ADD CONSTRAINT "turn_facets_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Recomputes the judged/label part of the given turns' facets: the latest judgment (score; eval votes that
-- are valid, and that agree with the score), the latest user feedback, whether a reviewer relabelled the
-- turn, and the dispute (split votes, or user feedback against the judge). Same definitions as the
-- trajectory browser's display (server/trajectories/query.ts).
CREATE FUNCTION "ocrl_refresh_turn_facets"(ids text[]) RETURNS void LANGUAGE sql AS $$
  UPDATE "turn_facets" f SET
    "judged" = x.jid IS NOT NULL,
    "score" = x.score,
    "validVotes" = x.valid,
    "agreeVotes" = x.agree,
    "split" = coalesce(x.valid > x.agree, false),
    "userValue" = x.uv,
    "relabeled" = x.rel,
    "disputed" = coalesce(x.valid > x.agree, false) OR (x.uv IS NOT NULL AND x.score IS NOT NULL AND x.uv <> x.score)
  FROM (
    SELECT t.id, j.id AS jid, j.score, v.valid, v.agree, u.value AS uv,
           EXISTS (SELECT 1 FROM "labels" l WHERE l."turnId" = t.id AND l.source = 'REVIEWER') AS rel
    FROM unnest(ids) AS t(id)
    LEFT JOIN LATERAL (SELECT id, score FROM "judgments" WHERE "turnId" = t.id ORDER BY "createdAt" DESC, id DESC LIMIT 1) j ON true
    LEFT JOIN LATERAL (
      SELECT count(value)::int AS valid, (count(*) FILTER (WHERE value = j.score))::int AS agree
      FROM "judge_votes" WHERE "judgmentId" = j.id AND kind = 'eval'
    ) v ON j.id IS NOT NULL
    LEFT JOIN LATERAL (SELECT value FROM "labels" WHERE "turnId" = t.id AND source = 'USER' ORDER BY "createdAt" DESC, id DESC LIMIT 1) u ON true
  ) x
  WHERE f."turnId" = x.id
$$;

CREATE FUNCTION "turn_facets_on_turns_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "turn_facets" ("turnId", "experimentId", "sessionId", "runId", "turnType", "status", "policyVersion", "createdAt")
  SELECT id, "experimentId", "sessionId", "runId", "turnType", status, "policyVersion", "createdAt" FROM new_rows
  ON CONFLICT ("turnId") DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER "turn_facets_insert" AFTER INSERT ON "turns"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "turn_facets_on_turns_insert"();

CREATE FUNCTION "turn_facets_on_turns_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "turn_facets" SET "runId" = NEW."runId", "turnType" = NEW."turnType", status = NEW.status,
    "policyVersion" = NEW."policyVersion", "createdAt" = NEW."createdAt", "experimentId" = NEW."experimentId", "sessionId" = NEW."sessionId"
  WHERE "turnId" = NEW.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER "turn_facets_update" AFTER UPDATE ON "turns" FOR EACH ROW
  WHEN (OLD."runId" IS DISTINCT FROM NEW."runId" OR OLD."turnType" IS DISTINCT FROM NEW."turnType" OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD."policyVersion" IS DISTINCT FROM NEW."policyVersion" OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt"
        OR OLD."experimentId" IS DISTINCT FROM NEW."experimentId" OR OLD."sessionId" IS DISTINCT FROM NEW."sessionId")
  EXECUTE FUNCTION "turn_facets_on_turns_update"();

CREATE FUNCTION "turn_facets_on_judgments"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "ocrl_refresh_turn_facets"(ARRAY(SELECT DISTINCT "turnId" FROM changed ORDER BY 1));
  RETURN NULL;
END
$$;
CREATE TRIGGER "turn_facets_judgments_insert" AFTER INSERT ON "judgments"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "turn_facets_on_judgments"();
CREATE TRIGGER "turn_facets_judgments_delete" AFTER DELETE ON "judgments"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "turn_facets_on_judgments"();
CREATE TRIGGER "turn_facets_labels_insert" AFTER INSERT ON "labels"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "turn_facets_on_judgments"();
CREATE TRIGGER "turn_facets_labels_delete" AFTER DELETE ON "labels"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "turn_facets_on_judgments"();

CREATE FUNCTION "turn_facets_on_votes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "ocrl_refresh_turn_facets"(ARRAY(
    SELECT DISTINCT j."turnId" FROM "judgments" j WHERE j.id IN (SELECT DISTINCT "judgmentId" FROM changed) ORDER BY 1));
  RETURN NULL;
END
$$;
CREATE TRIGGER "turn_facets_votes_insert" AFTER INSERT ON "judge_votes"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "turn_facets_on_votes"();

-- Turns recorded before this migration.
INSERT INTO "turn_facets" ("turnId", "experimentId", "sessionId", "runId", "turnType", "status", "policyVersion", "createdAt")
SELECT id, "experimentId", "sessionId", "runId", "turnType", status, "policyVersion", "createdAt" FROM "turns";
SELECT "ocrl_refresh_turn_facets"(ARRAY(SELECT DISTINCT "turnId" FROM "judgments" UNION SELECT DISTINCT "turnId" FROM "labels"));
