import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import {
  adaptedParams,
  adapterGrads,
  createAdapter,
  defaultTargets,
  deserializeAdapter,
  disposeAdapter,
  loraLinear,
  serializeAdapter,
  sgdStep,
  type LoraAdapter,
  type LoraPair,
} from "../../../server/engine/lora";
import { forward, type ModelConfig, type Params } from "../../../server/engine/model";
import { maxAbsDiff, microModel, randomArray } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

// The hand-computed case (row vector x, W stored [in, out] as the model does):
//   x = [1, 2]          W = [[1, 2], [3, 4]]      x·W = [7, 10]
//   A = [[0.5, -1]]  (r=1 × in=2)                 h = x·Aᵀ = 0.5 − 2 = −1.5
//   B = [[2], [3]]   (out=2 × r=1)                h·Bᵀ = [−3, −4.5]
//   α = 2, r = 1 → scale = 2                      y = [7, 10] + 2·[−3, −4.5] = [1, 1]
const x = () => tf.tensor2d([[1, 2]]);
const W = () =>
  tf.tensor2d([
    [1, 2],
    [3, 4],
  ]);
const pair = (): LoraPair => ({ A: tf.tensor2d([[0.5, -1]]), B: tf.tensor2d([[2], [3]]) });

describe("LoRA on one projection, by hand", () => {
  it("computes x·W + (α/r)·(x·Aᵀ)·Bᵀ", () => {
    const y = loraLinear(x(), W(), pair(), 2 / 1);
    expect(Array.from(y.dataSync())).toEqual([1, 1]);
    const withBias = loraLinear(x(), W(), pair(), 2, tf.tensor1d([0.5, -0.5]));
    expect(Array.from(withBias.dataSync())).toEqual([1.5, 0.5]);
  });

  it("the merged weight W + scale·Aᵀ·Bᵀ gives the same output", () => {
    const adapter: LoraAdapter = { rank: 1, alpha: 2, pairs: new Map([["h0.attn.wo", pair()]]) };
    const merged = adaptedParams({ "h0.attn.wo": W() }, adapter)["h0.attn.wo"];
    // W + 2·[[0.5],[−1]]·[[2, 3]] = [[1+2, 2+3], [3−4, 4−6]] = [[3, 5], [−1, −2]]
    expect(Array.from(merged.dataSync())).toEqual([3, 5, -1, -2]);
    expect(Array.from(tf.matMul(x(), merged as tf.Tensor2D).dataSync())).toEqual([1, 1]);
  });

  it("gradients of L = y·c, c = [1, −1]: dB = scale·c·h, dA = scale·(c·B)·x", () => {
    // dL/dB[o] = scale·c[o]·h = 2·[1, −1]·(−1.5) = [−3, 3]
    // dL/dh = scale·Σ c[o]·B[o] = 2·(2 − 3) = −2  →  dL/dA = −2·x = [−2, −4]
    const adapter: LoraAdapter = { rank: 1, alpha: 2, pairs: new Map([["h0.attn.wo", pair()]]) };
    const c = tf.tensor2d([[1, -1]]);
    const { value, grads } = adapterGrads({ "h0.attn.wo": W() }, adapter, (p) =>
      tf.sum(tf.mul(tf.matMul(x(), p["h0.attn.wo"] as tf.Tensor2D), c)),
    );
    expect(value).toBe(0);
    const g = grads.get("h0.attn.wo")!;
    expect(g.A.shape).toEqual([1, 2]);
    expect(g.B.shape).toEqual([2, 1]);
    expect(Array.from(g.A.dataSync())).toEqual([-2, -4]);
    expect(Array.from(g.B.dataSync())).toEqual([-3, 3]);
  });

  it("gradients of a non-linear loss match central finite differences", () => {
    const adapter: LoraAdapter = { rank: 1, alpha: 2, pairs: new Map([["h0.attn.wo", pair()]]) };
    const base = { "h0.attn.wo": W() };
    // L = Σ y² through the unmerged path (so the check also covers loraLinear).
    const lossOf = (p: LoraPair) => tf.sum(tf.square(loraLinear(x(), base["h0.attn.wo"], p, 2)));
    const { grads } = adapterGrads(base, adapter, (p) =>
      tf.sum(tf.square(tf.matMul(x(), p["h0.attn.wo"] as tf.Tensor2D))),
    );
    const a0 = [0.5, -1];
    const b0 = [2, 3];
    const eps = 1e-2;
    const at = (a: number[], b: number[]) =>
      tf.tidy(() => lossOf({ A: tf.tensor2d([a]), B: tf.tensor2d(b.map((v) => [v])) }).dataSync()[0]);
    const ga = grads.get("h0.attn.wo")!.A.dataSync();
    const gb = grads.get("h0.attn.wo")!.B.dataSync();
    for (let i = 0; i < 2; i++) {
      const up = a0.map((v, j) => (j === i ? v + eps : v));
      const dn = a0.map((v, j) => (j === i ? v - eps : v));
      expect(ga[i]).toBeCloseTo((at(up, b0) - at(dn, b0)) / (2 * eps), 2);
      const bu = b0.map((v, j) => (j === i ? v + eps : v));
      const bd = b0.map((v, j) => (j === i ? v - eps : v));
      expect(gb[i]).toBeCloseTo((at(a0, bu) - at(a0, bd)) / (2 * eps), 2);
    }
    // By hand at the point: y = [1, 1]; dL/dy = 2y = [2, 2]; h = −1.5
    // dB = 2·[2, 2]·(−1.5) = [−6, −6]; dL/dh = 2·(2·2 + 2·3) = 20 → dA = 20·[1, 2] = [20, 40]
    expect(Array.from(gb)).toEqual([-6, -6]);
    expect(Array.from(ga)).toEqual([20, 40]);
  });
});

