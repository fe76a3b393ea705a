// The OpenAI-compatible recording proxy (server/proxy) as a worker process on PROXY_PORT.
import { startProxy } from "../../server/proxy/server";
import { runWorker, sleep } from "../../server/platform/workerRuntime";
import { proxyWorkerStats } from "../../server/proxy/workerStats";
import { restartOnEngineFault } from "../engineFault";

await runWorker("serve", async (ctx) => {
  restartOnEngineFault(ctx); // the embedded policy and users' adapters
  const proxy = await startProxy({ log: (m) => ctx.log(`[proxy] ${m}`) });
  ctx.log(`recording proxy listening on ${proxy.url} (POST /v1/chat/completions)`);
  while (!ctx.signal.aborted) {
    const w = proxy.writer;
    ctx.setActivity(
      w.degraded ? `serving; Postgres unreachable, ${w.depth} turns buffered` : `serving on :${proxy.port}`,
    );
    for (const [name, value] of Object.entries(proxyWorkerStats(proxy))) ctx.setStat(name, value);
    await sleep(1000, ctx.signal);
  }
  ctx.setActivity("draining");
  await proxy.close();
});
