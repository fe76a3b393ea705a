// Per-user adapters inside the train worker, next to the embedded training loop: imported once by
// workers/train/main.ts. Every TRAINER_PER_USER_INTERVAL_S seconds (default 30; 0 turns it off) it runs the
// per-user scheduler's tick (server/personalization/schedule.ts) over TRAINER_EXPERIMENTS (all when unset), at most
// TRAINER_PER_USER_MAX_PER_MINUTE adapter versions a minute; then the engine gate step
// (server/personalization/engineGate.ts) decides the CANDIDATE versions GPU trainers registered as PEFT folders;
// then each served adapter's live reward is checked against its parent's (server/personalization/autoRollback.ts,
// per experiment with serving.autoRollback on).
import { checkUserAutoRollbacks } from "../../server/personalization/autoRollback";
import { gateEngineCandidates } from "../../server/personalization/engineGate";
import { perUserTick } from "../../server/personalization/schedule";
import { settings } from "../../server/platform/env";
import { logger } from "../../server/platform/log";
import { sleep } from "../../server/platform/workerRuntime";

const log = logger("per-user adapters");
const {
  TRAINER_PER_USER_INTERVAL_S: intervalS,
  TRAINER_PER_USER_MAX_PER_MINUTE: maxPerMinute,
  TRAINER_EXPERIMENTS: experimentIds,
} = settings("train");

async function loop(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      for (const [experimentId, users] of Object.entries(await perUserTick(experimentIds, { maxPerMinute })))
        for (const [user, r] of Object.entries(users))
          if (r.trained)
            log.info(`${experimentId} ${user}: v${r.version} ${r.state.toLowerCase()} (${r.samples} samples)`);
      for (const r of await gateEngineCandidates(experimentIds))
        if (r.decided) log.info(`${r.endUserId}: v${r.version} ${r.state.toLowerCase()} by the engine gate`);
        else log.warn(`${r.endUserId}: v${r.version} stays a candidate: ${r.reason}`);
      for (const r of await checkUserAutoRollbacks(experimentIds))
        if (r.rolledBack) log.warn(`${r.experimentId} ${r.endUserId}: v${r.version} rolled back: ${r.reason}`);
    } catch (err) {
      log.warn(`tick failed: ${(err as Error).stack ?? String(err)}`);
    }
    await sleep(intervalS * 1000, signal);
  }
}

if (intervalS > 0) {
  const controller = new AbortController();
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => controller.abort());
  void loop(controller.signal);
}
