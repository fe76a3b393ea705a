// Processes by real uid, read from /proc. As root, each lease runs as a uid of its own, so "what does this
// lease still run" is "which processes have its uid" — including any a command double-forked away.
import { readdirSync, readFileSync } from "node:fs";

/**
 * The pids of `uid`'s processes. Zombies are left out unless asked for: they run nothing and hold nothing but
 * a pid, and bwrap's namespace init, once orphaned, waits as one until the host's pid 1 reaps it (which a
 * container's init may do seconds later).
 */
export function pidsOfUid(uid: number, opts: { zombies?: boolean } = {}): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${name}/status`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    const m = /^Uid:\s+(\d+)/m.exec(status);
    if (!m || Number(m[1]) !== uid) continue;
    if (!opts.zombies && /^State:\s+Z/m.test(status)) continue;
    pids.push(Number(name));
  }
  return pids;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * SIGKILLs every live process of `uid` until none is left (a process may fork between the scan and the kill,
 * and a killed one takes a moment to die, hence the rounds). Never used with our own uid. Returns how many were killed.
 */
export async function killUid(uid: number, rounds = 250): Promise<number> {
  if (uid === process.getuid?.()) throw new Error("refusing to kill this process's own uid");
  let killed = 0;
  for (let i = 0; i < rounds; i++) {
    const pids = pidsOfUid(uid);
    if (pids.length === 0) return killed;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
        killed++;
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const left = pidsOfUid(uid);
  if (left.length) throw new Error(`processes of uid ${uid} survived SIGKILL: ${left.join(", ")}`);
  return killed;
}
