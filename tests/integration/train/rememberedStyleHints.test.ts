// Remembered style hints (`hyper.rememberedStyleHints`) in the embedded training loop: a step whose batch holds no
// correction still gets the style demonstrations, taught with the style hint the run heard last from that user; with
// the option off such a step gets none (the demonstrations then come and go with the corrections).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { db } from "../../../server/platform/db/client";
import { Trainer } from "../../../server/training/loop";
import { StepRecordSchema } from "../../../server/training/schemas";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, makeRun } from "../../helpers/fixtures";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";

isolateRedis("train-remembered-style");
let dataDir = "";
let trainer: Trainer;
beforeAll(async () => {
  dataDir = await isolateDataDir("remembered-style");
  trainer = new Trainer({ dataDir, fillEveryMs: 0 });
});
afterAll(async () => {
  trainer.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const BULLETS = "Follow the user's feedback: use a bullet list.";

/** Two steps of two of Leo's turns: corrected with a style hint, then approved. The second step's demonstrations. */
async function quietStepDemos(rememberedStyleHints: boolean): Promise<number> {
  const e = await makeExperiment({
    method: "combine",
    policy: { kind: "embedded", checkpoint: "models/base" },
    // Every teacher reply kept, so the count is the prompts asked: 2 style prompts × 2 replies.
    hyper: { batchSize: 2, stylePrompts: 2, hindsightMinLogprob: -10, rememberedStyleHints },
    serving: { maxTokens: 16 },
  });
  const runId = (await makeRun(e.id)).id;
  const turns = (reward: number, hint?: string) =>
    Promise.all(
      ["How do I tune a ukulele?", "How do I fold a paper crane?"].map((prompt) =>
        makeEndUserTurn({ experimentId: e.id, endUserId: "leo", prompt, reply: "Tune it.", reward, hint }),
      ),
    );
  await turns(-1, BULLETS);
  expect((await trainer.tick(runId)).step).toMatchObject({ step: 1 });
  await turns(1);
  expect((await trainer.tick(runId)).step).toMatchObject({ step: 2 });
  const steps = await db().trainingStep.findMany({ where: { runId }, orderBy: { step: "asc" } });
  const demos = steps.map((s) => StepRecordSchema.parse(s.metrics).values["samples/hindsight_demos"]);
  // The corrected step: its own turns' demonstrations (2 each) and the style prompts' (2 × 2).
  expect(demos[0]).toBe(8);
  return demos[1]!;
}

describe("remembered style hints in the shared trainer", () => {
  it("teaches the style prompts with the run's remembered hint when a batch has no correction", async () => {
    expect(await quietStepDemos(true)).toBe(4);
  });

  it("without it an uncorrected batch has no demonstrations", async () => {
    expect(await quietStepDemos(false)).toBe(0);
  });
});
