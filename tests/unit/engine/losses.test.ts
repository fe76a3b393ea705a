import * as tf from "@tensorflow/tfjs-core";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import {
  computeAdvantages,
  customPolicyLoss,
  loadCustomLoss,
  lowVarKl,
  policyLoss,
  sampleMean,
} from "../../../server/engine/losses";

beforeAll(async () => {
  await initBackend();
});

const t2 = (rows: number[][]) => tf.tensor2d(rows);
const val = (t: tf.Tensor) => t.dataSync()[0];
const arr = (t: tf.Tensor) => Array.from(t.dataSync());

describe("advantages", () => {
  const old = [-1, -2, -0.5];
  it("GRPO broadcasts the reward with no normalisation", () => {
    expect(computeAdvantages({ kind: "RL", reward: -1 }, old)).toEqual([-1, -1, -1]);
    expect(computeAdvantages({ kind: "RL", reward: 0.5 }, old, { wRl: 3 })).toEqual([0.5, 0.5, 0.5]);
  });
  it("OPD is teacher − old per token and ignores the reward", () => {
    const a = computeAdvantages({ kind: "OPD", reward: 1, teacherLogprobs: [-0.5, -2.5, -0.5] }, old);
    expect(a).toEqual([0.5, -0.5, 0]);
  });
  it("Combine is w_opd·(teacher − old) + w_rl·r", () => {
    const a = computeAdvantages({ kind: "BOTH", reward: -1, teacherLogprobs: [-0.5, -2.5, -0.5] }, old, {
      wOpd: 0.5,
      wRl: 2,
    });
    expect(a).toEqual([0.5 * 0.5 - 2, 0.5 * -0.5 - 2, -2]);
  });
  it("needs teacher log-probs of the right length for OPD and BOTH", () => {
    expect(() => computeAdvantages({ kind: "OPD", reward: 0 }, old)).toThrow(/teacherLogprobs/);
    expect(() => computeAdvantages({ kind: "BOTH", reward: 0, teacherLogprobs: [1] }, old)).toThrow(/length 3/);
  });
});

