// The Workers page beyond heartbeats: Redis queue depth and lag, the judge's backlog in Postgres (the
// source of truth, so lost queue messages still show), each live run's training backlog and GPU plan, and
// the latest queue/lag/buffer gauges the workers publish as metrics.
import { db } from "../platform/db/client";
import { STARTED_RUN_STATUSES } from "../platform/db/runStatus";
import { Prisma } from "../platform/db/generated/client";
import { boundExperimentId, can, type Principal } from "../access/principal";
import { QUEUES, type QueueName } from "../platform/bus/contracts";
import { queue } from "../platform/bus/queues";
import { ExperimentConfigSchema } from "../config/experimentConfig";
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
      const [counts, oldest] = await Promise.all([
        q.getJobCounts("waiting", "active", "delayed", "failed", "prioritized"),
        q.getJobs(["waiting"], 0, 0, true),
      ]);
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

/** A job that failed at least once: retrying (BullMQ's delayed state after a failed attempt) or given up. */
export interface JobProblem {
  queue: string;
  jobId: string;
  experimentId: string | null;
  state: "retrying" | "failed";
  attemptsMade: number;
  attempts: number;
  reason: string;
  /** The last attempt's stack, as BullMQ kept it; null for anyone but an administrator. */
  stack: string | null;
  at: number;
}

const PROBLEMS_PER_QUEUE = 5;

/**
 * The newest retried and failed jobs with their last error (job.failedReason / stacktrace), so a backlog
 * stuck on "Delayed (retrying)" says why. A principal bound to one experiment sees only that one's jobs.
 */
async function jobProblems(bound: string | null): Promise<JobProblem[]> {
  const names = Object.keys(QUEUES) as QueueName[];
  const perQueue = await Promise.all(
    names.map(async (n) => {
      const jobs = await queue(n).getJobs(["delayed", "failed"], 0, 4 * PROBLEMS_PER_QUEUE - 1, false);
      return jobs
        .filter((j) => j && j.failedReason)
        .map((j): JobProblem => {
          const data = (j.data ?? {}) as { experimentId?: unknown };
          const stack = j.stacktrace?.length ? j.stacktrace[j.stacktrace.length - 1]! : null;
          return {
            queue: QUEUES[n].name,
            jobId: String(j.id),
            experimentId: typeof data.experimentId === "string" ? data.experimentId : null,
            state: j.finishedOn ? "failed" : "retrying",
            attemptsMade: j.attemptsMade,
            attempts: j.opts.attempts ?? 1,
            reason: j.failedReason,
            stack,
            at: j.finishedOn ?? j.processedOn ?? j.timestamp,
          };
        })
        .filter((j) => !bound || j.experimentId === bound)
        .sort((a, b) => b.at - a.at)
        .slice(0, PROBLEMS_PER_QUEUE);
    }),
  );
  return perQueue.flat().sort((a, b) => b.at - a.at);
}

/** Latest value of every queue / lag / buffer gauge published in the last `withinMs`. */
async function gauges(experimentId: string | null, withinMs: number) {
  const since = new Date(Date.now() - withinMs).toISOString();
  return db().$queryRaw<
    { experimentId: string; experimentName: string; runKey: string; name: string; value: number; at: Date }[]
  >`
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
  const bound = boundExperimentId(p);
  const runs = await db().run.findMany({
    where: { status: { in: STARTED_RUN_STATUSES }, ...(bound ? { experimentId: bound } : {}) },
    include: {
      experiment: { select: { name: true, config: true } },
      steps: { orderBy: { step: "desc" }, take: 1, select: { createdAt: true } },
    },
    orderBy: { startedAt: "desc" },
  });
  const pending = runs.length
    ? await db().sample.groupBy({
        by: ["runId"],
        where: { runId: { in: runs.map((r) => r.id) }, stepId: null, excluded: false },
        _count: { _all: true },
      })
    : [];
  const experiments = await db().experiment.findMany({
    where: { status: "ACTIVE", ...(bound ? { id: bound } : {}) },
    select: { id: true, name: true, config: true },
  });
  const [queues, problems, backlogs, latest] = await Promise.all([
    redisQueues().catch(() => []),
    // Stacks name files and internals of the host: administrators only (everyone sees the reason).
    jobProblems(bound)
      .then((list) => (can(p, "admin") ? list : list.map((j) => ({ ...j, stack: null }))))
      .catch(() => []),
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
  const names = new Map(experiments.map((e) => [e.id, e.name]));
  return {
    queues,
    problems: problems.map((j) => ({
      ...j,
      experimentName: j.experimentId ? (names.get(j.experimentId) ?? null) : null,
    })),
    backlogs: backlogs
      .filter((b): b is NonNullable<typeof b> => b !== null && (b.judgeDepth > 0 || b.judgeLagMs > 0))
      .map((b) => ({
        ...b,
        lastError:
          problems.find((j) => j.queue === QUEUES.judgeTurn.name && j.experimentId === b.experimentId)?.reason ?? null,
      })),
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