const TINY: ModelConfig = { vocabSize: 16, ctx: 8, nLayer: 2, nEmbd: 8, nHead: 2 };
const ids = () =>
  tf.tensor2d(
    [
      [1, 5, 3, 9, 2, 7],
      [4, 4, 0, 15, 8, 6],
    ],
    [2, 6],
    "int32",
  );

/** Set every B to small random values so the adapter is not the identity. */
function perturbB(adapter: LoraAdapter, seed: number): LoraAdapter {
  let s = seed;
  for (const p of adapter.pairs.values()) {
    const b = tf.tensor2d(randomArray(p.B.size, s++, 0.3), p.B.shape);
    p.B.dispose();
    p.B = b;
  }
  return adapter;
}

function snapshot(params: Params): Map<string, Float32Array> {
  return new Map(Object.entries(params).map(([k, t]) => [k, Float32Array.from(t.dataSync())]));
}

describe("LoRA on the embedded model", () => {
  it("a fresh adapter (B = 0) reproduces the base forward exactly", () => {
    const model = microModel(3, 8, TINY);
    const adapter = createAdapter(TINY, { rank: 2, alpha: 4, targets: defaultTargets(TINY) }, 11);
    const base = forward(TINY, model.params, ids()).dataSync();
    const adapted = forward(TINY, adaptedParams(model.params, adapter), ids()).dataSync();
    expect(maxAbsDiff(base, adapted)).toBe(0);
    // …and a non-zero B changes it (so the check above can fail).
    perturbB(adapter, 5);
    const moved = forward(TINY, adaptedParams(model.params, adapter), ids()).dataSync();
    expect(maxAbsDiff(base, moved)).toBeGreaterThan(1e-3);
  });

  it("is seeded and checks its targets", () => {
    const a = createAdapter(TINY, { rank: 2, alpha: 4, targets: ["h1.mlp.w1"] }, 7);
    const b = createAdapter(TINY, { rank: 2, alpha: 4, targets: ["h1.mlp.w1"] }, 7);
    const c = createAdapter(TINY, { rank: 2, alpha: 4, targets: ["h1.mlp.w1"] }, 8);
    const A = (x: LoraAdapter) => Array.from(x.pairs.get("h1.mlp.w1")!.A.dataSync());
    expect(A(a)).toEqual(A(b));
    expect(A(a)).not.toEqual(A(c));
    expect(a.pairs.get("h1.mlp.w1")!.A.shape).toEqual([2, 8]);
    expect(a.pairs.get("h1.mlp.w1")!.B.shape).toEqual([32, 2]);
    expect(() => createAdapter(TINY, { rank: 2, alpha: 4, targets: ["wte"] }, 1)).toThrow();
    expect(() => createAdapter(TINY, { rank: 2, alpha: 4, targets: ["h5.attn.wo"] }, 1)).toThrow(/no projection/);
  });

  it("full-model gradients w.r.t. A and B match finite differences; the base is never touched", () => {
    const model = microModel(4, 8, TINY);
    const adapter = perturbB(createAdapter(TINY, { rank: 2, alpha: 4, targets: ["h0.attn.wqkv", "h1.attn.wo"] }, 2), 9);
    const weights = tf.tensor2d(randomArray(12 * 16, 21), [12, 16]);
    const loss = (p: Params) => tf.sum(tf.mul(forward(TINY, p, ids()), weights)) as tf.Scalar;
    const before = snapshot(model.params);
    const { grads } = adapterGrads(model.params, adapter, loss);
    const eps = 1e-2;
    for (const [name, which, i] of [
      ["h0.attn.wqkv", "A", 3],
      ["h0.attn.wqkv", "B", 17],
      ["h1.attn.wo", "A", 0],
      ["h1.attn.wo", "B", 5],
    ] as const) {
      const t = adapter.pairs.get(name)![which];
      const v0 = Float32Array.from(t.dataSync());
      const at = (d: number) =>
        tf.tidy(() => {
          const v = Float32Array.from(v0);
          v[i] += d;
          const p = { ...adapter.pairs.get(name)!, [which]: tf.tensor2d(v, t.shape) };
          const pairs = new Map(adapter.pairs).set(name, p);
          return loss(adaptedParams(model.params, { ...adapter, pairs })).dataSync()[0];
        });
      const numeric = (at(eps) - at(-eps)) / (2 * eps);
      const analytic = grads.get(name)![which].dataSync()[i];
      expect(Math.abs(analytic - numeric)).toBeLessThanOrEqual(2e-2 + 0.02 * Math.abs(numeric));
    }
    const stepped = sgdStep(adapter, grads, 0.1);
    for (const [k, v] of snapshot(model.params)) expect(maxAbsDiff(v, before.get(k)!)).toBe(0);
    const moved = maxAbsDiff(
      stepped.pairs.get("h0.attn.wqkv")!.B.dataSync(),
      adapter.pairs.get("h0.attn.wqkv")!.B.dataSync(),
    );
    expect(moved).toBeGreaterThan(0);
    // A step against the gradient lowers the loss.
    const l0 = tf.tidy(() => loss(adaptedParams(model.params, adapter)).dataSync()[0]);
    const l1 = tf.tidy(() => loss(adaptedParams(model.params, sgdStep(adapter, grads, 1e-3))).dataSync()[0]);
    expect(l1).toBeLessThan(l0);
    disposeAdapter(stepped);
  });
});

