// Evaluation worker: held-out evaluation of policy versions, the promotion gate and automatic rollback
// (server/evaluation). Its own process, so generation for evaluations never competes with the proxy's
// event loop or the trainer's steps. Settings come from the environment; see EvaluateEnvSchema.
import { z } from "zod";
import { closeQueues } from "../../server/platform/bus/queues";
import { db } from "../../server/platform/db/client";
import { startEvaluationWorker } from "../../server/evaluation/worker";
import { runWorker } from "../../server/platform/workerRuntime";

const EvaluateEnvSchema = z.object({
  /** How often the scheduler looks for versions due an evaluation (it also runs on every version change). */
  EVALUATE_POLL_MS: z.coerce.number().int().min(100).default(10_000),
  /** Comma-separated experiment ids: limit the worker to them (tests, partial deployments). */
  EVALUATE_EXPERIMENTS: z.string().optional(),
});

const cfg = EvaluateEnvSchema.parse(process.env);

await runWorker("evaluate", async (ctx) => {
  const worker = await startEvaluationWorker({
    pollMs: cfg.EVALUATE_POLL_MS,
    experimentIds: cfg.EVALUATE_EXPERIMENTS?.split(",").map((s) => s.trim()).filter(Boolean),
    setActivity: ctx.setActivity,
    setStat: ctx.setStat,
    log: ctx.log,
  });
  ctx.log("evaluation worker up");
  if (!ctx.signal.aborted) await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
  ctx.setActivity("shutting down");
  await worker.close();
  await closeQueues();
  await db().$disconnect();
});
process.exit(0);
