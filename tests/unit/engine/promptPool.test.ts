// The base checkpoint's prompt pool (prompts.json), the style demonstrations' prompts (perUser.stylePrompts): the
// committed file is what scripts/base-prompts.ts writes, it asks no held-out question (the ones the evaluation, the
// gate's persona grade and the benchmarks grade a version on), and a checkpoint without one has none.
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { basePromptPool } from "../../../scripts/base-prompts";
import { loadPromptPool } from "../../../server/engine/checkpoint";
import { HELD_OUT_QUESTION_IDS, QUESTIONS } from "../../../server/simulation/personas";

describe("the base checkpoint's prompt pool", () => {
  it("is what scripts/base-prompts.ts writes: the pretraining questions without the held-out split", async () => {
    const committed = JSON.parse(await fs.readFile("models/base/prompts.json", "utf8"));
    expect(committed).toEqual(basePromptPool());
    const pool = await loadPromptPool("models/base");
    const heldOut = QUESTIONS.filter((q) => HELD_OUT_QUESTION_IDS.has(q.id)).map((q) => q.text.toLowerCase());
    expect(heldOut.length).toBeGreaterThan(0);
    for (const p of pool) expect(heldOut).not.toContain(p.toLowerCase());
    expect(pool.length).toBe(QUESTIONS.length - heldOut.length);
  });

  it("is empty for a checkpoint without one, and refused when malformed", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pool-"));
    try {
      expect(await loadPromptPool(dir)).toEqual([]);
      await fs.writeFile(path.join(dir, "prompts.json"), JSON.stringify({ source: "x", prompts: [""] }));
      await expect(loadPromptPool(dir)).rejects.toThrow();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
