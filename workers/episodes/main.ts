// Episode worker (server/environments/episodes): claims queued agent episodes and runs them — the policy
// through the recording proxy, tools in the environment's sandbox, the verifier's outcome — then the
// group's advantages. Its own proxy key (proxy scope, unbound: `model` names the experiment) is minted at
// start, held in memory only and revoked on shutdown. Settings: the `episodes` section of
// server/platform/env.ts.
import { env, settings } from "../../server/platform/env";
import { closeQueues } from "../../server/platform/bus/queues";
import { db } from "../../server/platform/db/client";
import { startEpisodeWorker } from "../../server/environments/episodes/worker";
import { mintWorkerKey, revokeSimulationKey } from "../../server/simulation/key";
import { runWorker } from "../../server/platform/workerRuntime";

const cfg = settings("episodes");
const baseUrl = cfg.EPISODES_PROXY_URL ?? `http://127.0.0.1:${env().PROXY_PORT}/v1`;

await runWorker("episodes", async (ctx) => {
  const key = await mintWorkerKey("agent episodes (workers/episodes)", ["proxy"]);
  const slugs = new Map<string, string>();
  const worker = startEpisodeWorker({
    agentFor: async (experimentId) => {
      let slug = slugs.get(experimentId);
      if (!slug) {
        slug = (await db().experiment.findUniqueOrThrow({ where: { id: experimentId }, select: { slug: true } })).slug;
        slugs.set(experimentId, slug);
      }
      return { baseUrl, apiKey: key.key, model: slug };
    },
    concurrency: cfg.EPISODES_CONCURRENCY,
    perEnvironment: cfg.EPISODES_PER_ENVIRONMENT,
    staleMs: cfg.EPISODE_STALE_S * 1000,
    maxAttempts: cfg.EPISODE_MAX_ATTEMPTS,
    sweepMs: cfg.EPISODES_SWEEP_MS,
    prmWaitMs: cfg.EPISODE_PRM_WAIT_S * 1000,
    experimentIds: cfg.EPISODES_EXPERIMENTS.length ? cfg.EPISODES_EXPERIMENTS : undefined,
    agentInstall: cfg.HARNESS_AGENT_INSTALL,
    setActivity: ctx.setActivity,
    setStat: ctx.setStat,
    log: ctx.log,
  });
  ctx.log(`episode worker up: ${cfg.EPISODES_CONCURRENCY} concurrent episode(s), policy via ${baseUrl}`);
  if (!ctx.signal.aborted)
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
  ctx.setActivity("shutting down: handing running episodes back to the queue");
  await worker.close();
  await revokeSimulationKey(key.id);
  await closeQueues();
  await db().$disconnect();
});
// Open handles (pg pool, BullMQ connections) must not keep a stopped worker alive.
process.exit(0);