describe("adapter serialisation", () => {
  it("round-trips bit-exactly and is small", () => {
    const adapter = perturbB(createAdapter(TINY, { rank: 4, alpha: 8, targets: defaultTargets(TINY) }, 13), 1);
    const bytes = serializeAdapter(adapter);
    const back = deserializeAdapter(bytes, TINY);
    expect(back.rank).toBe(4);
    expect(back.alpha).toBe(8);
    expect([...back.pairs.keys()]).toEqual([...adapter.pairs.keys()]);
    for (const [name, p] of adapter.pairs) {
      const q = back.pairs.get(name)!;
      for (const k of ["A", "B"] as const) {
        expect(q[k].shape).toEqual(p[k].shape);
        const bitsP = new Uint32Array(Float32Array.from(p[k].dataSync()).buffer);
        const bitsQ = new Uint32Array(Float32Array.from(q[k].dataSync()).buffer);
        expect(Array.from(bitsQ)).toEqual(Array.from(bitsP));
      }
    }
    expect(serializeAdapter(back)).toEqual(bytes);
    // rank 4 on wqkv (8→24) and wo (8→8) in 2 layers: 4·(8+24 + 8+8)·2 floats.
    const floats = 4 * (8 + 24 + 8 + 8) * 2;
    expect(bytes.length).toBeLessThan(floats * 4 + 512);
  });

  it("refuses a truncated blob, a foreign blob and an adapter that does not fit the model", () => {
    const adapter = createAdapter(TINY, { rank: 2, alpha: 2, targets: ["h0.attn.wo"] }, 1);
    const bytes = serializeAdapter(adapter);
    expect(() => deserializeAdapter(bytes.subarray(0, bytes.length - 4))).toThrow(/expected/);
    expect(() => deserializeAdapter(new TextEncoder().encode("hello world, not an adapter"))).toThrow(/not a LoRA/);
    const wider: ModelConfig = { ...TINY, nEmbd: 16 };
    expect(() => deserializeAdapter(bytes, wider)).toThrow(/does not fit/);
  });
});
