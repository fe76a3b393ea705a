import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { loadCustomLoss } from "../../../server/engine/losses";
import { cloneModel, disposeModel, paramNames, type PolicyModel } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { scoreBatch } from "../../../server/engine/score";
import { trainStep, type TrainSample } from "../../../server/engine/train";
import { maxAbsDiff, microModel } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

const P1 = [257, 72, 105, 260, 258];
const P2 = [256, 66, 260, 257, 10, 20, 30, 260, 258];

/** Three samples of every kind; old log-probs are the model's own plus an offset (rollout drift). */
function samples(model: PolicyModel, drift = 0.1): TrainSample[] {
  const base = [
    { promptIds: P1, responseIds: [65, 66, 67, 260], reward: 1, kind: "RL" as const },
    { promptIds: P2, responseIds: [97, 98], reward: -1, kind: "RL" as const },
    { promptIds: P1, responseIds: [120, 121, 260], reward: 0, kind: "OPD" as const, teacherLogprobs: [-1, -2, -0.5] },
  ];
  const lps = scoreBatch(model, base);
  return base.map((s, i) => ({ ...s, oldLogprobs: lps[i].map((x) => x + drift) }));
}

const snapshot = (m: PolicyModel) => paramNames(m.config).map((n) => Float32Array.from(m.params[n].dataSync()));

