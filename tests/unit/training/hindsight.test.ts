// Corrections become demonstrations (hindsight), on hand-built cases: where a reply was served (the per-context
// baseline's groups), the prompt before a correction, the demonstrations each method gets, and the cross-entropy
// step a demonstration takes.
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { generateBatch } from "../../../server/engine/generate";
import { Adam } from "../../../server/engine/optimizer";
import { packBatch, scoreBatch, tokenLogprobs } from "../../../server/engine/score";
import { forward, type PolicyModel } from "../../../server/engine/model";
import { trainStep } from "../../../server/engine/train";
import { renderChat } from "../../../server/engine/tokenizer";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import {
  conversationHint,
  hindsightDemos,
  isDemonstration,
  promptBeforeCorrections,
  replyContext,
  type HindsightSource,
} from "../../../server/training/trainInputs";
import { microModel } from "../engine/helpers";

beforeAll(async () => {
  await initBackend();
});

/** `pm`'s log-probs over the vocabulary at each position of `responseIds` after `promptIds` */
function vocabAt(pm: PolicyModel, promptIds: number[], responseIds: number[]): number[][] {
  return tf.tidy(() => {
    const b = packBatch([{ promptIds, responseIds }], pm.config.ctx);
    const v = tokenLogprobs(forward(pm.config, pm.params, tf.tensor2d(b.ids, [1, b.T], "int32")), b, false, true);
    return (v.vocab!.arraySync() as number[][][])[0].slice(b.spans[0].start, b.spans[0].start + b.spans[0].length);
  });
}

const Q = { role: "user", content: "How do I boil an egg?" };
const BAD = { role: "assistant", content: "Eggs are nice." };
const CORRECTION = { role: "user", content: "no — use a bullet list" };
const GOOD = { role: "assistant", content: "- Boil it\n- Cool it" };
const APPROVAL = { role: "user", content: "perfect list, thanks! Next question: How do I cook rice?" };

describe("reply context", () => {
  it("tells a first reply, one after a correction and one after an approval apart", () => {
    expect(replyContext([Q])).toBe("first");
    expect(replyContext([Q, BAD, CORRECTION])).toBe("afterCorrection");
    expect(replyContext([Q, GOOD, APPROVAL])).toBe("afterApproval");
  });

  it("finds the prompt before the corrections (all of them), or none", () => {
    expect(promptBeforeCorrections([Q, BAD, CORRECTION])).toEqual([Q]);
    expect(promptBeforeCorrections([Q, BAD, CORRECTION, BAD, CORRECTION])).toEqual([Q]);
    expect(promptBeforeCorrections([Q, GOOD, APPROVAL, BAD, CORRECTION])).toEqual([Q, GOOD, APPROVAL]);
    expect(promptBeforeCorrections([Q])).toBeNull();
    expect(promptBeforeCorrections([Q, GOOD, APPROVAL])).toBeNull();
  });
});

