// Supervision of runs on external trainers (ray-slime, local-process, tinker) inside the train worker, next
// to the embedded training loop: imported once by workers/train/main.ts. It polls every
// TRAINER_SUPERVISE_INTERVAL_S seconds (default 5), covers the experiments in TRAINER_EXPERIMENTS (all when
// unset, as for the embedded loop) and, on SIGTERM/SIGINT, ends the trainer processes it
// started itself (local processes, the Tinker bridge); Ray jobs keep running and are picked up again.
import { supervisorSettings } from "../../server/runs/settings";
import { RunSupervisor } from "../../server/runs/supervisor";
import { sleep } from "../../server/platform/workerRuntime";
import { settings } from "../../server/platform/env";
import { logger } from "../../server/platform/log";

const externalLog = logger("external trainers");

const log = (line: string) => externalLog.info(line);
const { TRAINER_SUPERVISE_INTERVAL_S, TRAINER_EXPERIMENTS: experimentIds } = settings("train");
const intervalMs = TRAINER_SUPERVISE_INTERVAL_S * 1000;

async function supervise(signal: AbortSignal): Promise<void> {
  let supervisor: RunSupervisor;
  try {
    supervisor = new RunSupervisor({ settings: supervisorSettings(), log, experimentIds });
  } catch (err) {
    // Bad operator settings must not take the embedded trainer down with them.
    log(`not supervising external runs: ${(err as Error).message}`);
    return;
  }
  while (!signal.aborted) {
    try {
      await supervisor.tick();
    } catch (err) {
      log(`tick failed: ${(err as Error).stack ?? String(err)}`);
    }
    await sleep(intervalMs, signal);
  }
  await supervisor.shutdown().catch((err: Error) => log(`shutdown: ${err.message}`));
}

const controller = new AbortController();
for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => controller.abort());
void supervise(controller.signal);
