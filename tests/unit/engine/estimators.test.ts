// The OPD estimators and PPO knobs on tiny cases computed by hand (losses.ts header): top-K reverse KL with
// its tail bin, full-vocabulary reverse KL and the sign of its gradient, the OPD advantage clamp, dual-clip,
// combine's RL-only samples, and decoupled π_old (ratio to the behaviour log-probs, OPD advantage to the
// current policy).
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import {
  batchAdvantages,
  computeAdvantages,
  distillationKl,
  policyLoss,
  ppoClipTerms,
  whitenAdvantages,
} from "../../../server/engine/losses";
import { createModel } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { scoreBatch } from "../../../server/engine/score";
import { trainStep } from "../../../server/engine/train";

beforeAll(async () => {
  await initBackend();
});

const P = [0.4, 0.3, 0.2, 0.1];
const Q = [0.1, 0.2, 0.3, 0.4];
const logT = (xs: number[]) => tf.tensor3d([[xs.map(Math.log)]]); // [1,1,V]
const val = (t: tf.Tensor) => t.dataSync()[0];

describe("distillation KL", () => {
  it("full vocabulary: Σ_v p_v·ln(p_v/q_v)", () => {
    const expected = P.reduce((a, p, v) => a + p * Math.log(p / Q[v]), 0);
    expect(val(distillationKl(logT(P), logT(Q)))).toBeCloseTo(expected, 5);
    expect(val(distillationKl(logT(P), logT(P)))).toBeCloseTo(0, 6);
  });

  it("top-K: the teacher's K most likely tokens plus one tail bin", () => {
    // Teacher's top-2 are tokens 3 (0.4) and 2 (0.3); tails: student 0.4 + 0.3 = 0.7, teacher 0.1 + 0.2 = 0.3.
    const expected = 0.1 * Math.log(0.1 / 0.4) + 0.2 * Math.log(0.2 / 0.3) + 0.7 * Math.log(0.7 / 0.3);
    expect(val(distillationKl(logT(P), logT(Q), 2))).toBeCloseTo(expected, 5);
    // K ≥ V is the full sum.
    expect(val(distillationKl(logT(P), logT(Q), 4))).toBeCloseTo(val(distillationKl(logT(P), logT(Q))), 6);
  });

  it("its gradient lowers the logits the student over-weights and raises the ones it under-weights", () => {
    const logits = tf.tensor3d([[P.map(Math.log)]]);
    const g = tf.grad((z: tf.Tensor) => tf.sum(distillationKl(tf.logSoftmax(z), logT(Q))) as tf.Scalar)(logits);
    const kl = P.reduce((a, p, v) => a + p * Math.log(p / Q[v]), 0);
    // ∂KL/∂z_v = p_v·(ln(p_v/q_v) − KL)
    const expected = P.map((p, v) => p * (Math.log(p / Q[v]) - kl));
    Array.from(g.dataSync()).forEach((x, v) => expect(x).toBeCloseTo(expected[v], 5));
    expect(g.dataSync()[0]).toBeGreaterThan(0); // p 0.4 > q 0.1: gradient descent lowers it
    expect(g.dataSync()[3]).toBeLessThan(0); // p 0.1 < q 0.4: raised
  });
});

