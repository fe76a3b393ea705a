// The train/held-out split of a task set version: a task is held out when a hash of (seed, key) falls under
// the held-out fraction. It depends on nothing but the seed and the task's own key, so it is fixed for the
// version, reproducible anywhere, and adding a task never moves another across the split.
import { createHash } from "node:crypto";

export type Split = "train" | "heldout";

export function splitOf(seed: number, key: string, heldOutFraction: number): Split {
  const h = createHash("sha256").update(`${seed}\0${key}`).digest();
  return h.readUInt32BE(0) / 2 ** 32 < heldOutFraction ? "heldout" : "train";
}
