// Hindsight for per-user adapters, on tiny hand-built cases: the demonstration term of the adapter step (its loss
// and gradient worked out from the reducer by hand, the adapter alone moving, the base frozen), and the
// demonstrations one user's step trains on (the hinted base's replies for that user's hinted turns, kept by the
// teacher's own confidence).
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { generateBatch } from "../../../server/engine/generate";
import {
  adaptedParams,
  adapterGrads,
  createAdapter,
  defaultTargets,
  disposeAdapter,
  type LoraAdapter,
} from "../../../server/engine/lora";
import { adapterStep } from "../../../server/engine/loraTrain";
import { forward, type PolicyModel } from "../../../server/engine/model";
import { packBatch, scoreBatch, tokenLogprobs } from "../../../server/engine/score";
import { renderChat } from "../../../server/engine/tokenizer";
import { PerUserSchema } from "../../../server/config/experimentConfig";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import {
  restatesQuestion,
  teacherHint,
  userAdapterStep,
  withUserHints,
  type HintedAdapterSample,
} from "../../../server/personalization/step";
import { maxAbsDiff, microModel, randomArray } from "../engine/helpers";

const micro = { vocabSize: 262, ctx: 192, nLayer: 1, nEmbd: 16, nHead: 2 };
let base: PolicyModel;
beforeAll(async () => {
  await initBackend();
  base = microModel(9, 4, micro);
});

/** An adapter whose B is not zero, so A's gradient is not zero either. */
function adapter(seed: number): LoraAdapter {
  const a = createAdapter(micro, { rank: 2, alpha: 4, targets: defaultTargets(micro) }, seed);
  for (const [n, p] of a.pairs) {
    p.B.dispose();
    a.pairs.set(n, { A: p.A, B: tf.tensor2d(randomArray(p.B.size, seed + 1, 0.3), p.B.shape) });
  }
  return a;
}

const flat = (a: LoraAdapter) => [...a.pairs.values()].flatMap((p) => [...p.A.dataSync(), ...p.B.dataSync()]);
const snapshot = (m: PolicyModel) => Object.fromEntries(Object.entries(m.params).map(([k, t]) => [k, t.dataSync()]));

const Q = { role: "user" as const, content: "How do I boil an egg?" };
const prompt = renderChat([Q], { addGenerationPrompt: true });

describe("the adapter step's demonstration term", () => {
  it("is w_demo·(1/N)·mean_t −log π of the demonstration, and steps A and B (only) down its gradient", () => {
    const start = adapter(4);
    const frozen = snapshot(base);
    // A rejected reply: with positive advantages its A is max(0, −1 − mean(−1)) = 0, so only the demonstration trains.
    const rejected = { promptIds: prompt, responseIds: [69, 260], reward: -1 };
    const demo = { promptIds: prompt, responseIds: [45, 32, 66, 260] };
    const w = 0.5;
    const lr = 0.3;
    // By hand: N = 2 rows (the sample and the demonstration), so L = w · (1/2) · (1/4) Σ_t −log π(y_t), and
    // the new adapter is θ − lr · ∂L/∂θ (clip off).
    const demoBatch = packBatch([demo], micro.ctx);
    const ids = tf.tensor2d(demoBatch.ids, [1, demoBatch.T], "int32");
    const byHand = adapterGrads(base.params, start, (params) => {
      const { logprobs } = tokenLogprobs(forward(micro, params, ids), demoBatch, false);
      return tf.mul(tf.sum(tf.mul(logprobs, tf.tensor2d(demoBatch.mask, [1, demoBatch.T - 1]))), -w / 2 / 4);
    });
    ids.dispose();
    const merged = adaptedParams(base.params, start);
    const lp = scoreBatch({ config: micro, params: merged }, [demo])[0]!;
    for (const n of start.pairs.keys()) merged[n].dispose();
    const nll = -lp.reduce((a, b) => a + b, 0) / lp.length;

    const step = adapterStep(base, start, [rejected], {
      lr,
      gradClip: 0,
      advantages: "positive",
      demos: [demo],
      demoWeight: w,
    });
    expect(step.loss).toBeCloseTo((w / 2) * nll, 5);
    expect(byHand.value).toBeCloseTo(step.loss, 5);
    const want = [...start.pairs.keys()].flatMap((n) => {
      const p = start.pairs.get(n)!;
      const g = byHand.grads.get(n)!;
      return [
        ...tf.tidy(() => tf.sub(p.A, tf.mul(g.A, lr))).dataSync(),
        ...tf.tidy(() => tf.sub(p.B, tf.mul(g.B, lr))).dataSync(),
      ];
    });
    expect(maxAbsDiff(flat(step.adapter), want)).toBeLessThan(1e-5);
    expect(maxAbsDiff(flat(step.adapter), flat(start))).toBeGreaterThan(1e-4); // it did move
    // The base is read, never written: every base tensor is bit-identical after the step.
    for (const [k, v] of Object.entries(snapshot(base))) expect(maxAbsDiff(v, frozen[k])).toBe(0);
    // Without the demonstration the rejected reply alone (A = 0) leaves the adapter where it was.
    const still = adapterStep(base, start, [rejected], { lr, gradClip: 0, advantages: "positive" });
    expect(maxAbsDiff(flat(still.adapter), flat(start))).toBe(0);
    disposeAdapter({ rank: 1, alpha: 1, pairs: byHand.grads });
    for (const a of [start, step.adapter, still.adapter]) disposeAdapter(a);
  });
});

