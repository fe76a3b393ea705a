// Evaluation worker: held-out evaluation of policy versions, the promotion gate and automatic rollback
// (server/evaluation). Its own process, at the trainer's low CPU priority, so generation for evaluations
// never holds up the proxy's event loop or the trainer's steps. Settings: the `evaluate` section of
// server/platform/env.ts.
import os from "node:os";
import { settings } from "../../server/platform/env";
import { closeQueues } from "../../server/platform/bus/queues";
import { db } from "../../server/platform/db/client";
import { EVALUATE_NICE, startEvaluationWorker } from "../../server/evaluation/worker";
import { runWorker } from "../../server/platform/workerRuntime";
import { restartOnEngineFault } from "../engineFault";

const cfg = settings("evaluate");

try {
  os.setPriority(EVALUATE_NICE);
} catch {
  // Not permitted here: evaluations then run at normal priority.
}

await runWorker("evaluate", async (ctx) => {
  restartOnEngineFault(ctx);
  const worker = await startEvaluationWorker({
    pollMs: cfg.EVALUATE_POLL_MS,
    experimentIds: cfg.EVALUATE_EXPERIMENTS.length ? cfg.EVALUATE_EXPERIMENTS : undefined,
    setActivity: ctx.setActivity,
    setStat: ctx.setStat,
    log: ctx.log,
  });
  ctx.log("evaluation worker up");
  if (!ctx.signal.aborted)
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
  ctx.setActivity("shutting down");
  await worker.close();
  await closeQueues();
  await db().$disconnect();
});
// Open handles (pg pool, BullMQ connections) must not keep a stopped worker alive.
process.exit(process.exitCode ?? 0);
