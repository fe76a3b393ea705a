// Simulated users (server/simulation): for every experiment whose simulation is on, personas hold seeded
// multi-turn conversations with the agent through the proxy, at the configured rate and concurrency. Settings
// live in Postgres (changed from the UI or the API, announced on the simulationControl channel, polled as a
// fallback); SIMULATE=0 or the global switch turns all simulated traffic off. An experiment whose embedded trainer
// already has a batch of turns waiting gets no new conversation until it takes it (server/simulation/pacing.ts).
import { env, settings } from "../../server/platform/env";
import { subscribe } from "../../server/platform/bus/pubsub";
import { proxyChat, proxyClient } from "../../server/simulation/client";
import { mintSimulationKey, revokeSimulationKey, type SimulationKey } from "../../server/simulation/key";
import { ExperimentSimulation, type ChatFactory } from "../../server/simulation/runner";
import { mayStart, trainerBacklogs, type TrainerBacklog } from "../../server/simulation/pacing";
import { activeSimulations, simulationAllowedByEnv, writeStats } from "../../server/simulation/service";
import { runWorker, sleep } from "../../server/platform/workerRuntime";

const TICK_MS = 250;
const PACING_POLL_MS = 1000;
const STATS_EVERY_MS = 2000;
const ROTATE_BEFORE_MS = 3600_000;

const cfg = settings("simulate");
const baseURL = cfg.SIMULATE_PROXY_URL ?? `http://127.0.0.1:${env().PROXY_PORT}/v1`;

await runWorker("simulate", async (ctx) => {
  if (!simulationAllowedByEnv()) {
    ctx.setActivity("off: SIMULATE=0");
    while (!ctx.signal.aborted) await sleep(5000, ctx.signal);
    return;
  }
  let key: SimulationKey | null = null;
  let client: ReturnType<typeof proxyClient> | null = null;
  const chatFor =
    (slug: string): ChatFactory =>
    (conv) =>
      proxyChat(client!, { model: slug, ...conv });
  const nonce = Date.now().toString(36);
  const runners = new Map<string, { sim: ExperimentSimulation; slug: string }>();
  let reloadAt = 0;
  let statsAt = 0;
  let pacedAt = 0;
  let backlogs = new Map<string, TrainerBacklog>();
  let offReason: string | null = null;
  const unsubscribe = subscribe("simulationControl", () => void (reloadAt = 0)).catch((err: Error) => {
    ctx.log(`no live settings changes (${err.message}); polling every ${cfg.SIMULATE_POLL_MS} ms`);
    return null;
  });

  const reconcile = async () => {
    const desired = await activeSimulations();
    offReason = desired.on ? null : desired.reason;
    const wanted = new Map(desired.items.map((d) => [d.experimentId, d]));
    for (const [id, r] of runners) {
      const d = wanted.get(id);
      if (d && d.slug === r.slug && r.sim.sameSequence(d.settings)) continue;
      runners.delete(id);
      void r.sim.stop(); // unwinds in the background; a new seed starts a new sequence at once
      ctx.log(`simulation of ${r.slug} stopped`);
    }
    for (const d of desired.items) {
      const r = runners.get(d.experimentId);
      if (r) r.sim.update(d.settings);
      else {
        runners.set(d.experimentId, {
          slug: d.slug,
          sim: new ExperimentSimulation(d.experimentId, d.settings, chatFor(d.slug), nonce, (m) =>
            ctx.log(`[${d.slug}] ${m}`),
          ),
        });
        ctx.log(
          `simulating users on ${d.slug}: ${d.settings.personas.join(", ")} at ${d.settings.perMinute}/min, ${d.settings.concurrency} at once, seed ${d.settings.seed}`,
        );
      }
    }
  };

  try {
    while (!ctx.signal.aborted) {
      const now = Date.now();
      try {
        if (!key || key.expiresAt.getTime() - now < ROTATE_BEFORE_MS) {
          const old = key;
          key = await mintSimulationKey();
          client = proxyClient({ baseURL, apiKey: key.key });
          if (old) await revokeSimulationKey(old.id).catch(() => {});
        }
        if (now >= reloadAt) {
          reloadAt = now + cfg.SIMULATE_POLL_MS;
          await reconcile();
        }
      } catch (err) {
        ctx.setActivity(`waiting for Postgres: ${(err as Error).message}`.slice(0, 200));
        reloadAt = now + cfg.SIMULATE_POLL_MS;
      }
      // Backpressure (server/simulation/pacing.ts): read once a second, not on every tick.
      if (now >= pacedAt && runners.size) {
        pacedAt = now + PACING_POLL_MS;
        backlogs = await trainerBacklogs([...runners.keys()]).then(
          (rows) => new Map(rows.map((b) => [b.experimentId, b])),
          () => backlogs, // Postgres down: the last reading stands
        );
      }
      let waitingForTrainer = 0;
      for (const [id, { sim }] of runners) {
        const ready = mayStart(backlogs.get(id));
        if (!ready) waitingForTrainer++;
        sim.tick(ready);
      }

      if (now - statsAt >= STATS_EVERY_MS) {
        statsAt = now;
        const all = [...runners.values()].map((r) => r.sim.stats());
        await Promise.all(all.map((s) => writeStats(s).catch(() => {})));
        const sum = (f: (s: (typeof all)[number]) => number) => all.reduce((a, s) => a + f(s), 0);
        ctx.setStat("experiments", all.length);
        ctx.setStat(
          "active",
          sum((s) => s.active),
        );
        ctx.setStat(
          "sessions",
          sum((s) => s.sessions),
        );
        ctx.setStat(
          "turns",
          sum((s) => s.turns),
        );
        ctx.setStat("turnsPerS", Math.round(sum((s) => s.turnsPerS) * 100) / 100);
        ctx.setStat(
          "errors",
          sum((s) => s.errors),
        );
        ctx.setActivity(
          offReason
            ? `off: ${offReason}`
            : all.length
              ? `simulating users on ${all.length} experiment(s): ${sum((s) => s.active)} in conversation, ${sum((s) => s.turnsPerS).toFixed(2)} turns/s${waitingForTrainer ? `; ${waitingForTrainer} waiting for their trainer to take the batch` : ""}`
              : "idle: no experiment has simulated users on",
        );
      }
      await sleep(TICK_MS, ctx.signal);
    }
  } finally {
    ctx.setActivity("stopping: ending conversations");
    await Promise.all([...runners.values()].map((r) => r.sim.stop()));
    if (key) await revokeSimulationKey(key.id).catch(() => {});
    await (
      await unsubscribe
    )?.();
  }
});
// Open handles (pg pool) must not keep a stopped worker alive.
process.exit(0);