describe("one user's step with hindsight", () => {
  const hint = "The user wants a bullet list.";
  const hinted = renderChat(hintedTeacherMessages([Q], hint) as never, { addGenerationPrompt: true });
  const samples: HintedAdapterSample[] = [
    { promptIds: prompt, responseIds: [69, 260], reward: -1, messages: [Q], hint },
    { promptIds: prompt, responseIds: [45, 260], reward: 1, messages: [Q], hint: null },
  ];
  // The micro base babbles (mean log-prob about −5): −10 keeps its replies, the default −0.15 keeps none.
  const pu = (hindsightMinLogprob: number) =>
    PerUserSchema.parse({ lr: 0.3, gradClip: 1, hindsightSamples: 2, hindsightWeight: 1, hindsightMinLogprob });

  it("trains the hinted base's replies to the hinted turn as demonstrations for the un-hinted prompt", async () => {
    const start = adapter(6);
    const frozen = snapshot(base);
    const got = await userAdapterStep(base, start, samples, pu(-10), { maxTokens: 24, seed: 3 });
    // what the teacher writes: the frozen base (no adapter) on the question with the hint appended, seed 3, T = 1
    const gens = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    const want = adapterStep(base, start, samples, {
      lr: 0.3,
      advantages: "positive",
      demos: gens.map((g) => ({ promptIds: prompt, responseIds: g.tokenIds })),
      demoWeight: 1,
    });
    expect(got.demos).toBe(2);
    expect(maxAbsDiff(flat(got.adapter), flat(want.adapter))).toBe(0);
    for (const [k, v] of Object.entries(snapshot(base))) expect(maxAbsDiff(v, frozen[k])).toBe(0);

    // The teacher's confidence filter: a cut between the two replies' mean log-probs keeps only the surer one.
    const means = gens.map((g) => g.logprobs.reduce((a, b) => a + b, 0) / g.logprobs.length);
    expect(means[0]).not.toBe(means[1]);
    const cut = await userAdapterStep(base, start, samples, pu(Math.max(...means)), { maxTokens: 24, seed: 3 });
    expect(cut.demos).toBe(1);
    // At the default threshold babble is no demonstration: the step is the policy gradient alone.
    const none = await userAdapterStep(base, start, samples, pu(-0.15), { maxTokens: 24, seed: 3 });
    const plain = adapterStep(base, start, samples, { lr: 0.3, advantages: "positive" });
    expect(none.demos).toBe(0);
    expect(maxAbsDiff(flat(none.adapter), flat(plain.adapter))).toBe(0);
    for (const a of [start, got.adapter, want.adapter, cut.adapter, none.adapter, plain.adapter]) disposeAdapter(a);
  });
});

describe("the user's remembered hint (rememberedHint)", () => {
  const style = "Follow the user's feedback: use a bullet list.";
  const restated = "Answer the question the user asked: How do I boil an egg?";
  const sample = (hint: string | null, content = Q.content): HintedAdapterSample => ({
    promptIds: prompt,
    responseIds: [69, 260],
    reward: -1,
    messages: [{ role: "user", content }],
    hint,
  });

  it("tells a hint that restates the request's question from one that does not", () => {
    expect(restatesQuestion(restated, [Q])).toBe(true);
    expect(restatesQuestion(style, [Q])).toBe(false);
    // the question of the last user message, after an approval
    expect(restatesQuestion(restated, [{ role: "user", content: "great. Next question: How do I boil an egg?" }])).toBe(
      true,
    );
    expect(restatesQuestion(restated, [{ role: "user", content: "How do I cook rice?" }])).toBe(false);
  });

  it("gives each sample the latest earlier hint that does not restate its question, and the teacher hears it", () => {
    const got = withUserHints([sample(restated), sample(style), sample(null), sample(restated)]);
    expect(got.map((s) => s.userHint)).toEqual([null, null, style, style]);
    expect(got.map((s) => teacherHint(s, true))).toEqual([restated, style, null, style]);
    expect(got.map((s) => teacherHint(s, false))).toEqual([restated, style, null, restated]);
  });

  it("trains the hinted base's replies to the remembered hint for a turn whose hint restates the question", async () => {
    const start = adapter(8);
    const samples = [{ ...sample(restated), userHint: style }];
    // the defaults otherwise: the step uses their demonstration weight and gradient bound
    const settings = PerUserSchema.parse({ lr: 0.3, hindsightMinLogprob: -10 });
    const got = await userAdapterStep(base, start, samples, settings, { maxTokens: 24, seed: 5 });
    const hinted = renderChat(hintedTeacherMessages([Q], style) as never, { addGenerationPrompt: true });
    const gens = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 5 });
    const want = adapterStep(base, start, samples, {
      lr: 0.3,
      advantages: "positive",
      demos: gens.map((g) => ({ promptIds: prompt, responseIds: g.tokenIds })),
      demoWeight: settings.hindsightWeight,
      gradClip: settings.gradClip,
    });
    expect(maxAbsDiff(flat(got.adapter), flat(want.adapter))).toBe(0);
    // Off: the teacher hears the restated question, and writes other replies.
    const off = await userAdapterStep(
      base,
      start,
      samples,
      { ...settings, rememberedHint: false },
      { maxTokens: 24, seed: 5 },
    );
    expect(maxAbsDiff(flat(off.adapter), flat(want.adapter))).toBeGreaterThan(0);
    for (const a of [start, got.adapter, want.adapter, off.adapter]) disposeAdapter(a);
  });
});