describe("PPO clipped surrogate (eps 0.2 / eps_high 0.28)", () => {
  // token: ratio, advantage → expected per-token loss, clipped?
  const ratios = [1.1, 1.5, 0.5, 0.5, 1.5];
  const adv = [2, 1, 1, -1, -1];
  const expected = [-2.2, -1.28, -0.5, 0.8, 1.5]; // max(−A·r, −A·clip(r, 0.8, 1.28))
  const clippedMask = [0, 1, 0, 1, 0]; // high side with A>0 and low side with A<0 clip; the others do not
  const old = [-1, -2, -0.3, -1.7, -0.9];
  const lp = old.map((o, i) => o + Math.log(ratios[i]));

  it("computes pg_loss, pg_clipfrac and ppo_kl by hand", () => {
    tf.tidy(() => {
      const { loss, metrics } = policyLoss({
        logprobs: t2([lp]),
        oldLogprobs: t2([old]),
        advantages: t2([adv]),
        mask: t2([[1, 1, 1, 1, 1]]),
      });
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      expect(val(metrics.pg_loss)).toBeCloseTo(mean(expected), 5);
      expect(val(loss)).toBeCloseTo(mean(expected), 5);
      expect(val(metrics.pg_clipfrac)).toBeCloseTo(0.4, 6);
      expect(val(metrics.ppo_kl)).toBeCloseTo(mean(ratios.map((r) => -Math.log(r))), 5);
      expect(val(metrics.kl_loss)).toBe(0);
    });
  });

  it("has zero gradient on clipped tokens and −A·r/n on the others", () => {
    tf.tidy(() => {
      const g = tf.grad(
        (x: tf.Tensor) =>
          policyLoss({ logprobs: x, oldLogprobs: t2([old]), advantages: t2([adv]), mask: t2([[1, 1, 1, 1, 1]]) }).loss,
      )(t2([lp]));
      const want = ratios.map((r, i) => (clippedMask[i] ? 0 : (-adv[i] * r) / 5));
      arr(g).forEach((v, i) => expect(v).toBeCloseTo(want[i], 5));
    });
  });

  it("uses eps_high only on the upper side", () => {
    tf.tidy(() => {
      const args = { oldLogprobs: t2([[0, 0]]), advantages: t2([[1, -1]]), mask: t2([[1, 1]]) };
      const lp2 = t2([[Math.log(1.25), Math.log(0.75)]]);
      // ratio 1.25 < 1.28 is inside the asymmetric band; 0.75 < 0.8 with A<0 clips to 0.8.
      const asym = policyLoss({ ...args, logprobs: lp2 });
      expect(val(asym.metrics.pg_loss)).toBeCloseTo((-1.25 + 0.8) / 2, 5);
      expect(val(asym.metrics.pg_clipfrac)).toBeCloseTo(0.5, 6);
      // With a symmetric 0.2 clip the 1.25 ratio clips at 1.2 as well.
      const sym = policyLoss({ ...args, logprobs: lp2 }, { epsClipHigh: 0.2 });
      expect(val(sym.metrics.pg_loss)).toBeCloseTo((-1.2 + 0.8) / 2, 5);
      expect(val(sym.metrics.pg_clipfrac)).toBeCloseTo(1, 6);
    });
  });

  it("OPD advantage pushes the log-prob toward the teacher", () => {
    tf.tidy(() => {
      const old1 = [-2, -1];
      const a = computeAdvantages({ kind: "OPD", reward: 0, teacherLogprobs: [-1, -3] }, old1); // [+1, −2]
      const g = tf.grad(
        (x: tf.Tensor) =>
          policyLoss({ logprobs: x, oldLogprobs: t2([old1]), advantages: t2([a]), mask: t2([[1, 1]]) }).loss,
      )(t2([old1]));
      const [g0, g1] = arr(g);
      expect(g0).toBeLessThan(0); // descending the loss raises the token the teacher prefers
      expect(g1).toBeGreaterThan(0); // and lowers the one it dislikes
    });
  });
});

describe("aggregation and regularisers", () => {
  it("takes the token mean per sample, then the mean over samples (weights scale, empty masks count)", () => {
    tf.tidy(() => {
      const x = t2([
        [1, 3, 100],
        [5, 100, 100],
        [7, 7, 7],
      ]);
      const mask = t2([
        [1, 1, 0],
        [1, 0, 0],
        [0, 0, 0],
      ]);
      expect(val(sampleMean(x, mask))).toBeCloseTo((2 + 5 + 0) / 3, 6);
      expect(val(sampleMean(x, mask, tf.tensor1d([1, 0, 1])))).toBeCloseTo(2 / 3, 6);
      expect(val(sampleMean(x, mask, tf.tensor1d([0.5, 2, 1])))).toBeCloseTo((1 + 10) / 3, 6);
    });
  });

  it("k3 KL is exp(ref − lp) − (ref − lp) − 1, clamped at 10", () => {
    tf.tidy(() => {
      const kl = arr(lowVarKl(t2([[-1, -3, -0.7]]), t2([[-1.5, -0.2, -0.7]])));
      expect(kl[0]).toBeCloseTo(Math.exp(-0.5) + 0.5 - 1, 6);
      expect(kl[1]).toBe(10); // exp(2.8) − 3.8 ≈ 12.64 → clamped
      expect(kl[2]).toBe(0);
    });
  });

  it("adds kl_coef·kl and subtracts entropy_coef·entropy", () => {
    tf.tidy(() => {
      const inp = {
        logprobs: t2([[-1, -1]]),
        oldLogprobs: t2([[-1, -1]]),
        advantages: t2([[1, 1]]),
        mask: t2([[1, 1]]),
        refLogprobs: t2([[-1.5, -1]]),
        entropy: t2([[2, 4]]),
      };
      const kl = (Math.exp(-0.5) + 0.5 - 1) / 2;
      const { loss, metrics } = policyLoss(inp, { klCoef: 0.1, entropyCoef: 0.01 });
      expect(val(metrics.pg_loss)).toBeCloseTo(-1, 6);
      expect(val(metrics.kl_loss)).toBeCloseTo(kl, 6);
      expect(val(metrics.entropy)).toBeCloseTo(3, 6);
      expect(val(loss)).toBeCloseTo(-1 + 0.1 * kl - 0.01 * 3, 6);
      expect(() => policyLoss({ ...inp, refLogprobs: undefined }, { klCoef: 0.1 })).toThrow(/reference/);
    });
  });
});