describe("advantage whitening (slime --normalize-advantages)", () => {
  it("subtracts the token mean over the batch and divides by the Bessel-corrected standard deviation", () => {
    // One approved reply of 2 tokens, one rejected of 2: mean 0, sample variance 4/3.
    const out = whitenAdvantages([
      [1, 1],
      [-1, -1],
    ]);
    const s = Math.sqrt(4 / 3);
    expect(out.flat().map((x) => +x.toFixed(6))).toEqual([1 / s, 1 / s, -1 / s, -1 / s].map((x) => +x.toFixed(6)));
    // 1 approved token against 3 rejected: mean −0.5, variance (3·0.25 + 2.25)/3 = 1; the rejected move by −0.5 only.
    expect(
      whitenAdvantages([[1], [-1, -1, -1]])
        .flat()
        .map((x) => +x.toFixed(6)),
    ).toEqual([1.5, -0.5, -0.5, -0.5]);
  });
  it("gives zeros to a batch whose advantages are all equal", () => {
    expect(whitenAdvantages([[-1, -1], [-1]]).flat()).toEqual([0, 0, 0]);
  });
  it("whitens what slime whitens: the reward for GRPO and Combine's RL term, teacher − π for OPD", () => {
    const base = [[-1], [-1], [-1], [-1]];
    const teacher = [-0.5];
    const round = (xs: number[][]) => xs.flat().map((x) => +x.toFixed(6));
    // GRPO: rewards [1, −1, −1, −1] → [1.5, −0.5, −0.5, −0.5] (see above).
    const rl = [1, -1, -1, -1].map((reward) => ({ kind: "RL" as const, reward }));
    expect(round(batchAdvantages(rl, base, { normalizeAdvantages: true }))).toEqual([1.5, -0.5, -0.5, -0.5]);
    expect(round(batchAdvantages(rl, base))).toEqual([1, -1, -1, -1]);
    // Combine: the RL term is whitened, the OPD term (w_opd·(−0.5 − (−1)) = 0.5 where there is a teacher) added after.
    const both = [1, -1, -1, -1].map((reward, i) => ({
      kind: "BOTH" as const,
      reward,
      teacherLogprobs: i === 1 ? teacher : undefined,
    }));
    expect(round(batchAdvantages(both, base, { normalizeAdvantages: true }))).toEqual([1.5, 0, -0.5, -0.5]);
    // OPD: teacher − π [0.5, 1.5] → mean 1, variance 0.5 → ±0.5/√0.5.
    const opd = [
      { kind: "OPD" as const, reward: 0, teacherLogprobs: teacher },
      { kind: "OPD" as const, reward: 0, teacherLogprobs: [0.5] },
    ];
    expect(round(batchAdvantages(opd, [[-1], [-1]], { normalizeAdvantages: true }))).toEqual(
      [-Math.SQRT1_2, Math.SQRT1_2].map((x) => +x.toFixed(6)),
    );
  });
  it("leaves group-normalised advantages (episode steps) as they are, and whitens the rest without them", () => {
    const round = (xs: number[][]) => xs.flat().map((x) => +x.toFixed(6));
    // Two episode steps whose groups all succeeded (advantage 0) and one that beat its group (+1), beside the
    // conversation batch [1, −1, −1, −1]: whitening them in would turn the zeros into −0.5-ish penalties.
    const steps = [0, 0, 1].map((reward) => ({ kind: "RL" as const, reward, groupNormalized: true }));
    const rl = [1, -1, -1, -1].map((reward) => ({ kind: "RL" as const, reward }));
    const base = Array.from({ length: 7 }, () => [-1]);
    expect(round(batchAdvantages([...steps, ...rl], base, { normalizeAdvantages: true }))).toEqual([
      0, 0, 1, 1.5, -0.5, -0.5, -0.5,
    ]);
  });
});

describe("advantages: clamp and combine's RL-only samples", () => {
  const base = [-1, -1, -1];
  const teacher = [-0.5, -5, 3];
  it("clamps the OPD term to ±advClamp (0 = unclamped)", () => {
    expect(computeAdvantages({ kind: "OPD", reward: 0, teacherLogprobs: teacher }, base)).toEqual([0.5, -4, 4]);
    expect(computeAdvantages({ kind: "OPD", reward: 0, teacherLogprobs: teacher }, base, { advClamp: 2 })).toEqual([
      0.5, -2, 2,
    ]);
    expect(
      computeAdvantages({ kind: "BOTH", reward: 1, teacherLogprobs: teacher }, base, {
        advClamp: 2,
        wOpd: 0.5,
        wRl: 1,
      }),
    ).toEqual([1.25, 0, 2]);
  });
  it("a BOTH sample without a teacher (combine's RL-only branch) has exactly w_rl·r", () => {
    expect(computeAdvantages({ kind: "BOTH", reward: -1 }, base, { wRl: 0.5 })).toEqual([-0.5, -0.5, -0.5]);
  });
  it("the topk/full estimators leave the OPD term out of the advantage (it is the distillation loss)", () => {
    expect(
      computeAdvantages({ kind: "BOTH", reward: 1, teacherLogprobs: teacher }, base, { opdEstimator: "topk", wRl: 2 }),
    ).toEqual([2, 2, 2]);
    expect(computeAdvantages({ kind: "OPD", reward: 1 }, base, { opdEstimator: "full" })).toEqual([0, 0, 0]);
  });
});

