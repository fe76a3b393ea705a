// Hindsight for per-user adapters, on tiny hand-built cases: the demonstration term of the adapter step (its loss
// and gradient worked out from the reducer by hand, the adapter alone moving, the base frozen), and the
// demonstrations one user's step trains on (the hinted base's replies for that user's hinted turns, kept by the
// teacher's own confidence), and the optional anchor to the base (the exact KL over the vocabulary).
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
  relevantDemos,
  teacherHint,
  userAdapterStep,
  withUserHints,
  type HintedAdapterSample,
} from "../../../server/personalization/step";
import { rememberStyleHints, restatesQuestion, styleHints, styleTurns } from "../../../server/training/styleDemos";
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
  // The micro base babbles (mean log-prob about −5): −10 keeps its replies, the default −0.15 keeps none. The anchor
  // to the base is off: its own tests are below.
  const pu = (hindsightMinLogprob: number) =>
    PerUserSchema.parse({
      lr: 0.3,
      gradClip: 1,
      hindsightSamples: 2,
      hindsightWeight: 1,
      hindsightMinLogprob,
      baseKlCoef: 0,
    });

  it("trains the hinted base's replies to the hinted turn as demonstrations for the un-hinted prompt", async () => {
    const start = adapter(6);
    const frozen = snapshot(base);
    const got = await userAdapterStep(base, start, samples, pu(-10), { maxTokens: 24, seed: 3 });
    // what the teacher writes: the frozen base (no adapter) on the question with the hint appended, seed 3, T = 1
    const gens = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    const want = adapterStep(base, start, samples, {
      lr: 0.3,
      advantages: "positive",
      // the default target: the teacher's distribution on the hinted prompt each demonstration was sampled from
      demos: gens.map((g) => ({ promptIds: prompt, responseIds: g.tokenIds, hintedPromptIds: hinted })),
      demoWeight: 1,
      demoTarget: "teacher",
      // the default teacher temperature
      demoTemperature: 0.7,
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

  it("keeps, with hindsightMinGain, only the replies the hint made likelier than the un-hinted prompt does", async () => {
    const start = adapter(6);
    const gens = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    // each reply's gain: Σ log π(reply | hinted prompt) − Σ log π_base(reply | the un-hinted prompt), by hand
    const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
    const unhinted = scoreBatch(
      base,
      gens.map((g) => ({ promptIds: prompt, responseIds: g.tokenIds })),
    );
    const gains = gens.map((g, i) => sum(g.logprobs) - sum(unhinted[i]!));
    expect(gains[0]).not.toBe(gains[1]);
    const withGain = (hindsightMinGain: number) =>
      PerUserSchema.parse({
        lr: 0.3,
        gradClip: 1,
        hindsightSamples: 2,
        hindsightWeight: 1,
        hindsightMinLogprob: -10,
        hindsightMinGain,
      });
    const step = (minGain: number) =>
      userAdapterStep(base, start, samples, withGain(minGain), { maxTokens: 24, seed: 3 });
    const below = Math.min(...gains) - 1e-3;
    const between = (gains[0]! + gains[1]!) / 2;
    const results = [await step(below), await step(between), await step(Math.max(...gains) + 1e-3)];
    expect(results.map((r) => r.demos)).toEqual([2, 1, 0]);
    // the one kept is the reply with the larger gain
    const kept = results[1]!.demoSamples.map((d) => d.responseIds);
    expect(kept).toEqual([gens[gains[0]! > gains[1]! ? 0 : 1]!.tokenIds]);
    for (const a of [start, ...results.map((r) => r.adapter)]) disposeAdapter(a);
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
    // a reply after a correction, rejected for missing the question asked two messages before: not a style hint
    const afterCorrection = [
      Q,
      { role: "assistant", content: "Eggs are nice." },
      { role: "user", content: "no — use a bullet list" },
    ];
    expect(restatesQuestion(restated, afterCorrection)).toBe(true);
    expect(restatesQuestion(style, afterCorrection)).toBe(false);
    expect(styleHints([{ messages: afterCorrection, hint: restated, endUserId: "leo" }])).toEqual(new Map());
  });

  it("gives each sample the latest earlier hint that does not restate its question, and the teacher hears it", () => {
    const got = withUserHints([sample(restated), sample(style), sample(null), sample(restated)]);
    expect(got.map((s) => s.userHint)).toEqual([null, null, style, style]);
    expect(got.map((s) => teacherHint(s, true))).toEqual([restated, style, null, style]);
    expect(got.map((s) => teacherHint(s, false))).toEqual([restated, style, null, restated]);
  });

  it("remembers hints per user in samples of several users (the shared adapter for new users)", () => {
    const of = (endUserId: string, hint: string | null) => ({ ...sample(hint), endUserId });
    const got = withUserHints([of("leo", style), of("maya", null), of("maya", restated), of("leo", null)]);
    expect(got.map((s) => s.userHint)).toEqual([null, null, null, style]);
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
      demos: gens.map((g) => ({ promptIds: prompt, responseIds: g.tokenIds, hintedPromptIds: hinted })),
      demoWeight: settings.hindsightWeight,
      gradClip: settings.gradClip,
      baseKl: settings.baseKlCoef,
      demoTarget: settings.hindsightTarget,
      demoTemperature: settings.hindsightTemperature,
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

describe("the adapter step's anchor to the base (baseKlCoef)", () => {
  const rejected = { promptIds: prompt, responseIds: [69, 70, 260], reward: -1 };
  const demo = { promptIds: prompt, responseIds: [45, 32, 66, 260] };
  /** Each row's mean_t KL(π ‖ base) over the vocabulary at its response positions, by hand from the two models. */
  function rowKls(a: LoraAdapter): number[] {
    const batch = packBatch([rejected, demo], micro.ctx);
    return tf.tidy(() => {
      const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
      const merged = adaptedParams(base.params, a);
      const p = tokenLogprobs(forward(micro, merged, ids), batch, false, true).vocab!;
      const q = tokenLogprobs(forward(micro, base.params, ids), batch, false, true).vocab!;
      const kl = tf.sum(tf.mul(tf.exp(p), tf.sub(p, q)), -1).arraySync() as number[][];
      return batch.spans.map(
        ({ start, length }, i) => kl[i].slice(start, start + length).reduce((x, y) => x + y, 0) / length,
      );
    });
  }
  /** (1/N) Σ_rows mean_t KL(π ‖ base) */
  const klByHand = (a: LoraAdapter) => rowKls(a).reduce((x, y) => x + y, 0) / 2;

  it("adds β·(1/N)·Σ mean_t KL(π ‖ base), whose step moves the adapter toward the base", () => {
    const start = adapter(10);
    const beta = 0.7;
    const kl0 = klByHand(start);
    expect(kl0).toBeGreaterThan(1e-4);
    // A rejected reply (A = 0) and no demonstration: only the anchor trains, and its loss is β times the KL.
    // The same rejected batch and step settings, with and without the anchor.
    const stepWith = (kl: { baseKl?: number }) =>
      adapterStep(
        base,
        start,
        [rejected, demo].map((x) => ({ ...x, reward: -1 })),
        { lr: 0.3, gradClip: 0, advantages: "positive", ...kl },
      );
    const step = stepWith({ baseKl: beta });
    expect(step.loss).toBeCloseTo(beta * kl0, 5);
    expect(klByHand(step.adapter)).toBeLessThan(kl0);
    // Off (β 0, the default) the same batch leaves the adapter where it was.
    const off = stepWith({});
    expect(maxAbsDiff(flat(off.adapter), flat(start))).toBe(0);
    for (const a of [start, step.adapter, off.adapter]) disposeAdapter(a);
  });

  it("acts on the user's own replies only, not on the demonstrations (baseKlScope), unless told to", () => {
    const start = adapter(13);
    const [onSample, onDemo] = rowKls(start);
    expect(onDemo).toBeGreaterThan(1e-4);
    // The rejected reply (A = 0) and one demonstration whose own term is off (weight 0): only the anchor is in the loss.
    const stepOn = (scope?: "samples" | "all") =>
      adapterStep(base, start, [rejected], {
        lr: 0.3,
        gradClip: 0,
        advantages: "positive",
        demos: [demo],
        demoWeight: 0,
        baseKl: 0.7,
        ...(scope ? { baseKlScope: scope } : {}),
      });
    const samplesOnly = stepOn();
    const all = stepOn("all");
    // Both reduced over the N = 2 rows: the demonstration's KL is counted with "all" only.
    expect(samplesOnly.loss).toBeCloseTo((0.7 * onSample) / 2, 5);
    expect(all.loss).toBeCloseTo((0.7 * (onSample + onDemo)) / 2, 5);
    expect(maxAbsDiff(flat(samplesOnly.adapter), flat(all.adapter))).toBeGreaterThan(0);
    for (const a of [start, samplesOnly.adapter, all.adapter]) disposeAdapter(a);
  });

  it("is zero, with no gradient, for an adapter that has not moved (B = 0)", () => {
    const start = createAdapter(micro, { rank: 2, alpha: 4, targets: defaultTargets(micro) }, 11);
    const step = adapterStep(base, start, [rejected], { lr: 0.3, gradClip: 0, advantages: "positive", baseKl: 1 });
    expect(step.loss).toBeCloseTo(0, 6);
    expect(maxAbsDiff(flat(step.adapter), flat(start))).toBeLessThan(1e-6);
    for (const a of [start, step.adapter]) disposeAdapter(a);
  });

  it("is the per-user setting's β in a user's step", async () => {
    const start = adapter(12);
    const samples: HintedAdapterSample[] = [{ ...rejected, messages: [Q], hint: null }];
    const settings = PerUserSchema.parse({ lr: 0.3, baseKlCoef: 0.5 });
    const got = await userAdapterStep(base, start, samples, settings, { maxTokens: 24, seed: 5 });
    const want = adapterStep(base, start, samples, {
      lr: 0.3,
      advantages: settings.advantages,
      gradClip: settings.gradClip,
      baseKl: 0.5,
    });
    expect(maxAbsDiff(flat(got.adapter), flat(want.adapter))).toBe(0);
    expect(maxAbsDiff(flat(got.adapter), flat(start))).toBeGreaterThan(0);
    for (const a of [start, got.adapter, want.adapter]) disposeAdapter(a);
  });
});

describe("a step of more rows than one micro-batch", () => {
  const reply = (i: number) => [40 + i, 50 + (i % 3), 60 + (i % 5), 260];
  const samples = Array.from({ length: 10 }, (_, i) => ({
    promptIds: prompt,
    responseIds: reply(i),
    reward: i % 3 === 0 ? -1 : 1,
  }));

  it("is the whole batch's mean: its loss is −(1/N) Σ A_i · mean_t log π(y_i), by hand over all ten rows", () => {
    const start = adapter(21);
    const step = adapterStep(base, start, samples, { lr: 0.3, gradClip: 0, advantages: "raw" });
    const lps = scoreBatch({ config: micro, params: adaptedParams(base.params, start) }, samples);
    const byHand =
      -lps.reduce((s, lp, i) => s + (samples[i].reward * lp.reduce((a, b) => a + b, 0)) / lp.length, 0) / 10;
    expect(step.loss).toBeCloseTo(byHand, 5);
    for (const a of [start, step.adapter]) disposeAdapter(a);
  });

  it("does not depend on which rows share a micro-batch (teacher target, focus and the base's anchor on)", () => {
    const start = adapter(22);
    const hinted = renderChat([{ role: "user", content: `${Q.content} Answer in one short sentence.` }], {
      addGenerationPrompt: true,
    });
    const demos = Array.from({ length: 5 }, (_, i) => ({
      promptIds: prompt,
      responseIds: reply(i + 20),
      hintedPromptIds: hinted,
    }));
    const opts = {
      lr: 0.3,
      gradClip: 0,
      advantages: "raw" as const,
      demoWeight: 2,
      baseKl: 0.3,
      demoTarget: "teacher" as const,
      demoFocus: "hint" as const,
    };
    // 15 rows: micro-batches of 8 and 7; reversed, other rows share them.
    const a = adapterStep(base, start, samples, { ...opts, demos });
    const b = adapterStep(base, start, [...samples].reverse(), { ...opts, demos: [...demos].reverse() });
    expect(a.loss).toBeCloseTo(b.loss, 5);
    expect(maxAbsDiff(flat(a.adapter), flat(b.adapter))).toBeLessThan(1e-5);
    expect(maxAbsDiff(flat(a.adapter), flat(start))).toBeGreaterThan(1e-3);
    for (const x of [start, a.adapter, b.adapter]) disposeAdapter(x);
  });
});

describe("the demonstrations' relevance filter (hindsightRelevance)", () => {
  const other = renderChat([{ role: "user", content: "What is 1/2 + 1/3?" }], { addGenerationPrompt: true });
  const third = renderChat([{ role: "user", content: "How do I start an essay?" }], { addGenerationPrompt: true });
  const mean = (lp: number[]) => lp.reduce((a, b) => a + b, 0) / lp.length;

  it("keeps a demonstration the base finds likelier after its own prompt than after each other prompt", () => {
    const demos = [
      { promptIds: prompt, responseIds: [72, 105, 110, 116, 260] },
      { promptIds: prompt, responseIds: [45, 32, 66, 260] },
      { promptIds: other, responseIds: [69, 70, 71, 260] },
      { promptIds: other, responseIds: [45, 32, 66, 260] },
    ];
    const prompts = [prompt, other, third, prompt];
    // by hand: each demonstration scored after the batch's three distinct prompts
    const want = demos.filter((d) => {
      const [own, ...rest] = [d.promptIds, ...[prompt, other, third].filter((p) => p !== d.promptIds)].map((p) =>
        mean(scoreBatch(base, [{ promptIds: p, responseIds: d.responseIds }])[0]!),
      );
      return rest.every((x) => own > x);
    });
    const got = relevantDemos(base, demos, prompts);
    expect(got).toEqual(want);
    // The micro base has preferences, so the filter is not vacuous either way on these four.
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(demos.length);
  });

  it("keeps every demonstration of a batch with one prompt", () => {
    const demos = [{ promptIds: prompt, responseIds: [45, 32, 66, 260] }];
    expect(relevantDemos(base, demos, [prompt, prompt])).toEqual(demos);
  });
});

describe("the demonstrations trained toward the hinted teacher's distribution (hindsightTarget: teacher)", () => {
  const hinted = renderChat(hintedTeacherMessages([Q], "Reply with a hint only.") as never, {
    addGenerationPrompt: true,
  });
  const rejected = { promptIds: prompt, responseIds: [69, 70, 260], reward: -1 };
  const demo = { promptIds: prompt, responseIds: [72, 105, 110, 116, 260], hintedPromptIds: hinted };
  /** (1/N) mean_t KL(teacher ‖ π) over the vocabulary at the demonstration's positions, N = 2 rows, by hand */
  function forwardKlByHand(a: LoraAdapter): number {
    return tf.tidy(() => {
      const mine = packBatch([demo], micro.ctx);
      const theirs = packBatch([{ promptIds: hinted, responseIds: demo.responseIds }], micro.ctx);
      const merged = adaptedParams(base.params, a);
      const vocab = (m: PolicyModel["params"], b: typeof mine) =>
        tokenLogprobs(forward(micro, m, tf.tensor2d(b.ids, [1, b.T], "int32")), b, false, true).vocab!.arraySync()[0];
      const p = vocab(merged, mine).slice(mine.spans[0].start, mine.spans[0].start + demo.responseIds.length);
      const q = vocab(base.params, theirs).slice(
        theirs.spans[0].start,
        theirs.spans[0].start + demo.responseIds.length,
      );
      const kl = q.map((qt, t) => qt.reduce((acc, lq, v) => acc + Math.exp(lq) * (lq - p[t][v]), 0));
      return kl.reduce((x, y) => x + y, 0) / kl.length / 2;
    });
  }

  it("is w_demo·(1/N)·mean_t KL(teacher ‖ π), and the step moves π toward the teacher", () => {
    const start = adapter(14);
    const w = 2;
    const kl0 = forwardKlByHand(start);
    expect(kl0).toBeGreaterThan(1e-3);
    // The rejected reply's A is 0 (positive advantages), so the demonstration's term is the whole loss.
    const step = adapterStep(base, start, [rejected], {
      lr: 0.3,
      gradClip: 0,
      advantages: "positive",
      demos: [demo],
      demoWeight: w,
      demoTarget: "teacher",
    });
    expect(step.loss).toBeCloseTo(w * kl0, 4);
    expect(forwardKlByHand(step.adapter)).toBeLessThan(kl0);
    // The sampled target (the default) trains the same demonstration by its tokens' cross-entropy instead.
    const sampled = adapterStep(base, start, [rejected], {
      lr: 0.3,
      gradClip: 0,
      advantages: "positive",
      demos: [demo],
      demoWeight: w,
    });
    expect(Math.abs(sampled.loss - step.loss)).toBeGreaterThan(1e-3);
    // A demonstration without its hinted prompt has no teacher to follow: it is trained by cross-entropy.
    const { hintedPromptIds: _, ...bare } = demo;
    const noTeacher = adapterStep(base, start, [rejected], {
      lr: 0.3,
      gradClip: 0,
      advantages: "positive",
      demos: [bare],
      demoWeight: w,
      demoTarget: "teacher",
    });
    expect(noTeacher.loss).toBeCloseTo(sampled.loss, 6);
    for (const a of [start, step.adapter, sampled.adapter, noTeacher.adapter]) disposeAdapter(a);
  });

  it("is zero, with no gradient, when the teacher's prompt is the demonstration's own and the adapter has not moved", () => {
    const start = createAdapter(micro, { rank: 2, alpha: 4, targets: defaultTargets(micro) }, 15);
    const step = adapterStep(base, start, [rejected], {
      lr: 0.3,
      gradClip: 0,
      advantages: "positive",
      demos: [{ ...demo, hintedPromptIds: prompt }],
      demoTarget: "teacher",
    });
    expect(step.loss).toBeCloseTo(0, 6);
    expect(step.gradNorm).toBeLessThan(1e-6);
    for (const a of [start, step.adapter]) disposeAdapter(a);
  });

  /** Per position of the demonstration: the adapted π, the base on its own prompt, the teacher (base on the hinted one). */
  function positions(a: LoraAdapter, hintedPrompt: number[]) {
    return tf.tidy(() => {
      const mine = packBatch([demo], micro.ctx);
      const theirs = packBatch([{ promptIds: hintedPrompt, responseIds: demo.responseIds }], micro.ctx);
      const vocab = (m: PolicyModel["params"], b: typeof mine) =>
        tokenLogprobs(forward(micro, m, tf.tensor2d(b.ids, [1, b.T], "int32")), b, false, true)
          .vocab!.arraySync()[0]
          .slice(b.spans[0].start, b.spans[0].start + demo.responseIds.length);
      const merged = adaptedParams(base.params, a);
      return { p: vocab(merged, mine), b: vocab(base.params, mine), q: vocab(base.params, theirs) };
    });
  }
  const kl = (x: number[], y: number[]) => x.reduce((acc, lx, v) => acc + Math.exp(lx) * (lx - y[v]), 0);
  /** w_t = (KL_t(teacher ‖ base) + ε) / (mean_s KL_s(teacher ‖ base) + ε), by hand */
  function focusByHand(q: number[][], b: number[][]): number[] {
    const d = q.map((qt, t) => kl(qt, b[t]));
    const mean = d.reduce((x, y) => x + y, 0) / d.length;
    return d.map((x) => (x + 1e-6) / (mean + 1e-6));
  }

  it("focused on the hint (demoFocus: hint): each position's term weighted by where the hint moved the teacher", () => {
    const start = adapter(17);
    const w = 2;
    const { p, b, q } = positions(start, hinted);
    const focus = focusByHand(q, b);
    // The weights average 1 over the demonstration, and they are not all alike (the hint moved some positions more).
    expect(focus.reduce((x, y) => x + y, 0) / focus.length).toBeCloseTo(1, 6);
    expect(Math.max(...focus) - Math.min(...focus)).toBeGreaterThan(0.1);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const opts = { lr: 0.3, gradClip: 0, advantages: "positive" as const, demos: [demo], demoWeight: w };
    // Toward the teacher: L = w · (1/N) · mean_t w_t · KL_t(teacher ‖ π), N = 2 rows.
    const toTeacher = adapterStep(base, start, [rejected], { ...opts, demoTarget: "teacher", demoFocus: "hint" });
    expect(toTeacher.loss).toBeCloseTo((w * mean(q.map((qt, t) => focus[t] * kl(qt, p[t])))) / 2, 4);
    // Its sampled tokens: L = w · (1/N) · mean_t w_t · −log π(y_t).
    const sampled = adapterStep(base, start, [rejected], { ...opts, demoTarget: "sampled", demoFocus: "hint" });
    expect(sampled.loss).toBeCloseTo((w * mean(demo.responseIds.map((y, t) => -focus[t] * p[t][y]))) / 2, 4);
    // Uniform (the default) is the plain mean, a different loss.
    const uniform = adapterStep(base, start, [rejected], { ...opts, demoTarget: "teacher" });
    expect(uniform.loss).toBeCloseTo((w * mean(q.map((qt, t) => kl(qt, p[t])))) / 2, 4);
    expect(Math.abs(uniform.loss - toTeacher.loss)).toBeGreaterThan(1e-4);
    for (const a of [start, toTeacher.adapter, sampled.adapter, uniform.adapter]) disposeAdapter(a);
  });

  it("at a teacher temperature τ (demoTemperature) follows the teacher sharpened, log q / τ renormalised, by hand", () => {
    const start = adapter(19);
    const [w, tau] = [2, 0.5];
    const { p, q } = positions(start, hinted);
    const sharpen = (qt: number[]) => {
      const z = qt.map((x) => x / tau);
      const top = Math.max(...z);
      const logZ = top + Math.log(z.reduce((acc, x) => acc + Math.exp(x - top), 0));
      return z.map((x) => x - logZ);
    };
    const sharp = q.map(sharpen);
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const opts = {
      lr: 0.3,
      gradClip: 0,
      advantages: "positive" as const,
      demos: [demo],
      demoWeight: w,
      demoTarget: "teacher" as const,
    };
    // L = w · (1/N) · mean_t KL(q_τ,t ‖ π_t), N = 2 rows; τ 1 is the teacher as it is, a different loss.
    const step = adapterStep(base, start, [rejected], { ...opts, demoTemperature: tau });
    expect(step.loss).toBeCloseTo((w * mean(sharp.map((st, t) => kl(st, p[t])))) / 2, 4);
    const asIs = adapterStep(base, start, [rejected], { ...opts, demoTemperature: 1 });
    expect(asIs.loss).toBeCloseTo((w * mean(q.map((qt, t) => kl(qt, p[t])))) / 2, 4);
    expect(Math.abs(step.loss - asIs.loss)).toBeGreaterThan(1e-4);
    // Sharper: at every position the teacher's likeliest token gains mass.
    q.forEach((qt, t) => {
      const top = qt.indexOf(Math.max(...qt));
      expect(sharp[t][top]).toBeGreaterThan(qt[top]);
    });
    // The step moves π toward the sharpened teacher.
    const after = positions(step.adapter, hinted).p;
    expect(mean(sharp.map((st, t) => kl(st, after[t])))).toBeLessThan(mean(sharp.map((st, t) => kl(st, p[t]))));
    for (const a of [step.adapter, asIs.adapter]) disposeAdapter(a);
    // A trainer steps for hours: a step leaves no tensor behind but the new adapter's own (it left one, the
    // demonstrations' row mask, before this test).
    const before = tf.memory().numTensors;
    const again = adapterStep(base, start, [rejected], { ...opts, demoTemperature: tau });
    disposeAdapter(again.adapter);
    expect(tf.memory().numTensors).toBe(before);
    disposeAdapter(start);
  });

  it("a hint that moved nothing (the teacher's prompt is the demonstration's own) weighs every position alike", () => {
    const start = adapter(18);
    const own = { ...demo, hintedPromptIds: prompt };
    const opts = {
      lr: 0.3,
      gradClip: 0,
      advantages: "positive" as const,
      demos: [own],
      demoTarget: "sampled" as const,
    };
    const focused = adapterStep(base, start, [rejected], { ...opts, demoFocus: "hint" });
    const uniform = adapterStep(base, start, [rejected], opts);
    expect(focused.loss).toBeCloseTo(uniform.loss, 6);
    expect(maxAbsDiff(flat(focused.adapter), flat(uniform.adapter))).toBeLessThan(1e-6);
    for (const a of [start, focused.adapter, uniform.adapter]) disposeAdapter(a);
  });

  it("is the per-user setting in a user's step: the hinted teacher's demonstrations carry the prompt they came from", async () => {
    const start = adapter(16);
    const samples: HintedAdapterSample[] = [{ ...rejected, messages: [Q], hint: "Reply with a hint only." }];
    const opts = { maxTokens: 24, seed: 5 };
    const loose = { hindsightSamples: 2, hindsightMinLogprob: -10 };
    const teacher = await userAdapterStep(
      base,
      start,
      samples,
      PerUserSchema.parse({ ...loose, hindsightTarget: "teacher" }),
      opts,
    );
    const sampled = await userAdapterStep(
      base,
      start,
      samples,
      PerUserSchema.parse({ ...loose, hindsightTarget: "sampled" }),
      opts,
    );
    expect(teacher.demos).toBe(2);
    expect(teacher.demoSamples.map((d) => d.responseIds)).toEqual(sampled.demoSamples.map((d) => d.responseIds));
    expect(Math.abs(teacher.loss - sampled.loss)).toBeGreaterThan(1e-4);
    for (const a of [start, teacher.adapter, sampled.adapter]) disposeAdapter(a);
  });
});

describe("style demonstrations on the base's public prompts (stylePrompts)", () => {
  const bullets = "Follow the user's feedback: use a bullet list.";
  const short = "Follow the user's feedback: two sentences at most.";
  const restated = "Answer the question the user asked: How do I boil an egg?";
  const pool = ["How do I cook rice?", "Why is my laptop slow?", "How do I grow tomatoes?", "How can I save more?"];
  const of = (endUserId: string, hint: string | null, userHint: string | null = null): HintedAdapterSample => ({
    promptIds: prompt,
    responseIds: [69, 260],
    reward: -1,
    messages: [Q],
    hint,
    userHint,
    endUserId,
  });
  const budget = micro.ctx - 24;

  it("asks each user's latest style hint: a hint that restates the question gives way to the remembered one", () => {
    const hints = styleHints([of("leo", bullets), of("maya", restated, short), of("leo", null), of("sam", restated)]);
    expect([...hints]).toEqual([
      ["leo", bullets],
      ["maya", short],
    ]);
  });

  it("draws distinct pool prompts in a seeded order, shared out among the batch's users, each with their own hint", () => {
    const one = styleTurns([of("leo", bullets)], pool, 3, { seed: 1, budget });
    expect(one).toHaveLength(3);
    expect(one.every((t) => t.hint === bullets)).toBe(true);
    const asked = one.map((t) => (t.messages[0] as { content: string }).content);
    expect(new Set(asked).size).toBe(3);
    for (const [i, t] of one.entries()) {
      expect(pool).toContain(asked[i]);
      expect(t.promptIds).toEqual(renderChat([{ role: "user", content: asked[i]! }], { addGenerationPrompt: true }));
    }
    expect(styleTurns([of("leo", bullets)], pool, 3, { seed: 1, budget })).toEqual(one);
    const orders = [2, 3, 4, 5].map((seed) =>
      styleTurns([of("leo", bullets)], pool, 4, { seed, budget }).map(
        (t) => (t.messages[0] as { content: string }).content,
      ),
    );
    expect(new Set(orders.map((o) => o.join("|"))).size).toBeGreaterThan(1);
    // More than the pool: the whole pool, once each.
    const all = styleTurns([of("leo", bullets)], pool, 10, { seed: 1, budget });
    expect(all.map((t) => (t.messages[0] as { content: string }).content).sort()).toEqual([...pool].sort());
    // Two users: ⌈3 / 2⌉ prompts each, no prompt twice, each user's prompts with that user's hint only.
    const two = styleTurns([of("leo", bullets), of("maya", short)], pool, 3, { seed: 1, budget });
    expect(two.map((t) => t.hint)).toEqual([bullets, bullets, short, short]);
    expect(new Set(two.map((t) => (t.messages[0] as { content: string }).content)).size).toBe(4);
  });

  it("teaches the run's remembered users where the batch has no style hint of theirs, the most recently heard first", () => {
    const ava = "The user wants every reply to end with a sign-off.";
    const memory = new Map<string | null | undefined, string>();
    rememberStyleHints(memory, styleHints([of("maya", short), of("leo", bullets)]));
    rememberStyleHints(memory, styleHints([of("ava", ava)]));
    // Leo is heard again: most recent now, and with a new hint.
    rememberStyleHints(memory, new Map([["leo", short]]));
    expect([...memory]).toEqual([
      ["maya", short],
      ["ava", ava],
      ["leo", short],
    ]);
    // The least recently heard are forgotten past the cap.
    const capped = new Map(memory);
    rememberStyleHints(capped, new Map(), 2);
    expect([...capped.keys()]).toEqual(["ava", "leo"]);

    // An uncorrected batch (no style hint): the remembered users, most recent first, up to `count` of them.
    const quiet = [of("leo", null), of("maya", null)];
    expect(styleTurns(quiet, pool, 4, { seed: 1, budget })).toEqual([]);
    const remembered = styleTurns(quiet, pool, 2, { seed: 1, budget, remembered: memory });
    expect(remembered.map((t) => t.hint)).toEqual([short, ava]);
    // The batch's own hint of a user beats their remembered one, and comes first.
    const mixed = styleTurns([of("maya", bullets)], pool, 3, { seed: 1, budget, remembered: memory });
    expect(mixed.map((t) => t.hint)).toEqual([bullets, short, ava]);
  });

  it("is nothing without a style hint, a pool or a count", () => {
    expect(styleTurns([of("leo", null), of("sam", restated)], pool, 4, { seed: 1, budget })).toEqual([]);
    expect(styleTurns([of("leo", bullets)], [], 4, { seed: 1, budget })).toEqual([]);
    expect(styleTurns([of("leo", bullets)], pool, 0, { seed: 1, budget })).toEqual([]);
  });

  it("trains the hinted base's replies on the drawn prompts as demonstrations for those prompts, after the batch's own", async () => {
    const start = adapter(10);
    const samples = [of("leo", bullets)];
    const settings = PerUserSchema.parse({ lr: 0.3, hindsightMinLogprob: -10, stylePrompts: 1 });
    const got = await userAdapterStep(base, start, samples, settings, { maxTokens: 24, seed: 7, promptPool: pool });
    const [style] = styleTurns(samples, pool, 1, { seed: 7, budget });
    const hintedOwn = renderChat(hintedTeacherMessages([Q], bullets) as never, { addGenerationPrompt: true });
    const hintedStyle = renderChat(hintedTeacherMessages(style!.messages as never, bullets) as never, {
      addGenerationPrompt: true,
    });
    const gens = await generateBatch(base, [hintedOwn, hintedOwn, hintedStyle, hintedStyle], {
      maxTokens: 24,
      temperature: 1,
      seed: 7,
    });
    const want = adapterStep(base, start, samples, {
      lr: 0.3,
      advantages: "positive",
      demos: gens.map((g, i) =>
        i < 2
          ? { promptIds: prompt, responseIds: g.tokenIds, hintedPromptIds: hintedOwn }
          : { promptIds: style!.promptIds, responseIds: g.tokenIds, hintedPromptIds: hintedStyle },
      ),
      demoWeight: settings.hindsightWeight,
      gradClip: settings.gradClip,
      baseKl: settings.baseKlCoef,
      demoTarget: settings.hindsightTarget,
      demoTemperature: settings.hindsightTemperature,
    });
    expect(got.demos).toBe(4);
    expect(maxAbsDiff(flat(got.adapter), flat(want.adapter))).toBe(0);
    // Without a pool (or at 0 prompts) the step is the batch's own hindsight alone.
    const off = await userAdapterStep(base, start, samples, settings, { maxTokens: 24, seed: 7 });
    expect(off.demos).toBe(2);
    for (const a of [start, got.adapter, want.adapter, off.adapter]) disposeAdapter(a);
  });
});