describe("custom loss extension point", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "custom-loss-"));
    await fs.writeFile(path.join(dir, "nofn.mjs"), "export default 42;\n");
    await fs.writeFile(path.join(dir, "named.mjs"), "export const other = () => 1;\n");
    await fs.writeFile(path.join(dir, "notensor.mjs"), "export default () => 1;\n");
    await fs.writeFile(path.join(dir, "vector.mjs"), "export default ({ logprobs }) => logprobs;\n");
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("loads the example, which computes the CISPO objective", async () => {
    const fn = await loadCustomLoss("custom-loss.ts");
    tf.tidy(() => {
      const old = [-1, -1, -2];
      const lp = [-1 + Math.log(1.5), -1 + Math.log(0.5), -2];
      const adv = [1, -1, 2];
      const mask = t2([[1, 1, 0]]);
      const w = [1.28, 0.5, 1];
      const want = -(w[0] * adv[0] * lp[0] + w[1] * adv[1] * lp[1]) / 2;
      const value = val(fn({ logprobs: t2([lp]), oldLogprobs: t2([old]), advantages: t2([adv]), mask }));
      expect(value).toBeCloseTo(want, 5);
      // The weight is data: the gradient is −w·A/n, with no term through the ratio.
      const g = arr(
        tf.grad((x: tf.Tensor) => fn({ logprobs: x, oldLogprobs: t2([old]), advantages: t2([adv]), mask }))(t2([lp])),
      );
      expect(g[0]).toBeCloseTo((-w[0] * adv[0]) / 2, 5);
      expect(g[1]).toBeCloseTo((-w[1] * adv[1]) / 2, 5);
      expect(g[2]).toBe(0);
      // And it plugs into the loss with the usual metrics.
      const { metrics } = customPolicyLoss(fn, {
        logprobs: t2([lp]),
        oldLogprobs: t2([old]),
        advantages: t2([adv]),
        mask,
      });
      expect(val(metrics.pg_loss)).toBeCloseTo(want, 5);
      // Both counted tokens sit on a clipping side of the PPO band (r=1.5 with A>0, r=0.5 with A<0).
      expect(val(metrics.pg_clipfrac)).toBeCloseTo(1, 6);
    });
  });

  it("validates the module: export exists, is a function, returns a scalar tensor", async () => {
    await expect(loadCustomLoss("named.mjs", { dir })).rejects.toThrow(/no export "default"/);
    await expect(loadCustomLoss("named.mjs#missing", { dir })).rejects.toThrow(/no export "missing"/);
    await expect(loadCustomLoss("nofn.mjs", { dir })).rejects.toThrow(/not a function/);
    await expect(loadCustomLoss("notensor.mjs", { dir })).rejects.toThrow(/tensor/);
    await expect(loadCustomLoss("vector.mjs", { dir })).rejects.toThrow(/scalar/);
    const named = await loadCustomLoss("named.mjs#other", { dir }).catch((e: Error) => e);
    expect(named).toBeInstanceOf(Error); // returns a number, not a tensor
  });
});
