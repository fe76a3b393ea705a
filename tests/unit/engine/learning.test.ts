/**
 * The policy learns from a persona's reward: GRPO (A = r, no normalisation) on the committed base
 * model, reward +1 when a reply satisfies Leo's hidden preference (a bullet list) and 0 otherwise.
 * Fixed seeds throughout; the last window's mean reward must beat the first window's.
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
import { getPersona, nextQuestion, satisfiesPreference } from "../../../server/simulation/personas";

const ITERATIONS = 12;
const WINDOW = 4;
const PROMPTS = 4;
const GROUP = 4;

beforeAll(async () => {
  await initBackend();
});

describe("learning from a persona reward", () => {
  it("raises the mean reward of a persona preference within a dozen GRPO steps", async () => {
    const { model } = await loadCheckpoint("models/base");
    const persona = getPersona("leo");
    const adam = new Adam({ lr: 2e-3 });
    const rng = mulberry32(7);
    const meanRewards: number[] = [];
    for (let it = 0; it < ITERATIONS; it++) {
      const prompts = Array.from({ length: PROMPTS }, () => nextQuestion(persona, rng)).flatMap((q) =>
        Array.from({ length: GROUP }, () => renderChat([{ role: "user", content: q.text }], { addGenerationPrompt: true })),
      );
      const gens = await generateBatch(model, prompts, { maxTokens: 96, temperature: 1, seed: 1000 + it });
      const rewards = gens.map((g): number => (satisfiesPreference(persona, g.text) ? 1 : 0));
      meanRewards.push(rewards.reduce((a, b) => a + b, 0) / rewards.length);
      await trainStep(
        model, adam,
        gens.map((g, i) => ({ promptIds: g.promptIds, responseIds: g.tokenIds, oldLogprobs: g.logprobs, reward: rewards[i], kind: "RL" as const })),
        { microBatchSize: 8 },
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const first = mean(meanRewards.slice(0, WINDOW));
    const last = mean(meanRewards.slice(-WINDOW));
    expect(last, `mean reward per iteration: ${meanRewards.map((r) => r.toFixed(2)).join(" ")}`).toBeGreaterThan(first);
    disposeModel(model);
  });
});
