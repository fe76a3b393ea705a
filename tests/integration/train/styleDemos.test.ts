// Style demonstrations in the shared trainer (`hyper.stylePrompts`), on hand-made judged turns of two end users: the
// batch built for a step also has the hinted teacher answer public prompts of the pool, each with one user's style
// hint (a hint that restates the question is not a style); GRPO and stylePrompts 0 get none.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint, loadPromptPool } from "../../../server/engine/checkpoint";
import { fitChat } from "../../../server/engine/fit";
import { decode } from "../../../server/engine/tokenizer";
import { buildBatch } from "../../../server/training/trainInputs";
import { makeExperiment, makeRun } from "../../helpers/fixtures";
import { makeSession } from "../../helpers/turns";
import { makeCorrectedTurn } from "../../helpers/judgments";

const BULLETS = "Follow the user's feedback: use a bullet list.";
const SHORT = "Follow the user's feedback: two sentences at most.";
const TOPIC = "Answer the question the user asked: How do I fold a paper crane?";

async function corrected(experimentId: string, endUserId: string, question: string, hint: string) {
  const session = await makeSession(experimentId);
  const request = [{ role: "user", content: question }];
  return makeCorrectedTurn({
    experimentId,
    sessionId: session.id,
    index: 0,
    request,
    reply: "Eggs are nice.",
    hint,
    endUserId,
  });
}

describe("style demonstrations in the shared trainer (stylePrompts)", () => {
  beforeAll(() => initBackend());

  const build = async (method: "opd" | "combine" | "grpo", stylePrompts: number) => {
    const e = await makeExperiment({
      method,
      policy: { kind: "embedded", checkpoint: "models/base" },
      // teacher target: each demonstration keeps the hinted prompt it came from, so the test can read its hint
      hyper: { batchSize: 3, hindsightMinLogprob: -10, hindsightTarget: "teacher", stylePrompts },
    });
    const runId = (await makeRun(e.id)).id;
    const rows = [
      await corrected(e.id, "leo", "How do I fold a paper crane?", BULLETS),
      await corrected(e.id, "maya", "How do I fold a paper crane?", TOPIC),
      await corrected(e.id, "maya", "How do I tune a ukulele?", SHORT),
    ].map((turnId, i) => ({ id: `sample-${i}`, turnId }));
    const { model } = await loadCheckpoint("models/base");
    const pool = await loadPromptPool("models/base");
    const built = await buildBatch(rows, {
      runId,
      config: e.config,
      currentVersion: 0,
      model,
      base: model,
      seed: 5,
      promptPool: pool,
      teacher: () => {
        throw new Error("the full estimator scores the teacher in the trainer");
      },
    });
    expect(built.dropped).toEqual([]);
    return { built, pool, maxTokens: e.config.serving.maxTokens, ctx: model.config.ctx };
  };

  it("OPD and Combine: the pool's prompts, un-hinted, taught with each user's style hint", async () => {
    for (const method of ["opd", "combine"] as const) {
      const { built, pool, maxTokens, ctx } = await build(method, 4);
      const poolIds = new Map(
        pool.map((p) => [
          fitChat([{ role: "user", content: p }], ctx - maxTokens, { addGenerationPrompt: true }).join(),
          p,
        ]),
      );
      const style = built.demos.filter((d) => poolIds.has(d.promptIds.join()));
      // 4 prompts shared by the two users (2 each), 2 teacher replies per prompt (hindsightSamples, the default)
      expect(style.length).toBeGreaterThan(0);
      expect(style.length).toBeLessThanOrEqual(8);
      const hints = style.map((d) => decode(d.teacherPromptIds!));
      for (const [i, h] of hints.entries()) {
        expect(h).toContain(poolIds.get(style[i]!.promptIds.join())!);
        expect(h).not.toContain(TOPIC);
      }
      expect(hints.some((h) => h.includes(BULLETS))).toBe(true);
      expect(hints.some((h) => h.includes(SHORT))).toBe(true);
      // each prompt heard one user's hint only
      for (const h of hints) expect(h.includes(BULLETS) && h.includes(SHORT)).toBe(false);
    }
  });

  it("none with stylePrompts 0 (the default) or for GRPO", async () => {
    for (const [method, n] of [
      ["combine", 0],
      ["grpo", 4],
    ] as const) {
      const { built, pool, maxTokens, ctx } = await build(method, n);
      const poolIds = new Set(
        pool.map((p) => fitChat([{ role: "user", content: p }], ctx - maxTokens, { addGenerationPrompt: true }).join()),
      );
      expect(built.demos.filter((d) => poolIds.has(d.promptIds.join()))).toEqual([]);
    }
  });
});
