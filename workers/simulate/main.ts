// Placeholder loop until this worker's issue lands: it heartbeats so the Workers page shows it alive.
import { runWorker, sleep } from "../../server/workers/runtime";

await runWorker("simulate", async (ctx) => {
  ctx.setActivity("idle: not implemented yet");
  while (!ctx.signal.aborted) await sleep(1000, ctx.signal);
});