describe("trainStep", () => {
  it("reports slime-named metrics that match a hand computation at ratio 1", async () => {
    const model = microModel(11, 4);
    const batch = samples(model);
    const old = scoreBatch(model, batch); // what "recompute" will use
    const before = snapshot(model);
    const adam = new Adam({ lr: 1e-3 });
    const m = await trainStep(model, adam, batch);

    // At ratio 1 nothing clips and pg = −A: −mean_i mean_t A_it.
    const advMeans = [1, -1, old[2].reduce((s, o, t) => s + ([-1, -2, -0.5][t] - o), 0) / 3];
    const expectedPg = -(advMeans[0] + advMeans[1] + advMeans[2]) / 3;
    expect(m["train/pg_loss"]).toBeCloseTo(expectedPg, 4);
    expect(m["train/loss"]).toBeCloseTo(expectedPg, 4);
    expect(m["train/pg_clipfrac"]).toBe(0);
    expect(Math.abs(m["train/ppo_kl"])).toBeLessThan(1e-6);
    expect(m["train/kl_loss"]).toBe(0);
    expect(m["train/entropy"]).toBeGreaterThan(0);
    expect(m["train/entropy"]).toBeLessThan(Math.log(262) + 1e-4);
    expect(m["train/train_rollout_logprob_abs_diff"]).toBeCloseTo(0.1, 5);
    expect(m["train/grad_norm"]).toBeGreaterThan(0);
    expect(m["train/samples"]).toBe(3);
    expect(m["train/response_tokens"]).toBe(9);
    expect(m["train/prompt_tokens"]).toBe(P1.length * 2 + P2.length);
    expect(m["train/lr"]).toBe(1e-3);
    expect(adam.step).toBe(1);
    const after = snapshot(model);
    expect(after.some((a, i) => maxAbsDiff(a, before[i]) > 0)).toBe(true);
    disposeModel(model);
    adam.dispose();
  });

  it("accumulates micro-batches to the same update as one batch", async () => {
    const a = microModel(12, 4);
    const b = cloneModel(a);
    const batch = samples(a);
    // eps ≫ |g| turns Adam into SGD (step ≈ lr·g/eps = g), so the weight change is the accumulated
    // gradient itself rather than Adam's sign-like step, which would amplify float32 noise.
    const sgd = { lr: 1e6, eps: 1e6 };
    const [adamA, adamB] = [new Adam(sgd), new Adam(sgd)];
    const w0 = snapshot(a);
    const ma = await trainStep(a, adamA, batch, { microBatchSize: 3, gradClip: 0 });
    const mb = await trainStep(b, adamB, batch, { microBatchSize: 1, gradClip: 0 });
    for (const k of ["train/loss", "train/pg_loss", "train/entropy", "train/grad_norm"] as const)
      expect(mb[k]).toBeCloseTo(ma[k], 5);
    const [wa, wb] = [snapshot(a), snapshot(b)];
    w0.forEach((w, i) => {
      const da = wa[i].map((x, j) => x - w[j]);
      const db = wb[i].map((x, j) => x - w[j]);
      const scale = Math.max(...da.map(Math.abs), 1e-6);
      expect(maxAbsDiff(da, db) / scale).toBeLessThan(1e-3);
    });
    [a, b].forEach(disposeModel);
    [adamA, adamB].forEach((o) => o.dispose());
  });

  it("clips the global gradient norm", async () => {
    const a = microModel(13, 4);
    const b = cloneModel(a);
    const batch = samples(a);
    const w0 = snapshot(a);
    const sgd = { lr: 1e6, eps: 1e6 }; // update ≈ gradient (see above)
    const m = await trainStep(a, new Adam(sgd), batch, { gradClip: 0 });
    const clipped = await trainStep(b, new Adam(sgd), batch, { gradClip: m["train/grad_norm"] / 10 });
    expect(clipped["train/grad_norm"]).toBeCloseTo(m["train/grad_norm"], 4); // reported before clipping
    const [wa, wb] = [snapshot(a), snapshot(b)];
    w0.forEach((w, i) => {
      const da = wa[i].map((x, j) => (x - w[j]) / 10);
      const db = wb[i].map((x, j) => x - w[j]);
      expect(maxAbsDiff(da, db)).toBeLessThan(1e-3 * Math.max(...da.map(Math.abs), 1e-6));
    });
    [a, b].forEach(disposeModel);
  });

  it("gives weight-0 samples no influence but counts them in the mean", async () => {
    const a = microModel(14, 4);
    const b = cloneModel(a);
    const base = samples(a);
    const other = { ...base[1], responseIds: [50, 51, 52], oldLogprobs: [-1, -1, -1], reward: 5 };
    const [adamA, adamB] = [new Adam({ lr: 1e-2 }), new Adam({ lr: 1e-2 })];
    const ma = await trainStep(a, adamA, [base[0], { ...base[1], weight: 0 }], { gradClip: 0 });
    const mb = await trainStep(b, adamB, [base[0], { ...other, weight: 0 }], { gradClip: 0 });
    expect(ma["train/pg_loss"]).toBeCloseTo(-1 / 2, 5); // sample 0 has A = +1; the mean is over two samples
    expect(mb["train/pg_loss"]).toBeCloseTo(ma["train/pg_loss"], 6);
    snapshot(a).forEach((w, i) => expect(maxAbsDiff(w, snapshot(b)[i])).toBeLessThan(1e-6));
    [a, b].forEach(disposeModel);
  });

  it("computes the KL to a reference and trains against rollout log-probs when asked", async () => {
    const model = microModel(15, 4);
    const ref = cloneModel(model);
    const batch = samples(model, 0);
    const adam = new Adam({ lr: 3e-2 });
    const first = await trainStep(model, adam, batch, { klCoef: 0.05 }, { refModel: ref });
    expect(first["train/kl_loss"]).toBeCloseTo(0, 6);
    // Second epoch on the same batch against the (now stale) rollout log-probs: the ratio moves off 1.
    const second = await trainStep(model, adam, batch, { klCoef: 0.05, oldLogprobs: "rollout" }, { refModel: ref });
    expect(second["train/kl_loss"]).toBeGreaterThan(0);
    expect(Math.abs(second["train/ppo_kl"])).toBeGreaterThan(1e-4);
    expect(second["train/train_rollout_logprob_abs_diff"]).toBeUndefined();
    [model, ref].forEach(disposeModel);
  });

  it("runs a custom loss in place of the PPO term", async () => {
    const model = microModel(16, 4);
    const batch = samples(model);
    const old = scoreBatch(model, batch);
    const fn = await loadCustomLoss("custom-loss.ts");
    const m = await trainStep(model, new Adam(), batch, {}, { customLoss: fn });
    // At ratio 1 the CISPO weight is 1: loss = −mean_i mean_t A_it·lp_it.
    const adv = [[1, 1, 1, 1], [-1, -1], [-1, -2, -0.5].map((t, i) => t - old[2][i])];
    const want = -adv.reduce((s, a, i) => s + a.reduce((u, x, t) => u + x * old[i][t], 0) / a.length, 0) / 3;
    expect(m["train/pg_loss"]).toBeCloseTo(want, 4);
    disposeModel(model);
  });

  it("yields to the event loop between micro-batches", async () => {
    const model = microModel(17, 4);
    const batch = samples(model);
    let ran = false;
    const p = trainStep(model, new Adam(), batch, { microBatchSize: 1 });
    setImmediate(() => (ran = true));
    await p;
    expect(ran).toBe(true);
    disposeModel(model);
  });

  it("leaves no stray tensors behind", async () => {
    const model = microModel(18, 4);
    const adam = new Adam();
    const batch = samples(model);
    await trainStep(model, adam, batch);
    const after1 = tf.memory().numTensors;
    await trainStep(model, adam, batch);
    expect(tf.memory().numTensors).toBe(after1);
    disposeModel(model);
    adam.dispose();
  });

  it("validates samples", async () => {
    const model = microModel(19, 4);
    const bad = { promptIds: P1, responseIds: [65, 66], oldLogprobs: [-1], reward: 1, kind: "RL" as const };
    await expect(trainStep(model, new Adam(), [bad])).rejects.toThrow(/oldLogprobs must match/);
    await expect(trainStep(model, new Adam(), [])).rejects.toThrow(/at least one/);
    disposeModel(model);
  });
});
