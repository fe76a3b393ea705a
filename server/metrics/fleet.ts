// The Workers page beyond heartbeats: Redis queue depth and lag, the judge's backlog in Postgres (the
// source of truth, so lost queue messages still show), each live run's training backlog and GPU plan, and
// the latest queue/lag/buffer gauges the workers publish as metrics.
import { db } from "../platform/db/client";
import { Prisma } from "../platform/db/generated/client";
import { assertCan, boundExperimentId, type Principal } from "../access/principal";
import { QUEUES, type QueueName } from "../platform/bus/contracts";
import { queue } from "../platform/bus/queues";
import { ExperimentConfigSchema } from "../experiments/config";
import { planGpuSplit } from "../gpu/plan";
import { backlogOf } from "../judge/worker/backlog";
import { expectedJudgeVersion } from "../judge/worker/settings";
import { TOP_LEVEL } from "./bucket";

export interface QueueStats {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Age of the oldest waiting job: how far behind the consumers are. */
  lagMs: number;
}

async function redisQueues(): Promise<QueueStats[]> {
  const names = Object.keys(QUEUES) as QueueName[];
  return Promise.all(
    names.map(async (n) => {
      const q = queue(n);
      const [counts, oldest] = await Promise.all([q.getJobCounts("waiting", "active", "delayed", "failed", "prioritized"), q.getJobs(["waiting"], 0, 0, true)]);
      const first = oldest[0];
      return {
        name: QUEUES[n].name,
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
        lagMs: first ? Math.max(0, Date.now() - first.timestamp) : 0,
      };
    }),
  );
}

/** Latest value of every queue / lag / buffer gauge published in the last `withinMs`. */
async function gauges(experimentId: string | null, withinMs: number) {
  const since = new Date(Date.now() - withinMs).toISOString();
  return db().$queryRaw<{ experimentId: string; experimentName: string; runKey: string; name: string; value: number; at: Date }[]>`
    SELECT r."experimentId", e.name AS "experimentName", r."runKey", r.name,
           (array_agg(r.last ORDER BY r."lastX" DESC))[1] AS value, max(r."lastTs") AS at
    FROM metric_rollups r JOIN experiments e ON e.id = r."experimentId"
    WHERE r.axis = 'time' AND r.level = ${TOP_LEVEL.time}::int AND r."lastTs" >= ${since}::timestamp
      AND (r.name LIKE '%queue%' OR r.name LIKE '%lag%' OR r.name LIKE '%buffer%')
      ${experimentId ? Prisma.sql`AND r."experimentId" = ${experimentId}` : Prisma.empty}
    GROUP BY r."experimentId", e.name, r."runKey", r.name
    ORDER BY e.name, r.name`;
}

export async function fleetOverview(p: Principal) {
  assertCan(p, "read");
  const bound = boundExperimentId(p);
  const runs = await db().run.findMany({
    where: { status: { in: ["RUNNING", "PAUSED"] }, ...(bound ? { experimentId: bound } : {}) },
    include: { experiment: { select: { name: true, config: true } }, steps: { orderBy: { step: "desc" }, take: 1, select: { createdAt: true } } },
    orderBy: { startedAt: "desc" },
  });
  const pending = runs.length
    ? await db().sample.groupBy({ by: ["runId"], where: { runId: { in: runs.map((r) => r.id) }, stepId: null, excluded: false }, _count: { _all: true } })
    : [];
  const experiments = await db().experiment.findMany({ where: { status: "ACTIVE", ...(bound ? { id: bound } : {}) }, select: { id: true, name: true, config: true } });
  const [queues, backlogs, latest] = await Promise.all([
    redisQueues().catch(() => []),
    Promise.all(
      experiments.map(async (e) => {
        const cfg = ExperimentConfigSchema.safeParse(e.config);
        if (!cfg.success) return null;
        const b = await backlogOf(e.id, expectedJudgeVersion(cfg.data));
        return { experimentId: e.id, experimentName: e.name, judgeDepth: b.depth, judgeLagMs: b.lagMs };
      }),
    ),
    gauges(bound, 5 * 60_000),
  ]);
  return {
    queues,
    backlogs: backlogs.filter((b): b is NonNullable<typeof b> => b !== null && (b.judgeDepth > 0 || b.judgeLagMs > 0)),
    gauges: latest.map((g) => ({ ...g, runId: g.runKey || null })),
    runs: runs.map((r) => {
      const cfg = ExperimentConfigSchema.safeParse(r.config);
      const trainer = cfg.success ? cfg.data.trainer : null;
      const plan = trainer && trainer.backend !== "embedded" ? planGpuSplit(trainer.gpu) : null;
      return {
        id: r.id,
        number: r.number,
        status: r.status,
        experimentId: r.experimentId,
        experimentName: r.experiment.name,
        trainerBackend: r.trainerBackend,
        gpu: trainer && trainer.backend !== "embedded" ? trainer.gpu : null,
        gpuSummary: plan ? (plan.ok ? plan.summary.text : plan.errors.map((e) => e.message).join("; ")) : null,
        pendingSamples: pending.find((x) => x.runId === r.id)?._count._all ?? 0,
        batchSize: cfg.success ? cfg.data.hyper.batchSize : null,
        lastStep: r.lastStep,
        lastStepAt: r.steps[0]?.createdAt ?? null,
        startedAt: r.startedAt,
      };
    }),
  };
}
