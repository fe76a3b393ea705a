// Supervision of runs on external trainers (ray-slime, local-process, tinker) inside the train worker, next
// to the embedded training loop: imported once by workers/train/main.ts. It polls every
// TRAINER_SUPERVISE_INTERVAL_S seconds (default 5), covers the experiments in TRAINER_EXPERIMENTS (all when
// unset, as for the embedded loop) and, on SIGTERM/SIGINT, ends the trainer processes it
// started itself (local processes, the Tinker bridge); Ray jobs keep running and are picked up again.
import { RunSupervisor, supervisorSettings } from "../../server/runs/supervisor";
import { sleep } from "../../server/platform/workerRuntime";

const log = (line: string) => console.log(`${new Date().toISOString()} [external trainers] ${line}`);
const intervalMs = Math.max(1, Number(process.env.TRAINER_SUPERVISE_INTERVAL_S ?? 5)) * 1000;
const experimentIds = (process.env.TRAINER_EXPERIMENTS ?? "").split(",").map((s) => s.trim()).filter(Boolean);

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
