// Trainer worker: drives the life cycle of embedded runs (server/runs/lifecycle.ts: PENDING → RUNNING,
// heartbeats on the run row on a timer, CRASHED once a run's heartbeat is older than TRAINER_RUN_STALE_S
// because the worker that trained it died) and runs the embedded training loop (server/training/loop.ts)
// for every live one. It runs at a lower CPU priority than the proxy, and rests between steps, so serving
// stays responsive while it trains.
//
// TRAINER_EXPERIMENTS (optional, comma-separated experiment ids) limits this process to those
// experiments, to shard runs over several trainer processes.
import os from "node:os";
import { settings } from "../../server/platform/env";
import { db, type Prisma } from "../../server/platform/db/client";
import { STARTED_RUN_STATUSES } from "../../server/platform/db/runStatus";
import { crashStaleRuns, heartbeatRuns, setRunMessage, startEmbeddedRuns } from "../../server/runs/lifecycle";
import { REST_AFTER_STEP_MS, Trainer, TRAINER_NICE } from "../../server/training/loop";
import { runWorker, sleep } from "../../server/platform/workerRuntime";
import { restartOnEngineFault } from "../engineFault";
import "./external"; // supervises runs on external trainers (ray-slime, local-process, tinker): server/runs/supervisor.ts
import "./perUser"; // trains due users' adapters in per-user experiments: server/personalization/schedule.ts

const IDLE_MS = 1000;

const { TRAINER_EXPERIMENTS: shard, TRAINER_RUN_HEARTBEAT_S, TRAINER_RUN_STALE_S } = settings("train");
const mine: Prisma.RunWhereInput = {
  trainerBackend: "embedded",
  ...(shard.length ? { experimentId: { in: shard } } : {}),
};

try {
  os.setPriority(TRAINER_NICE);
} catch {
  // Not permitted here: the trainer still yields between micro-batches and rests between steps.
}

await runWorker("train", async (ctx) => {
  restartOnEngineFault(ctx);
  const trainer = new Trainer({ log: ctx.log });
  const failures = new Map<string, { count: number; retryAt: number }>();
  let steps = 0;
  // Runs this process has trained: its own sweep never crashes them (a Postgres outage longer than the
  // staleness stops the heartbeat too, yet this worker is alive). A restarted worker starts with none, so the
  // runs its dead predecessor left are CRASHED rather than silently resumed after a long gap.
  const mineSeen = new Set<string>();
  const beat = () => heartbeatRuns(mine, new Date()).catch(() => {}); // Postgres down: the loop waits it out
  const heartbeat = setInterval(() => void beat(), TRAINER_RUN_HEARTBEAT_S * 1000);
  try {
    while (!ctx.signal.aborted) {
      let live: { id: string; number: number }[];
      try {
        const now = new Date();
        const crashed = await crashStaleRuns(
          { ...mine, id: { notIn: [...mineSeen] } },
          { now, staleMs: TRAINER_RUN_STALE_S * 1000 },
        );
        if (crashed.length)
          ctx.log(`crashed ${crashed.length} run(s) whose train worker stopped: ${crashed.join(", ")}`);
        const started = await startEmbeddedRuns(mine, now);
        if (started) ctx.log(`started ${started} run(s)`);
        await heartbeatRuns(mine, now);
        live = await db().run.findMany({
          where: { ...mine, status: { in: STARTED_RUN_STATUSES } },
          select: { id: true, number: true },
          orderBy: { createdAt: "asc" },
        });
      } catch (e) {
        // Postgres unreachable (outage, failover): wait it out in this process, weights still loaded,
        // instead of dying on the rejection.
        ctx.setActivity(`waiting for Postgres: ${(e as Error).message}`.slice(0, 200));
        await sleep(IDLE_MS, ctx.signal);
        continue;
      }
      for (const r of live) mineSeen.add(r.id);
      const liveIds = new Set(live.map((r) => r.id));
      for (const id of trainer.runIds) if (!liveIds.has(id)) trainer.release(id); // stopped runs stop

      let stepped = false;
      const fills: string[] = [];
      for (const run of live) {
        if (ctx.signal.aborted) break;
        // A run that keeps failing (e.g. its base checkpoint is missing) is retried with a growing pause.
        const fails = failures.get(run.id);
        if (fails && Date.now() < fails.retryAt) continue;
        try {
          const r = await trainer.tick(run.id);
          if (fails) {
            failures.delete(run.id);
            await setRunMessage(run.id, null);
          }
          if (r.fill) fills.push(`#${run.number} ${r.fill.ready}/${r.fill.needed}`);
          if (r.step && r.step.outcome !== "discarded") {
            stepped = true;
            steps += 1;
            ctx.setStat("steps", steps);
          }
        } catch (e) {
          const count = (fails?.count ?? 0) + 1;
          failures.set(run.id, { count, retryAt: Date.now() + Math.min(2 ** count, 60) * 1000 });
          const message = `trainer: ${(e as Error).message}`.slice(0, 500);
          ctx.log(`run ${run.id}: ${(e as Error).stack ?? message}`);
          await setRunMessage(run.id, message).catch(() => {});
        }
      }
      ctx.setStat("runs", live.length);
      ctx.setActivity(
        live.length ? `training ${live.length} run(s): batch ${fills.join(", ")}` : "idle: no running runs",
      );
      await sleep(stepped ? REST_AFTER_STEP_MS : IDLE_MS, ctx.signal);
    }
  } finally {
    clearInterval(heartbeat);
    trainer.close();
  }
});