describe("hindsight demonstrations", () => {
  const micro = { vocabSize: 262, ctx: 192, nLayer: 1, nEmbd: 16, nHead: 2 };
  const model = () => microModel(5, 4, micro);
  // The micro model's replies are babble (mean log-prob about −5): kept here by a threshold of −10.
  const config = (method: "grpo" | "opd" | "combine", hindsightMinLogprob = -10) =>
    ExperimentConfigSchema.parse({
      method,
      hyper: { hindsightSamples: 2, hindsightMinLogprob },
      serving: { maxTokens: 24 },
    });
  const served = renderChat([Q as never], { addGenerationPrompt: true });

  it("GRPO: replays the reply approved after a correction on the prompt before it", async () => {
    const approved: HindsightSource = {
      messages: [Q, BAD, CORRECTION],
      tools: undefined,
      promptIds: [1, 2, 3],
      turn: { tokenIds: [45, 32, 66, 260] },
      hint: null,
      reward: 1,
    };
    const demos = await hindsightDemos(
      [
        approved,
        { ...approved, reward: -1 }, // rejected again: nothing to replay
        { ...approved, messages: [Q] }, // approved first reply: already a positive sample
      ],
      { config: config("grpo"), model: model() },
    );
    expect(demos).toEqual([
      {
        promptIds: served,
        responseIds: [45, 32, 66, 260],
        oldLogprobs: [0, 0, 0, 0],
        reward: 0,
        kind: "DEMO",
        context: "first",
      },
    ]);
  });

  it("OPD and Combine: replies sampled from the hinted base, as targets for the un-hinted served prompt", async () => {
    const hint = "The user wants a bullet list.";
    const source: HindsightSource = {
      messages: [Q],
      tools: undefined,
      promptIds: served,
      turn: { tokenIds: [69, 260] },
      hint,
      reward: -1,
    };
    const base = microModel(9, 4, micro);
    for (const method of ["opd", "combine"] as const) {
      const demos = await hindsightDemos([source, { ...source, hint: null }], {
        config: config(method),
        model: model(),
        base,
        seed: 3,
      });
      // what the hinted teacher writes: the base on the served request with the hint appended, seed 3, T = 1
      const hinted = renderChat(hintedTeacherMessages([Q as never], hint) as never, { addGenerationPrompt: true });
      const want = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
      expect(demos.map((d) => d.responseIds)).toEqual(want.map((g) => g.tokenIds));
      for (const d of demos) expect(d).toMatchObject({ promptIds: served, kind: "DEMO", reward: 0 });
    }
  });

  it("OPD and Combine with hindsightTarget teacher: each demonstration keeps the hinted prompt it was sampled from", async () => {
    const hint = "The user wants a bullet list.";
    const source: HindsightSource = {
      messages: [Q],
      tools: undefined,
      promptIds: served,
      turn: { tokenIds: [69, 260] },
      hint,
      reward: -1,
    };
    const hinted = renderChat(hintedTeacherMessages([Q as never], hint) as never, { addGenerationPrompt: true });
    const teacherConfig = ExperimentConfigSchema.parse({
      method: "combine",
      hyper: { hindsightSamples: 2, hindsightMinLogprob: -10, hindsightTarget: "teacher" },
      serving: { maxTokens: 24 },
    });
    const base = microModel(9, 4, micro);
    const taught = await hindsightDemos([source], { config: teacherConfig, model: model(), base, seed: 3 });
    const plain = await hindsightDemos([source], { config: config("combine"), model: model(), base, seed: 3 });
    expect(taught.map((d) => d.responseIds)).toEqual(plain.map((d) => d.responseIds));
    for (const d of taught) expect(d).toMatchObject({ promptIds: served, teacherPromptIds: hinted, kind: "DEMO" });
    for (const d of plain) expect(d.teacherPromptIds).toBeUndefined();
  });

  it("OPD and Combine: a reply corrected again after a correction is demonstrated on the prompt first asked", async () => {
    const hint = "The user wants a bullet list.";
    const source: HindsightSource = {
      messages: [Q, BAD, CORRECTION],
      tools: undefined,
      promptIds: [1, 2, 3],
      turn: { tokenIds: [69, 260] },
      hint,
      reward: -1,
    };
    const base = microModel(9, 4, micro);
    const demos = await hindsightDemos([source], { config: config("combine"), model: model(), base, seed: 3 });
    // the teacher sees the question with the hint, not the conversation with the bad reply and its correction
    const hinted = renderChat(hintedTeacherMessages([Q as never], hint) as never, { addGenerationPrompt: true });
    const want = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    expect(demos.map((d) => d.responseIds)).toEqual(want.map((g) => g.tokenIds));
    for (const d of demos) expect(d).toMatchObject({ promptIds: served, kind: "DEMO", reward: 0 });
  });

  it("OPD and Combine: the teacher hears the turn's hint first, then the conversation's earlier ones", async () => {
    const topic = "Answer the question the user asked: How do I boil an egg?";
    const style = "The user wants a bullet list.";
    const source: HindsightSource = {
      messages: [Q, BAD, CORRECTION],
      tools: undefined,
      promptIds: [1, 2, 3],
      turn: { tokenIds: [69, 260] },
      hint: topic,
      earlierHints: [style, topic],
      reward: -1,
    };
    const base = microModel(9, 4, micro);
    const demos = await hindsightDemos([source], { config: config("opd"), model: model(), base, seed: 3 });
    // the earlier hint follows the turn's own, once: what the user asked for before still holds
    const hinted = renderChat(hintedTeacherMessages([Q as never], `${topic} ${style}`) as never, {
      addGenerationPrompt: true,
    });
    const want = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    expect(demos.map((d) => d.responseIds)).toEqual(want.map((g) => g.tokenIds));
    expect(conversationHint(topic, undefined)).toBe(topic);
  });

  /** A corrected turn with a bullet-list hint, the hinted micro base, and the two replies it samples for it (seed 3). */
  const bulletTeacher = async () => {
    const hint = "The user wants a bullet list.";
    const source: HindsightSource = {
      messages: [Q],
      tools: undefined,
      promptIds: served,
      turn: { tokenIds: [69, 260] },
      hint,
      reward: -1,
    };
    const base = microModel(9, 4, micro);
    const hinted = renderChat(hintedTeacherMessages([Q as never], hint) as never, { addGenerationPrompt: true });
    const gens = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    return { source, base, hinted, gens };
  };
  /** Combine's hindsight on `base` with every reply kept (−10) and these hyperparameters, seed 3. */
  const keepingAll = (base: PolicyModel, hyper: Record<string, unknown>) => ({
    config: ExperimentConfigSchema.parse({
      method: "combine",
      hyper: { hindsightSamples: 2, hindsightMinLogprob: -10, ...hyper },
      serving: { maxTokens: 24 },
    }),
    model: model(),
    base,
    seed: 3,
  });

  it("samples the demonstrations at hindsightSampleTemperature, keeping the teacher's own log-probs", async () => {
    const { source, base, hinted } = await bulletTeacher();
    const at = (hindsightSampleTemperature: number) =>
      hindsightDemos([source], keepingAll(base, { hindsightSampleTemperature }));
    const cool = await at(0.1);
    // what the hinted teacher writes at T = 0.1 with the same seed; its recorded log-probs are the untempered teacher's
    const want = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 0.1, seed: 3 });
    expect(cool.map((d) => d.responseIds)).toEqual(want.map((g) => g.tokenIds));
    const teacherLogprobs = scoreBatch(
      base,
      want.map((g) => ({ promptIds: hinted, responseIds: g.tokenIds })),
    );
    cool.forEach((d, i) => d.oldLogprobs.forEach((lp, t) => expect(lp).toBeCloseTo(teacherLogprobs[i]![t]!, 4)));
    // the default (1) samples as the teacher is: other replies than at 0.1
    const asIs = await at(1);
    const atOne = await generateBatch(base, [hinted, hinted], { maxTokens: 24, temperature: 1, seed: 3 });
    expect(asIs.map((d) => d.responseIds)).toEqual(atOne.map((g) => g.tokenIds));
    expect(asIs.map((d) => d.responseIds)).not.toEqual(cool.map((d) => d.responseIds));
  });

  it("keeps only the teacher replies whose mean log-prob under the teacher reaches hindsightMinLogprob", async () => {
    const { source, base, gens } = await bulletTeacher();
    const means = gens.map((g) => g.logprobs.reduce((a, b) => a + b, 0) / g.logprobs.length);
    expect(means[0]).not.toBe(means[1]);
    const cut = Math.max(...means); // only the more confident reply reaches it
    const ctx = (min: number) => ({ config: config("combine", min), model: model(), base, seed: 3 });
    const kept = await hindsightDemos([source], ctx(cut));
    expect(kept.map((d) => d.responseIds)).toEqual([gens[means.indexOf(cut)]!.tokenIds]);
    // the default (−0.15) drops babble altogether
    expect(
      await hindsightDemos([source], {
        ...ctx(cut),
        config: ExperimentConfigSchema.parse({
          method: "combine",
          hyper: { hindsightSamples: 2 },
          serving: { maxTokens: 24 },
        }),
      }),
    ).toEqual([]);
  });

  it("with hindsightMinGain keeps only the replies the hint made likelier than the base finds them un-hinted", async () => {
    const { source, base, gens } = await bulletTeacher();
    // By hand: each reply's log-prob with the hint (as sampled) minus the base's on the served prompt, summed.
    const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
    const unhinted = scoreBatch(
      base,
      gens.map((g) => ({ promptIds: served, responseIds: g.tokenIds })),
    );
    const gains = gens.map((g, i) => sum(g.logprobs) - sum(unhinted[i]!));
    expect(gains[0]).not.toBe(gains[1]);
    const withGain = (hindsightMinGain: number | undefined) => keepingAll(base, { hindsightMinGain });
    const between = (gains[0]! + gains[1]!) / 2; // only the reply with the larger gain is above it
    const kept = await hindsightDemos([source], withGain(between));
    expect(kept.map((d) => d.responseIds)).toEqual([gens[gains.indexOf(Math.max(...gains))]!.tokenIds]);
    expect(await hindsightDemos([source], withGain(Math.max(...gains)))).toEqual([]);
    // unset: off, both kept
    expect(await hindsightDemos([source], withGain(undefined))).toHaveLength(2);
  });

  it("takes as demonstrations only confident teacher replies that answer in text, not with a tool call", () => {
    const reply = (text: string, logprobs: number[]) => ({ text, tokenIds: logprobs.map(() => 65), logprobs });
    expect(isDemonstration(reply("- Boil it\n- Cool it", [-0.1, -0.1]), -0.15)).toBe(true);
    // the teacher babbling: mean log-prob −0.3
    expect(isDemonstration(reply("Eggs nse lik", [-0.1, -0.5]), -0.15)).toBe(false);
    // a confident call of the note lookup instead of a reply
    const call = '<tool_call>{"name":"lookup_notes","arguments":{"topic":"cooking"}}</tool_call>';
    expect(isDemonstration(reply(call, [-0.02, -0.03]), -0.15)).toBe(false);
    expect(isDemonstration(reply("", []), -0.15)).toBe(false);
  });

  it("trains a demonstration by cross-entropy alone: the loss is its mean −log π, and its tokens gain", async () => {
    const m = microModel(7, 4);
    const demo = { promptIds: [257, 72, 105, 260, 258], responseIds: [65, 66, 260], reward: 0, kind: "DEMO" as const };
    const before = scoreBatch(m, [demo])[0]!;
    const nll = -before.reduce((a, b) => a + b, 0) / before.length;
    const adam = new Adam({ lr: 0.01 });
    const metrics = await trainStep(m, adam, [{ ...demo, oldLogprobs: [0, 0, 0] }], { wDemo: 0.5 });
    expect(metrics["train/demo_nll"]).toBeCloseTo(nll, 5);
    expect(metrics["train/loss"]).toBeCloseTo(0.5 * nll, 5);
    expect(metrics["train/pg_loss"]).toBe(0);
    expect(metrics["train/demo_samples"]).toBe(1);
    const after = scoreBatch(m, [demo])[0]!;
    after.forEach((lp, t) => expect(lp).toBeGreaterThan(before[t]!));
    adam.dispose();
  });

  it("trains a demonstration with a teacher prompt toward the teacher's distribution: the forward KL, by hand", async () => {
    const m = microModel(7, 4);
    const teacher = microModel(8, 4);
    const demo = { promptIds: [257, 72, 105, 260, 258], responseIds: [65, 66, 260], reward: 0, kind: "DEMO" as const };
    const hinted = [257, 72, 105, 33, 260, 258];
    // Σ_v q_v (log q_v − log π_v) at each demonstration position, averaged (N = 1 row)
    const forwardKl = (pm: PolicyModel) => {
      const p = vocabAt(pm, demo.promptIds, demo.responseIds);
      const q = vocabAt(teacher, hinted, demo.responseIds);
      const kl = q.map((qt, t) => qt.reduce((acc, lq, v) => acc + Math.exp(lq) * (lq - p[t][v]), 0));
      return kl.reduce((a, b) => a + b, 0) / kl.length;
    };
    const kl0 = forwardKl(m);
    const adam = new Adam({ lr: 0.01 });
    const metrics = await trainStep(
      m,
      adam,
      [{ ...demo, oldLogprobs: [0, 0, 0], teacherPromptIds: hinted }],
      { wDemo: 0.5, opdEstimator: "full" },
      { teacherModel: teacher },
    );
    expect(metrics["train/demo_nll"]).toBeCloseTo(kl0, 4);
    expect(metrics["train/loss"]).toBeCloseTo(0.5 * kl0, 4);
    expect(metrics["train/pg_loss"]).toBe(0);
    expect(forwardKl(m)).toBeLessThan(kl0);
    adam.dispose();
  });

  it("focused on the hint (demoFocus): each position's KL weighted by KL(teacher ‖ base) there over its mean, by hand", async () => {
    const m = microModel(7, 4);
    const teacher = microModel(8, 4);
    const base = microModel(9, 4);
    const demo = { promptIds: [257, 72, 105, 260, 258], responseIds: [65, 66, 260], reward: 0, kind: "DEMO" as const };
    const hinted = [257, 72, 105, 33, 260, 258];
    const kl = (x: number[], y: number[]) => x.reduce((acc, lx, v) => acc + Math.exp(lx) * (lx - y[v]), 0);
    const p = vocabAt(m, demo.promptIds, demo.responseIds);
    const q = vocabAt(teacher, hinted, demo.responseIds);
    const b = vocabAt(base, demo.promptIds, demo.responseIds);
    // w_t = (KL_t(teacher ‖ base) + ε) / (mean_s KL_s + ε); the term is mean_t w_t · KL_t(teacher ‖ π)
    const moved = q.map((qt, t) => kl(qt, b[t]));
    const meanMoved = moved.reduce((x, y) => x + y, 0) / moved.length;
    const focus = moved.map((x) => (x + 1e-6) / (meanMoved + 1e-6));
    expect(Math.max(...focus) - Math.min(...focus)).toBeGreaterThan(0.05);
    const expected = q.reduce((acc, qt, t) => acc + focus[t] * kl(qt, p[t]), 0) / q.length;
    const sample = { ...demo, oldLogprobs: [0, 0, 0], teacherPromptIds: hinted };
    const hyper = { wDemo: 0.5, opdEstimator: "full" as const, demoFocus: "hint" as const };
    // It needs the base to compare the teacher with.
    await expect(trainStep(m, new Adam({ lr: 0 }), [sample], hyper, { teacherModel: teacher })).rejects.toThrow(
      /needs the base/,
    );
    const adam = new Adam({ lr: 0.01 });
    const metrics = await trainStep(m, adam, [sample], hyper, { teacherModel: teacher, refModel: base });
    expect(metrics["train/demo_nll"]).toBeCloseTo(expected, 4);
    expect(metrics["train/loss"]).toBeCloseTo(0.5 * expected, 4);
    adam.dispose();
  });
});
