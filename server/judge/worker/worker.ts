// The judge worker's moving parts: the BullMQ consumer (at-least-once; a crashed worker's jobs come
// back through BullMQ's stalled-job check), the sweeper, and the metrics flush. `workers/judge/main.ts`
// wires it to the process life cycle; tests run it in-process.
import type { Job } from "bullmq";
import { publish } from "../../platform/bus/pubsub";
import { consume, queue } from "../../platform/bus/queues";
import { db } from "../../platform/db/client";
import { redis } from "../../platform/redis";
import { randomUUID } from "node:crypto";
import { withTimeout } from "../core/resilience";
import { LIVE_RUN_STATUSES } from "../../platform/db/runStatus";
import { sleep } from "../../platform/workerRuntime";
import { activeExperiments, backlogOf } from "./backlog";
import { JudgeMetricsWindow, MetricsAggregation, sampleOf, summarize, type JudgedSample } from "./metrics";
import { judgeTurnJob, JudgeUnavailableError } from "./process";
import { JudgeRuntime, type JudgeRuntimeOptions } from "./runtime";
import { sweepUnjudged } from "./sweeper";

/** ioredis queues commands while Redis is down; calls outside the job path give up after this. */
const REDIS_TIMEOUT_MS = 5000;

export type JudgeWorkerOptions = {
  /** Jobs judged at once by this process. */
  concurrency: number;
  /** BullMQ lock; a crashed worker's jobs are re-delivered about this long after it died. */
  lockDurationMs: number;
  /** Abort a job's remaining calls after this long (it then fails and is retried). */
  jobTimeoutMs: number;
  /** 0 disables the sweeper. */
  sweepIntervalMs: number;
  sweepMinAgeMs: number;
  /** The sweeper re-queues a job that failed for good (e.g. a long outage) this long after it failed. */
  failedRetryAfterMs: number;
  metricsIntervalMs: number;
  /** Restrict the sweeper and metrics to these experiments (all active ones when absent). */
  experimentIds?: readonly string[];
  runtime?: JudgeRuntimeOptions;
  setActivity?: (activity: string) => void;
  setStat?: (name: string, value: number) => void;
  log?: (...args: unknown[]) => void;
};

export type JudgeWorker = {
  runtime: JudgeRuntime;
  totals: { stored: number; duplicates: number; skipped: number; retried: number };
  sweep(): Promise<void>;
  flushMetrics(): Promise<void>;
  close(): Promise<void>;
};

