// Reads the reward a Harbor verifier wrote: /logs/verifier/reward.txt (one number) or reward.json
// ({"reward": number}). The files were written by code inside the sandbox, so they are opened without
// following links and read only up to a small size.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";

const MAX_BYTES = 64 * 1024;

export type RewardRead =
  | { reward: number; file: "reward.txt" | "reward.json"; error: null }
  | { reward: null; file: "reward.txt" | "reward.json" | null; error: string };

async function readSmall(file: string): Promise<string | null> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new Error("is a symbolic link");
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error("is not a regular file");
    if (st.size > MAX_BYTES) throw new Error(`is larger than ${MAX_BYTES} bytes`);
    const buf = Buffer.alloc(st.size);
    await handle.read(buf, 0, st.size, 0);
    return buf.toString("utf8");
  } finally {
    await handle.close();
  }
}

export function parseRewardText(text: string): number | null {
  const t = text.trim();
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

export async function readReward(verifierDir: string): Promise<RewardRead> {
  for (const file of ["reward.txt", "reward.json"] as const) {
    let text: string | null;
    try {
      // turbopackIgnore: an episode's verifier folder, nothing the web build could trace
      text = await readSmall(path.join(/* turbopackIgnore: true */ verifierDir, file));
    } catch (e) {
      return { reward: null, file, error: `/logs/verifier/${file} ${(e as Error).message}` };
    }
    if (text === null) continue;
    if (file === "reward.txt") {
      const n = parseRewardText(text);
      return n === null
        ? { reward: null, file, error: "/logs/verifier/reward.txt does not hold one number" }
        : { reward: n, file, error: null };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { reward: null, file, error: "/logs/verifier/reward.json is not JSON" };
    }
    const r = (parsed as { reward?: unknown } | null)?.reward;
    return typeof r === "number" && Number.isFinite(r)
      ? { reward: r, file, error: null }
      : { reward: null, file, error: '/logs/verifier/reward.json has no numeric "reward" field' };
  }
  return { reward: null, file: null, error: "the verifier wrote no /logs/verifier/reward.txt or reward.json" };
}
