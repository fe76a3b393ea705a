// More update per batch behind a trust region and an exact anchor: PPO epochs with π_old fixed after epoch 0 (the
// clip binds from epoch 1), the exact full-vocabulary KL to the base (value and gradient sign on a hand-computed
// case), and the per-context baseline (hand-computed advantages).
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { batchAdvantages, policyLoss, type AdvantageInput } from "../../../server/engine/losses";
import { Adam } from "../../../server/engine/optimizer";
import { scoreBatch } from "../../../server/engine/score";
import { trainStep, type TrainMetrics } from "../../../server/engine/train";
import { microModel } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

const P = [257, 72, 105, 260, 258];

describe("PPO epochs", () => {
  it("hold π_old at epoch 0's log-probs, and the clip binds from epoch 1", async () => {
    const model = microModel(3, 4);
    const items = [
      { promptIds: P, responseIds: [65, 66, 67, 260], reward: 1, kind: "RL" as const },
      { promptIds: P, responseIds: [97, 98, 260], reward: 1, kind: "RL" as const },
    ];
    const before = scoreBatch(model, items);
    const samples = items.map((s, i) => ({ ...s, oldLogprobs: before[i] }));
    const seen: { old: number[][]; m: TrainMetrics }[] = [];
    const adam = new Adam({ lr: 0.05 });
    const m = await trainStep(
      model,
      adam,
      samples,
      { epochs: 3, gradClip: 0 },
      { onEpoch: (_e, { oldLogprobs, metrics }) => seen.push({ old: oldLogprobs.map((r) => [...r]), m: metrics }) },
    );
    expect(seen).toHaveLength(3);
    expect(m["train/epochs"]).toBe(3);
    // π_old: recomputed once, before epoch 0, then the same for every epoch
    for (const e of seen) expect(e.old).toEqual(before);
    // epoch 0 trains at ratio 1: nothing clips
    expect(seen[0]!.m["train/pg_clipfrac"]).toBe(0);
    // the step moved the policy past 1 + ε_high on the rewarded tokens: the clip binds, and the ratio shows it
    expect(seen[1]!.m["train/pg_clipfrac"]).toBeGreaterThan(0);
    expect(seen[2]!.m["train/pg_clipfrac"]).toBeGreaterThan(0);
    expect(seen[1]!.m["train/ppo_kl"]).toBeLessThan(0); // agg(old − lp) < 0: the sampled tokens gained
    // a clipped positive-advantage token has no gradient: once every token clips, the pg gradient is 0
    const clippedAll = seen.find((e) => e.m["train/pg_clipfrac"] === 1);
    if (clippedAll) expect(clippedAll.m["train/grad_norm"]).toBe(0);
    adam.dispose();
  });

  it("with one epoch takes a single update, as before", async () => {
    const model = microModel(3, 4);
    const items = [{ promptIds: P, responseIds: [65, 66, 260], reward: 1, kind: "RL" as const }];
    const old = scoreBatch(model, items);
    let epochs = 0;
    const adam = new Adam({ lr: 0.01 });
    await trainStep(model, adam, [{ ...items[0]!, oldLogprobs: old[0]! }], {}, { onEpoch: () => epochs++ });
    expect(epochs).toBe(1);
    adam.dispose();
  });
});

