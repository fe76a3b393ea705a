// Judge worker: PRM scoring, OPD hints and teacher log-probs for every turn whose next state arrived
// (or whose session ended). Settings come from the environment; see JudgeEnvSchema.
import { z } from "zod";
import { closeQueues } from "../../server/platform/bus/queues";
import { db } from "../../server/platform/db/client";
import { startJudgeWorker } from "../../server/judge/worker/worker";
import { runWorker } from "../../server/platform/workerRuntime";

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);

const JudgeEnvSchema = z.object({
  /** Jobs (turns) judged at once by this process. */
  JUDGE_CONCURRENCY: int(4, 1),
  /** Judge calls in flight at once across those jobs (each turn makes m, or 2m, calls). Limits as in the judge settings. */
  JUDGE_CALL_CONCURRENCY: int(16, 1, 64),
  JUDGE_TIMEOUT_MS: int(120_000, 50, 600_000),
  JUDGE_RETRIES: int(2, 0, 10),
  TEACHER_CONCURRENCY: int(1, 1, 64),
  TEACHER_TIMEOUT_MS: int(120_000, 50, 600_000),
  TEACHER_RETRIES: int(2, 0, 10),
  JUDGE_JOB_TIMEOUT_MS: int(10 * 60_000, 1000),
  JUDGE_LOCK_MS: int(30_000, 1000),
  JUDGE_SWEEP_INTERVAL_MS: int(10_000),
  JUDGE_SWEEP_MIN_AGE_MS: int(30_000),
  /** A job that exhausted its attempts during an outage is re-queued by the sweeper after this long. */
  JUDGE_FAILED_RETRY_MS: int(10 * 60_000),
  JUDGE_METRICS_INTERVAL_MS: int(5_000, 100),
  /** Comma-separated experiment ids: limit the sweeper and metrics to them (tests, partial deployments). */
  JUDGE_EXPERIMENTS: z.string().optional(),
});

const cfg = JudgeEnvSchema.parse(process.env);

await runWorker("judge", async (ctx) => {
  const worker = startJudgeWorker({
    concurrency: cfg.JUDGE_CONCURRENCY,
    lockDurationMs: cfg.JUDGE_LOCK_MS,
    jobTimeoutMs: cfg.JUDGE_JOB_TIMEOUT_MS,
    sweepIntervalMs: cfg.JUDGE_SWEEP_INTERVAL_MS,
    sweepMinAgeMs: cfg.JUDGE_SWEEP_MIN_AGE_MS,
    failedRetryAfterMs: cfg.JUDGE_FAILED_RETRY_MS,
    metricsIntervalMs: cfg.JUDGE_METRICS_INTERVAL_MS,
    experimentIds: cfg.JUDGE_EXPERIMENTS?.split(",").map((s) => s.trim()).filter(Boolean),
    runtime: {
      judgeCalls: { timeoutMs: cfg.JUDGE_TIMEOUT_MS, retries: cfg.JUDGE_RETRIES },
      teacherCalls: { timeoutMs: cfg.TEACHER_TIMEOUT_MS, retries: cfg.TEACHER_RETRIES },
      judgeConcurrency: cfg.JUDGE_CALL_CONCURRENCY,
      teacherConcurrency: cfg.TEACHER_CONCURRENCY,
    },
    setActivity: ctx.setActivity,
    setStat: ctx.setStat,
    log: ctx.log,
  });
  ctx.log(`judge worker up: ${cfg.JUDGE_CONCURRENCY} concurrent turn(s)`);
  if (!ctx.signal.aborted) await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
  ctx.setActivity("shutting down: finishing in-flight turns");
  await worker.close();
  await closeQueues();
  await db().$disconnect();
});
// Open handles (pg pool, BullMQ connections) must not keep a stopped worker alive.
process.exit(0);