export function startJudgeWorker(opts: JudgeWorkerOptions): JudgeWorker {
  const log = opts.log ?? (() => {});
  const runtime = new JudgeRuntime(opts.runtime);
  const window = new JudgeMetricsWindow();
  const aggregation = new MetricsAggregation({
    redis: redis(),
    workerId: randomUUID(),
    leaseMs: Math.max(3 * opts.metricsIntervalMs, 5000),
  });
  const totals = { stored: 0, duplicates: 0, skipped: 0, retried: 0 };
  const inFlight = new Set<string>();
  /** Experiments that got points last flush: they get one more (the return to zero) when idle. */
  let reported = new Set<string>();

  const showActivity = () => {
    const [first] = inFlight;
    opts.setActivity?.(
      first
        ? `judging turn ${first}${inFlight.size > 1 ? ` (+${inFlight.size - 1} more)` : ""}`
        : "idle: waiting for turns",
    );
    opts.setStat?.("in_flight", inFlight.size);
  };

  const handle = async (turnId: string, job: Job) => {
    inFlight.add(turnId);
    showActivity();
    try {
      const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const outcome = await judgeTurnJob(runtime, turnId, {
        finalAttempt,
        signal: AbortSignal.timeout(opts.jobTimeoutMs),
      });
      if (outcome.status === "skipped") totals.skipped++;
      else if (outcome.status === "duplicate") totals.duplicates++;
      else {
        totals.stored++;
        window.record(outcome.experimentId, sampleOf(outcome.result));
        if (outcome.degraded) log(`stored turn ${turnId} after the last attempt despite: ${outcome.degraded}`);
      }
    } catch (err) {
      if (err instanceof JudgeUnavailableError) totals.retried++;
      log(`turn ${turnId}: ${err instanceof Error ? err.message : String(err)} (attempt ${job.attemptsMade + 1})`);
      throw err;
    } finally {
      inFlight.delete(turnId);
      showActivity();
    }
  };

  const bull = consume("judgeTurn", (payload, job) => handle(payload.turnId, job), {
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: opts.lockDurationMs,
    // A job whose worker crashed repeatedly still comes back; the sweeper catches anything beyond.
    maxStalledCount: 10,
  });
  bull.on("error", (err) => log(`queue error: ${err.message}`));

  const sweep = async () => {
    const { queued } = await sweepUnjudged({
      minAgeMs: opts.sweepMinAgeMs,
      limit: 500,
      failedRetryAfterMs: opts.failedRetryAfterMs,
      experimentIds: opts.experimentIds,
    });
    if (queued) log(`sweeper queued ${queued} unjudged turn(s)`);
  };

  const flushMetrics = async () => {
    const { windowMs, samples } = window.drain();
    const now = Date.now();
    // One series however many workers run: a follower hands its samples to the leader and writes nothing.
    // Redis unreachable: this worker writes its own (one series per worker, as before the aggregation).
    const leader = await withTimeout(REDIS_TIMEOUT_MS, () => aggregation.lead()).catch(() => null);
    const handed =
      leader === false &&
      (await withTimeout(REDIS_TIMEOUT_MS, () => aggregation.handOver(samples)).then(
        () => true,
        () => false,
      ));
    const emitted = new Set<string>();
    for (const e of handed ? [] : await activeExperiments(opts.experimentIds)) {
      let mine: JudgedSample[] = samples.get(e.id) ?? [];
      if (leader)
        mine = [
          ...mine,
          ...(await withTimeout(REDIS_TIMEOUT_MS, () => aggregation.take(e.id)).catch(() => [] as JudgedSample[])),
        ];
      const backlog = await backlogOf(e.id, e.judgeVersion);
      if (mine.length === 0 && backlog.depth === 0 && !reported.has(e.id)) continue;
      if (mine.length > 0 || backlog.depth > 0) emitted.add(e.id);
      const points = summarize(mine, windowMs, backlog);
      const run = await db().run.findFirst({
        where: { experimentId: e.id, status: { in: LIVE_RUN_STATUSES } },
        orderBy: { number: "desc" },
        select: { id: true },
      });
      const runId = run?.id ?? null;
      await db().metricPoint.createMany({
        data: points.map((p) => ({ experimentId: e.id, runId, name: p.name, value: p.value, ts: new Date(now) })),
      });
      // Live fan-out is best effort: Postgres has the points, and a Redis outage must not stall the loop.
      await withTimeout(REDIS_TIMEOUT_MS, () =>
        publish("metrics", { experimentId: e.id, runId, points: points.map((p) => ({ ...p, step: null, ts: now })) }),
      ).catch(() => {});
    }
    if (!handed) reported = emitted;
    const counts = await withTimeout(REDIS_TIMEOUT_MS, () =>
      queue("judgeTurn").getJobCounts("waiting", "active", "delayed", "failed", "prioritized"),
    );
    for (const [state, n] of Object.entries(counts)) opts.setStat?.(`queue_${state}`, n);
    for (const [name, n] of Object.entries(totals)) opts.setStat?.(`${name}_total`, n);
  };

  /** Runs `fn` every `ms` (never overlapping itself: a slow pass while Postgres or Redis is down skips ticks). */
  const every = (ms: number, what: string, fn: () => Promise<void>) => {
    const loop = { timer: null as NodeJS.Timeout | null, running: null as Promise<void> | null };
    if (ms > 0) {
      loop.timer = setInterval(() => {
        if (loop.running) return;
        loop.running = fn()
          .catch((err: Error) => log(`${what} failed: ${err.message}`))
          .finally(() => (loop.running = null));
      }, ms);
    }
    return loop;
  };
  const loops = [every(opts.sweepIntervalMs, "sweep", sweep), every(opts.metricsIntervalMs, "metrics", flushMetrics)];
  showActivity();

  return {
    runtime,
    totals,
    sweep,
    flushMetrics,
    async close() {
      for (const l of loops) if (l.timer) clearInterval(l.timer);
      // A pass stuck on a Redis outage must not hold the shutdown forever.
      await Promise.race([Promise.all(loops.map((l) => l.running)), sleep(REDIS_TIMEOUT_MS)]);
      // Waits for in-flight jobs; a job cut off by a harder stop is re-delivered after its lock expires.
      await bull.close();
      await flushMetrics().catch((err: Error) => log(`final metrics flush failed: ${err.message}`));
    },
  };
}