describe("exact KL to the base", () => {
  // One sample, one response position, a vocabulary of two: π = (0.5, 0.5), base = (0.8, 0.2).
  // KL(π ‖ base) = 0.5·ln(0.5/0.8) + 0.5·ln(0.5/0.2) = 0.5·ln(2.5/1.6) = 0.22314…
  const expected = 0.5 * Math.log(0.5 / 0.8) + 0.5 * Math.log(0.5 / 0.2);
  const run = (beta: number) =>
    tf.tidy(() => {
      const logits = tf.tensor3d([[[0, 0]]]);
      const base = tf.log(tf.tensor3d([[[0.8, 0.2]]]));
      let value = 0;
      let metric = 0;
      const grad = tf.grad((lg: tf.Tensor) => {
        const vocab = tf.logSoftmax(lg);
        const logprobs = tf.sum(tf.mul(vocab, tf.tensor3d([[[1, 0]]])), -1); // the sampled token is 0
        const { loss, metrics } = policyLoss(
          {
            logprobs,
            oldLogprobs: tf.zeros([1, 1]),
            advantages: tf.zeros([1, 1]),
            mask: tf.ones([1, 1]),
            vocabLogprobs: vocab,
            baseVocabLogprobs: base,
          },
          { baseKlCoef: beta },
        );
        value = loss.dataSync()[0]!;
        metric = metrics.kl_base.dataSync()[0]!;
        return loss;
      })(logits);
      return { value, metric, grad: Array.from(grad.dataSync()) };
    });

  it("is Σ_v π (log π − log base) per position, weighted by β in the loss", () => {
    const r = run(0.5);
    expect(r.metric).toBeCloseTo(expected, 6);
    expect(r.value).toBeCloseTo(0.5 * expected, 6);
    expect(run(0).value).toBeCloseTo(0, 6); // off: reported, not trained
    expect(run(0).metric).toBeCloseTo(expected, 6);
  });

  it("pulls π toward the base: the gradient raises the logit the base prefers", () => {
    const { grad } = run(1);
    // descent moves logit 0 up (gradient < 0) and logit 1 down (gradient > 0)
    expect(grad[0]).toBeLessThan(0);
    expect(grad[1]).toBeGreaterThan(0);
    // d/dz0 of KL = p0·(log p0/q0 − KL) = 0.5·(ln(0.5/0.8) − KL)
    expect(grad[0]).toBeCloseTo(0.5 * (Math.log(0.5 / 0.8) - expected), 5);
  });

  it("needs the base's distribution when β > 0", () => {
    const z = tf.zeros([1, 1]);
    expect(() => policyLoss({ logprobs: z, oldLogprobs: z, advantages: z, mask: z }, { baseKlCoef: 0.1 })).toThrow(
      /baseKlCoef/,
    );
    z.dispose();
  });
});

describe("per-context baseline", () => {
  // Rewards: first replies +1, −1, −1; after a correction +1, +1, −1 (one token each).
  const samples: AdvantageInput[] = [
    { kind: "RL", reward: 1, context: "first" },
    { kind: "RL", reward: -1, context: "first" },
    { kind: "RL", reward: -1, context: "first" },
    { kind: "RL", reward: 1, context: "afterCorrection" },
    { kind: "RL", reward: 1, context: "afterCorrection" },
    { kind: "RL", reward: -1, context: "afterCorrection" },
  ];
  const base = samples.map(() => [0]);

  it("whitens each context on its own", () => {
    const adv = batchAdvantages(samples, base, { normalizeAdvantages: true, advantageGroups: "context" }).map(
      (r) => r[0]!,
    );
    // first: mean −1/3, sample variance ((4/3)² + 2·(2/3)²)/2 = 4/3 → (r + 1/3)/√(4/3)
    const sd = Math.sqrt(4 / 3);
    const want = [4 / 3 / sd, -2 / 3 / sd, -2 / 3 / sd, 2 / 3 / sd, 2 / 3 / sd, -4 / 3 / sd];
    adv.forEach((a, i) => expect(a).toBeCloseTo(want[i]!, 6));
    // the first reply that met the preference unprompted gets the largest advantage, not the instructed one
    expect(adv[0]).toBeGreaterThan(adv[3]!);
  });

  it("differs from one batch-wide whitening, which ranks the two approved replies alike", () => {
    const adv = batchAdvantages(samples, base, { normalizeAdvantages: true }).map((r) => r[0]!);
    // batch: mean 0, sample variance 6/5 → r/√1.2
    adv.forEach((a, i) => expect(a).toBeCloseTo(samples[i]!.reward / Math.sqrt(1.2), 6));
  });

  it("leaves demonstrations out of every group", () => {
    const withDemo: AdvantageInput[] = [...samples, { kind: "DEMO", reward: 0, context: "first" }];
    const adv = batchAdvantages(withDemo, [...base, [0, 0]], { normalizeAdvantages: true, advantageGroups: "context" });
    expect(adv[6]).toEqual([0, 0]);
    expect(adv[0]![0]).toBeCloseTo(4 / 3 / Math.sqrt(4 / 3), 6);
  });
});
