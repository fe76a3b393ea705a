// Metric reads for the dashboard: bucketed series for charts (from metric_rollups, maintained by a trigger
// on metric_points), the catalogue of series an experiment has, and the raw points for the REST API.
import type { z } from "zod";
import { db } from "../platform/db/client";
import { Prisma } from "../platform/db/generated/client";
import { assertExperimentAccess, type Principal } from "../access/principal";
import { notFound } from "../platform/errors";
import { authorizeRow, scopeExperiment } from "../access/scope";
import { planBuckets, TOP_LEVEL, type BucketPlan, type BucketPoint } from "./bucket";
import type { Axis, MetricsCatalogInput, MetricsQueryInput, MetricsSeriesInput } from "./schemas";

async function assertExperiment(p: Principal, experimentId: string): Promise<void> {
  assertExperimentAccess(p, experimentId);
  if (!(await db().experiment.findUnique({ where: { id: experimentId }, select: { id: true } })))
    throw notFound("Experiment", experimentId);
}

export interface SeriesKey {
  experimentId: string;
  runKey: string;
  name: string;
  axis: Axis;
}

export interface Series {
  runId: string | null;
  name: string;
  axis: Axis;
  /** Points in the range (before bucketing). */
  total: number;
  level: number;
  width: number;
  points: BucketPoint[];
}

type BucketRow = {
  x: bigint;
  last: number;
  min: number;
  max: number;
  sum: number;
  count: bigint | number;
  step: number | null;
  ts: Date;
};

const toPoint = (r: BucketRow): BucketPoint => {
  const count = Number(r.count);
  return {
    x: Number(r.x),
    last: r.last,
    min: r.min,
    max: r.max,
    mean: r.sum / count,
    count,
    step: r.step,
    ts: r.ts.getTime(),
  };
};

/** One series, bucketed in SQL to at most `maxPoints` points (min/max/last/mean per bucket). */
export async function bucketSeries(
  key: SeriesKey,
  opts: { from?: number; to?: number; maxPoints: number },
): Promise<Series> {
  const where = Prisma.sql`"experimentId" = ${key.experimentId} AND "runKey" = ${key.runKey} AND name = ${key.name} AND axis = ${key.axis}`;
  const [range] = await db().$queryRaw<{ lo: bigint | null; hi: bigint | null; total: bigint | null }[]>`
    SELECT min("firstX") AS lo, max("lastX") AS hi, sum(count)::bigint AS total FROM metric_rollups
    WHERE ${where} AND level = ${TOP_LEVEL[key.axis]}::int`;
  const empty: Series = {
    runId: key.runKey || null,
    name: key.name,
    axis: key.axis,
    total: 0,
    level: 0,
    width: 1,
    points: [],
  };
  if (!range || range.lo === null || range.hi === null) return empty;
  const lo = Math.max(Number(range.lo), opts.from ?? -Infinity);
  const hi = Math.min(Number(range.hi), opts.to ?? Infinity);
  if (lo > hi) return empty;
  const plan = planBuckets(key.axis, lo, hi, opts.maxPoints);
  const rows = plan.level === 0 ? await rawBuckets(key, lo, hi, plan) : await rollupBuckets(where, lo, hi, plan);
  const points = rows.map(toPoint);
  const ranged = opts.from !== undefined || opts.to !== undefined;
  return {
    ...empty,
    total: ranged ? points.reduce((n, p) => n + p.count, 0) : Number(range.total ?? 0),
    level: plan.level,
    width: plan.width,
    points,
  };
}

/** Rollup rows of the plan's level folded into output buckets (a rollup row never straddles two). */
async function rollupBuckets(where: Prisma.Sql, lo: number, hi: number, plan: BucketPlan): Promise<BucketRow[]> {
  const w = plan.sourceWidth;
  return db().$queryRaw<BucketRow[]>`
    SELECT max("lastX") AS x, (array_agg(last ORDER BY "lastX" DESC))[1] AS last, min(min) AS min, max(max) AS max,
           sum(sum) AS sum, sum(count)::bigint AS count,
           (array_agg("lastStep" ORDER BY "lastX" DESC))[1] AS step, (array_agg("lastTs" ORDER BY "lastX" DESC))[1] AS ts
    FROM metric_rollups
    WHERE ${where} AND level = ${plan.level}::int AND bucket BETWEEN ${Math.floor(lo / w)}::bigint AND ${Math.floor(hi / w)}::bigint
    GROUP BY floor((bucket * ${w}::bigint - ${plan.origin}::bigint) / ${plan.width}::numeric)
    ORDER BY 1`;
}

