// Process-group control for the local-process trainer. Every role runs as the leader of its own process group
// (spawn with detached: true), so a stop reaches the role's whole tree, grandchildren included, and nothing
// else on the host: processes are addressed by group id, never by name.
import { readdirSync, readFileSync } from "node:fs";

/** Sends `signal` to every process in the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw err;
  }
}

/**
 * Whether any process of the group is still running. On Linux, /proc is consulted so that zombies (exited,
 * waiting to be reaped by whoever adopted them) do not count as alive; kill(-pgid, 0) alone would.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== "linux") return true;
  return liveGroupMembers(pgid).length > 0;
}

/** PIDs of the group's members that have not exited (Linux only). */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [pgid];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X") members.push(Number(entry));
  }
  return members;
}

/** Fields of /proc/<pid>/stat after the command name, which may itself contain spaces and parentheses. */
export function readStat(pid: number): { state: string; ppid: number; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the group is gone or `timeoutMs` passes; true when gone. */
export async function waitGroupGone(pgid: number, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
  }
}

/**
 * SIGTERM the group, give it `graceMs` to exit, then SIGKILL whatever is left. Resolves true once the
 * group is empty; false only if processes survive SIGKILL for `killWaitMs` (e.g. stuck in the kernel).
 */
export async function terminateGroup(pgid: number, graceMs: number, killWaitMs = 10_000): Promise<boolean> {
  if (!signalGroup(pgid, "SIGTERM")) return true;
  if (await waitGroupGone(pgid, graceMs)) return true;
  if (!signalGroup(pgid, "SIGKILL")) return true;
  return waitGroupGone(pgid, killWaitMs);
}
