/**
 * The policy learns a persona's hidden preference, with a control. On-policy distillation with the
 * full-vocabulary estimator (losses.ts distillationKl): the student samples replies to Leo's questions unprompted,
 * and every step pulls its next-token distributions toward the base prompted with the hint the judge derives from
 * Leo's correction. The learning run's last window of reward (+1 for a bullet list that answers the question asked,
 * −1 otherwise: persona-v2's rule) must beat its first by 0.3; the same run at lr 0 (same seeds, same samples drawn
 * from an unchanged policy) must not.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { generateBatch } from "../../../server/engine/generate";
import { disposeModel } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { mulberry32 } from "../../../server/engine/rng";
import { trainStep } from "../../../server/engine/train";
import { renderChat } from "../../../server/engine/tokenizer";
import { deriveHint } from "../../../server/judge/core/heuristic";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import { checkReply } from "../../../server/simulation/grader";
import { getPersona, nextQuestion } from "../../../server/simulation/personas";

const ITERATIONS = 8;
const WINDOW = 3;
const SAMPLES = 12;
const MARGIN = 0.3;

beforeAll(async () => {
  await initBackend();
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Mean judged reward per iteration of a distillation run at learning rate `lr`. */
async function run(lr: number): Promise<number[]> {
  const [{ model }, { model: teacher }] = await Promise.all([
    loadCheckpoint("models/base"),
    loadCheckpoint("models/base"),
  ]);
  const persona = getPersona("leo");
  const hint = deriveHint(persona.correction)!;
  const adam = new Adam({ lr: 1e-3 });
  const rng = mulberry32(7);
  const rewards: number[] = [];
  for (let it = 0; it < ITERATIONS; it++) {
    const questions = Array.from({ length: SAMPLES }, () => nextQuestion(persona, rng));
    const prompts = questions.map((q) =>
      renderChat([{ role: "user", content: q.text }], { addGenerationPrompt: true }),
    );
    const gens = await generateBatch(model, prompts, { maxTokens: 64, temperature: 1, seed: 1000 + it });
    // Graded as persona-v2 grades: in Leo's style AND answering the question asked (a bullet list of another
    // question's facts fails), so the claim cannot be met by the form alone.
    rewards.push(mean(gens.map((g, i) => (checkReply(persona, questions[i]!, g.text).ok ? 1 : -1))));
    await trainStep(
      model,
      adam,
      gens.map((g, i) => ({
        promptIds: g.promptIds,
        responseIds: g.tokenIds,
        oldLogprobs: g.logprobs,
        reward: 0,
        kind: "OPD" as const,
        teacherPromptIds: renderChat(
          hintedTeacherMessages([{ role: "user", content: questions[i]!.text }], hint) as never,
          { addGenerationPrompt: true },
        ),
      })),
      { lr, opdEstimator: "full", oldLogprobs: "decoupled", microBatchSize: 12 },
      { teacherModel: teacher },
    );
  }
  disposeModel(model);
  disposeModel(teacher);
  return rewards;
}

describe("learning from a persona's hints", () => {
  it("raises first replies in Leo's style and on topic by a margin, and the lr-0 control on the same seeds does not", async () => {
    const learned = await run(1e-3);
    const control = await run(0);
    const gain = (r: number[]) => mean(r.slice(-WINDOW)) - mean(r.slice(0, WINDOW));
    const show = (r: number[]) => r.map((x) => x.toFixed(2)).join(" ");
    expect(gain(learned), `learning run: ${show(learned)}`).toBeGreaterThanOrEqual(MARGIN);
    expect(gain(control), `control run: ${show(control)}`).toBeLessThan(MARGIN);
  }, 300_000); // a hang guard, not a speed claim: two 8-step runs take ~30 s alone and several times that beside the suite
});