async function rawBuckets(key: SeriesKey, lo: number, hi: number, plan: BucketPlan): Promise<BucketRow[]> {
  const run = key.runKey
    ? Prisma.sql`"runId" = ${key.runKey}`
    : Prisma.sql`"experimentId" = ${key.experimentId} AND "runId" IS NULL`;
  const x = key.axis === "step" ? Prisma.sql`step::bigint` : Prisma.sql`floor(extract(epoch FROM ts) * 1000)::bigint`;
  const range =
    key.axis === "step"
      ? Prisma.sql`step BETWEEN ${lo}::int AND ${hi}::int`
      : Prisma.sql`ts BETWEEN ${new Date(lo).toISOString()}::timestamp AND ${new Date(hi).toISOString()}::timestamp`;
  return db().$queryRaw<BucketRow[]>`
    SELECT max(x) AS x, (array_agg(value ORDER BY x DESC, id DESC))[1] AS last, min(value) AS min, max(value) AS max,
           sum(value) AS sum, count(*)::bigint AS count,
           (array_agg(step ORDER BY x DESC, id DESC))[1] AS step, (array_agg(ts ORDER BY x DESC, id DESC))[1] AS ts
    FROM (SELECT ${x} AS x, value, step, ts, id FROM metric_points WHERE ${run} AND name = ${key.name} AND ${range}) p
    GROUP BY floor((x - ${plan.origin}::bigint) / ${plan.width}::numeric)
    ORDER BY 1`;
}

/** Every requested (run, name) series of an experiment, bucketed for charts. */
export async function querySeries(p: Principal, input: z.output<typeof MetricsSeriesInput>) {
  const experimentId = scopeExperiment(p, input.experimentId)!;
  await assertExperiment(p, experimentId);
  const runs = input.runIds.filter(Boolean);
  if (runs.length) {
    const found = await db().run.count({ where: { id: { in: runs }, experimentId } });
    if (found !== runs.length) throw notFound("Run of this experiment");
  }
  const series = await Promise.all(
    input.runIds.flatMap((runKey) =>
      input.names.map((name) =>
        bucketSeries(
          { experimentId, runKey, name, axis: input.axis },
          { from: input.from, to: input.to, maxPoints: input.maxPoints },
        ),
      ),
    ),
  );
  return { axis: input.axis, series };
}

/** The series an experiment has (per run), with their point count and latest value. */
export async function metricCatalog(p: Principal, input: z.output<typeof MetricsCatalogInput>) {
  const experimentId = scopeExperiment(p, input.experimentId)!;
  await assertExperiment(p, experimentId);
  const runFilter = input.runIds ? Prisma.sql`AND "runKey" IN (${Prisma.join(input.runIds)})` : Prisma.empty;
  const rows = await db().$queryRaw<
    { runKey: string; name: string; count: bigint; lastTs: Date; last: number; lastStep: number | null }[]
  >`
    SELECT "runKey", name, sum(count)::bigint AS count, max("lastTs") AS "lastTs",
           (array_agg(last ORDER BY "lastX" DESC))[1] AS last, (array_agg("lastStep" ORDER BY "lastX" DESC))[1] AS "lastStep"
    FROM metric_rollups
    WHERE "experimentId" = ${experimentId} AND axis = 'time' AND level = ${TOP_LEVEL.time}::int ${runFilter}
    GROUP BY "runKey", name ORDER BY name, "runKey"`;
  return rows.map((r) => ({
    runId: r.runKey || null,
    name: r.name,
    count: Number(r.count),
    lastTs: r.lastTs,
    last: r.last,
    lastStep: r.lastStep,
  }));
}

/** Raw points (REST), oldest first. */
export async function queryMetricPoints(p: Principal, input: z.output<typeof MetricsQueryInput>) {
  let experimentId = scopeExperiment(p, input.experimentId);
  if (input.runId) {
    const run = authorizeRow(
      p,
      "Run",
      input.runId,
      await db().run.findUnique({ where: { id: input.runId }, select: { experimentId: true } }),
      (r) => r.experimentId,
    );
    experimentId = run.experimentId;
  }
  const rows = await db().metricPoint.findMany({
    where: {
      experimentId,
      runId: input.runId,
      name: input.names?.length ? { in: input.names } : undefined,
      ts: input.since ? { gt: input.since } : undefined,
    },
    orderBy: { ts: "asc" },
    take: input.limit,
  });
  return {
    points: rows.map((r) => ({ name: r.name, runId: r.runId, step: r.step, value: r.value, ts: r.ts.toISOString() })),
  };
}
