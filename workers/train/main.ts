// Trainer worker. For now it owns the run life cycle of embedded runs (PENDING → RUNNING, heartbeats on
// the run row) so the UI's start/stop is real; the training loop itself arrives with the training issue.
import { db } from "../../server/db/client";
import { runWorker, sleep } from "../../server/workers/runtime";

await runWorker("train", async (ctx) => {
  while (!ctx.signal.aborted) {
    const now = new Date();
    const started = await db().run.updateMany({ where: { status: "PENDING", trainerBackend: "embedded" }, data: { status: "RUNNING", startedAt: now, heartbeatAt: now } });
    if (started.count) ctx.log(`started ${started.count} run(s)`);
    const live = await db().run.updateMany({ where: { status: "RUNNING", trainerBackend: "embedded" }, data: { heartbeatAt: now } });
    ctx.setActivity(live.count ? `supervising ${live.count} run(s)` : "idle: no running runs");
    await sleep(2000, ctx.signal);
  }
});
