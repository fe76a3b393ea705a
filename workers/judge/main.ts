// Judge worker: PRM scoring, OPD hints and teacher log-probs for every turn whose next state arrived
// (or whose session ended). Settings: the "judge" section of server/platform/env.ts.
import { settings } from "../../server/platform/env";
import { closeQueues } from "../../server/platform/bus/queues";
import { db } from "../../server/platform/db/client";
import { startJudgeWorker } from "../../server/judge/worker/worker";
import { runWorker } from "../../server/platform/workerRuntime";
import { restartOnEngineFault } from "../engineFault";

const cfg = settings("judge");

await runWorker("judge", async (ctx) => {
  restartOnEngineFault(ctx); // the embedded teacher
  const worker = startJudgeWorker({
    concurrency: cfg.JUDGE_CONCURRENCY,
    lockDurationMs: cfg.JUDGE_LOCK_MS,
    jobTimeoutMs: cfg.JUDGE_JOB_TIMEOUT_MS,
    sweepIntervalMs: cfg.JUDGE_SWEEP_INTERVAL_MS,
    sweepMinAgeMs: cfg.JUDGE_SWEEP_MIN_AGE_MS,
    failedRetryAfterMs: cfg.JUDGE_FAILED_RETRY_MS,
    metricsIntervalMs: cfg.JUDGE_METRICS_INTERVAL_MS,
    experimentIds: cfg.JUDGE_EXPERIMENTS?.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
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
  if (!ctx.signal.aborted)
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
  ctx.setActivity("shutting down: finishing in-flight turns");
  await worker.close();
  await closeQueues();
  await db().$disconnect();
});
// Open handles (pg pool, BullMQ connections) must not keep a stopped worker alive.
process.exit(process.exitCode ?? 0);
