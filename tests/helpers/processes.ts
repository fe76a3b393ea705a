// Finding the processes one `npm start` launched: every process of its tree inherits its DATA_DIR.
import { readdirSync, readFileSync } from "node:fs";

/** Pids of the processes whose environment carries `DATA_DIR=dataDir` (the launcher's whole tree, Postgres included). */
export function processesWithDataDir(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`DATA_DIR=${dataDir}`))
        pids.push(Number(entry));
    } catch {
      /* exited, a kernel thread, or not ours */
    }
  }
  return pids;
}