describe("PPO dual-clip", () => {
  // One token with lp − old = 2 (ratio e² ≈ 7.39).
  const lp = () => tf.tensor2d([[0]]);
  const old = () => tf.tensor2d([[-2]]);
  it("caps a negative advantage's loss at −A·c", () => {
    const plain = ppoClipTerms(lp(), old(), tf.tensor2d([[-1]]), 0.2, 0.28);
    expect(val(plain.pg)).toBeCloseTo(Math.exp(2), 4); // max(e²·1, 1.28·1)
    const dual = ppoClipTerms(lp(), old(), tf.tensor2d([[-1]]), 0.2, 0.28, 3);
    expect(val(dual.pg)).toBeCloseTo(3, 5);
    expect(val(dual.clipped)).toBe(1);
  });
  it("leaves positive advantages alone", () => {
    const dual = ppoClipTerms(lp(), old(), tf.tensor2d([[1]]), 0.2, 0.28, 3);
    expect(val(dual.pg)).toBeCloseTo(-1.28, 5); // max(−e², −1.28)
  });
  it("policyLoss rejects a dual-clip constant of 1 or below (other than 0 = off)", () => {
    const inp = { logprobs: lp(), oldLogprobs: old(), advantages: tf.tensor2d([[-1]]), mask: tf.tensor2d([[1]]) };
    expect(() => policyLoss(inp, { dualClip: 0.5 })).toThrow(/dual-clip/);
    expect(val(policyLoss(inp, { dualClip: 3 }).metrics.pg_loss)).toBeCloseTo(3, 5);
  });
});

describe("decoupled π_old", () => {
  it("takes the ratio against the behaviour log-probs and the OPD advantage against the current policy", async () => {
    const config = { vocabSize: 262, ctx: 32, nLayer: 1, nEmbd: 16, nHead: 2 };
    const sample = { promptIds: [1, 2, 3], responseIds: [4, 5, 6] };
    const run = async (mode: "decoupled" | "rollout") => {
      const model = createModel(config, 3);
      const current = scoreBatch(model, [sample])[0];
      // Behaviour 0.3 nats below the current policy on every token; the teacher agrees with the current policy.
      const behaviour = current.map((x) => x - 0.3);
      const m = await trainStep(
        model,
        new Adam({ lr: 1e-9 }),
        [{ ...sample, oldLogprobs: behaviour, teacherLogprobs: current, reward: 0, kind: "OPD" }],
        {
          oldLogprobs: mode,
          gradClip: 0,
        },
      );
      return m;
    };
    const decoupled = await run("decoupled");
    // A = teacher − current = 0 on every token: no policy-gradient loss, though the ratio is e^0.3.
    expect(decoupled["train/pg_loss"]).toBeCloseTo(0, 6);
    expect(decoupled["train/ppo_kl"]).toBeCloseTo(-0.3, 4); // agg(old − lp): the ratio is to the behaviour
    expect(decoupled["train/train_rollout_logprob_abs_diff"]).toBeCloseTo(0.3, 4);
    // Against the behaviour log-probs instead, A = 0.3 and the ratio e^0.3 ≈ 1.35 is clipped at 1.28.
    const rollout = await run("rollout");
    expect(rollout["train/pg_loss"]).toBeCloseTo(-0.3 * 1.28, 4);
  });
});
