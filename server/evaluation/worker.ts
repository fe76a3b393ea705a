// The evaluation worker's moving parts: the BullMQ consumer of `evaluate` jobs (one at a time: an
// evaluation is generation-bound and must not compete with itself), and the scheduler pass, run every
// `pollMs` and at once when a policy version changes. It runs in its own process (workers/evaluate), with
// its own engine instance, so an evaluation never holds up serving or training.
import { consume } from "../platform/bus/queues";
import { subscribe } from "../platform/bus/pubsub";
import { sleep } from "../platform/workerRuntime";
import { evaluateVersion, type RunnerDeps } from "./runner";
import { evaluateVersionOnTasks } from "./episodes";
import { scheduleEvaluations } from "./schedule";

/** The worker process's CPU niceness (workers/evaluate/main.ts), the trainer's. */
export const EVALUATE_NICE = 19;

export interface EvaluationWorkerOptions {
  pollMs: number;
  concurrency?: number;
  experimentIds?: readonly string[];
  deps?: Omit<RunnerDeps, "signal" | "log">;
  setActivity?: (a: string) => void;
  setStat?: (name: string, value: number) => void;
  log?: (...args: unknown[]) => void;
}

export async function startEvaluationWorker(opts: EvaluationWorkerOptions) {
  const log = opts.log ?? (() => {});
  const controller = new AbortController();
  const totals = { evaluated: 0, failed: 0 };
  const idle = () => opts.setActivity?.("idle: waiting for policy versions");
  const bull = consume(
    "evaluate",
    async (job) => {
      opts.setActivity?.(
        `evaluating version ${job.version} of ${job.experimentId}${job.draw ? ` (draw ${job.draw})` : ""}`,
      );
      try {
        const deps = { ...opts.deps, signal: controller.signal, log };
        if (job.target === "tasks") await evaluateVersionOnTasks(job.experimentId, job.version, job.setVersionId, deps);
        else await evaluateVersion(job.experimentId, job.version, job.setVersionId, deps, job.draw ?? 0);
        totals.evaluated++;
      } catch (err) {
        totals.failed++;
        log(
          `evaluation of ${job.experimentId} v${job.version} failed: ${err instanceof Error ? err.message : String(err)}`,
        );
        throw err;
      } finally {
        for (const [k, v] of Object.entries(totals)) opts.setStat?.(`${k}_total`, v);
        idle();
      }
    },
    { concurrency: opts.concurrency ?? 1, lockDuration: 60_000, stalledInterval: 60_000 },
  );
  bull.on("error", (err) => log(`queue error: ${err.message}`));

  let pass: Promise<void> | null = null;
  const schedule = () => {
    pass ??= scheduleEvaluations({ experimentIds: opts.experimentIds, log })
      .then((r) => {
        for (const q of r.queued) log(`queued evaluation of ${q.experimentId} v${q.version}`);
        for (const p of r.promoted) log(`gate promoted ${p.experimentId} v${p.version}`);
        for (const b of r.rolledBack) log(`auto-rollback of ${b.experimentId}: ${b.reason}`);
      })
      .catch((err: Error) => log(`schedule failed: ${err.message}`))
      .finally(() => (pass = null));
    return pass;
  };
  const unsubscribe = await subscribe("policyVersion", () => void schedule());
  const timer = setInterval(() => void schedule(), opts.pollMs);
  idle();
  void schedule();
  return {
    totals,
    schedule,
    async close() {
      clearInterval(timer);
      controller.abort();
      await unsubscribe();
      await Promise.race([pass, sleep(5000)]);
      await bull.close();
    },
  };
}
