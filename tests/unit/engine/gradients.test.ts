import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { computeAdvantages, policyLoss } from "../../../server/engine/losses";
import { forward, paramNames, paramShapes, type Params } from "../../../server/engine/model";
import { packBatch, tokenLogprobs } from "../../../server/engine/score";
import { microModel, randomArray } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

/** Central finite difference of a scalar function of one float32 tensor, entry by entry. */
function numericGrad(
  f: (x: tf.Tensor) => tf.Scalar,
  x0: Float32Array,
  shape: number[],
  eps: number,
  entries?: number[],
): Map<number, number> {
  const out = new Map<number, number>();
  for (const i of entries ?? x0.keys()) {
    const at = (d: number) => {
      const x = Float32Array.from(x0);
      x[i] += d;
      return tf.tidy(() => f(tf.tensor(x, shape)).dataSync()[0]);
    };
    out.set(i, (at(eps) - at(-eps)) / (2 * eps));
  }
  return out;
}

function expectClose(analytic: number, numeric: number, rel = 0.02, abs = 2e-3): void {
  expect(Math.abs(analytic - numeric)).toBeLessThanOrEqual(abs + rel * Math.abs(numeric));
}

/** Check d/dx sum(op(x) · W) against finite differences. */
function checkOp(
  name: string,
  shape: number[],
  op: (x: tf.Tensor) => tf.Tensor,
  opts: { positive?: boolean; seed?: number } = {},
) {
  const n = shape.reduce((a, b) => a * b, 1);
  const x0 = randomArray(n, opts.seed ?? 3, 1);
  if (opts.positive) x0.forEach((v, i) => (x0[i] = 0.5 + Math.abs(v)));
  const outShape = tf.tidy(() => op(tf.tensor(x0, shape)).shape);
  const w = tf.tensor(
    randomArray(
      outShape.reduce((a, b) => a * b, 1),
      99,
      1,
    ),
    outShape,
  );
  const f = (x: tf.Tensor) => tf.sum(tf.mul(op(x), w)) as tf.Scalar;
  const analytic = tf.tidy(() => tf.grad(f)(tf.tensor(x0, shape)).dataSync());
  const numeric = numericGrad(f, x0, shape, 1e-2);
  for (const [i, g] of numeric) expectClose(analytic[i], g);
  w.dispose();
  return name;
}

const c = (vals: number[], shape: number[]) => tf.tensor(vals, shape);

describe("registered gradients vs finite differences", () => {
  const b23 = () => c([0.3, -1.2, 0.8, 1.5, -0.4, 0.9], [2, 3]);
  const b3 = () => c([0.7, -0.3, 1.1], [3]);
  const cases: Array<[string, number[], (x: tf.Tensor) => tf.Tensor, { positive?: boolean }?]> = [
    ["add (broadcast)", [3], (x) => tf.add(b23(), x)],
    ["sub (broadcast)", [2, 3], (x) => tf.sub(b3(), x)],
    ["mul (broadcast)", [2, 1], (x) => tf.mul(x, b23())],
    ["div numerator", [2, 3], (x) => tf.div(x, tf.add(tf.abs(b23()), 0.5))],
    ["div denominator", [3], (x) => tf.div(b23(), x), { positive: true }],
    ["maximum", [2, 3], (x) => tf.maximum(x, b23())],
    ["minimum", [2, 3], (x) => tf.minimum(x, b23())],
    ["pow base", [2, 3], (x) => tf.pow(x, 1.5), { positive: true }],
    ["pow exponent", [3], (x) => tf.pow(tf.add(tf.abs(b23()), 0.5), x)],
    ["neg/exp/log", [2, 3], (x) => tf.log(tf.add(tf.exp(tf.neg(x)), 1))],
    ["square/sqrt/rsqrt", [2, 3], (x) => tf.add(tf.sqrt(tf.square(x)), tf.rsqrt(tf.add(tf.square(x), 1)))],
    ["sigmoid/tanh/relu/abs", [2, 3], (x) => tf.add(tf.add(tf.sigmoid(x), tf.tanh(x)), tf.add(tf.relu(x), tf.abs(x)))],
    ["softmax", [2, 4], (x) => tf.softmax(x)],
    ["logSoftmax", [2, 4], (x) => tf.logSoftmax(x)],
    ["clipByValue", [2, 3], (x) => tf.clipByValue(x, -0.5, 0.5)],
    ["sum / mean over axes", [2, 3, 2], (x) => tf.add(tf.sum(x, [0, 2]), tf.reshape(tf.sum(tf.mean(x, 1), 1), [2, 1]))],
    ["reshape/transpose", [2, 3, 4], (x) => tf.transpose(tf.reshape(x, [4, 3, 2]), [2, 0, 1])],
    ["slice", [4, 5], (x) => tf.slice(x, [1, 2], [2, 3])],
    [
      "split",
      [2, 6],
      (x) => {
        const [a, b, d] = tf.split(x, 3, 1);
        return tf.add(tf.mul(a, 2), tf.sub(b, tf.square(d)));
      },
    ],
    ["stack/addN/cast", [3], (x) => tf.addN([tf.stack([x, tf.square(x)]), tf.cast(tf.stack([x, x]), "float32")])],
    ["where", [2, 3], (x) => tf.where(tf.greater(b23(), 0), tf.square(x), tf.mul(x, 3))],
    ["matMul", [3, 4], (x) => tf.matMul(x, c(Array.from(randomArray(8, 5)), [4, 2]))],
    ["matMul tA", [4, 3], (x) => tf.matMul(x, c(Array.from(randomArray(8, 5)), [4, 2]), true, false)],
    ["matMul tB", [3, 4], (x) => tf.matMul(c(Array.from(randomArray(8, 5)), [2, 4]), x, false, true)],
    ["matMul tA tB", [4, 3], (x) => tf.matMul(c(Array.from(randomArray(6, 6)), [3, 2]), x, true, true)],
    ["batched matMul (attention shapes)", [3, 5, 4], (x) => tf.matMul(tf.softmax(tf.matMul(x, x, false, true)), x)],
  ];
  it.each(cases)("%s", (name, shape, op, opts) => {
    expect(checkOp(name, shape, op, opts)).toBe(name);
  });
});

describe("policy-loss gradient of a micro transformer vs finite differences", () => {
  it("matches on sampled entries of every parameter", () => {
    const model = microModel(7, 6);
    const ref = microModel(8, 6);
    const batch = packBatch(
      [
        { promptIds: [257, 72, 105, 260, 258], responseIds: [65, 66, 67, 260] },
        { promptIds: [257, 10, 20, 30, 40, 50, 260, 258], responseIds: [97, 98] },
      ],
      model.config.ctx,
    );
    const names = paramNames(model.config);
    const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
    const mask = tf.tensor2d(batch.mask, [batch.B, batch.T - 1]);
    const lpOf = (m: Params) => tokenLogprobs(forward(model.config, m, ids), batch, true);
    // Old log-probs a little off the current ones and mixed-sign advantages (OPD + GRPO terms).
    const current = tf.tidy(() => lpOf(model.params).logprobs.dataSync());
    const old = tf.tensor2d(
      current.map((v, i) => v + 0.05 * Math.sin(i)),
      [batch.B, batch.T - 1],
    );
    const refLp = tf.tidy(() => lpOf(ref.params).logprobs);
    const adv = tf.tensor2d(
      Array.from(current, (_, i) =>
        batch.mask[i]
          ? computeAdvantages({ kind: "BOTH", reward: i % 2 ? 1 : -1, teacherLogprobs: [-1] }, [-1.3])[0]
          : 0,
      ),
      [batch.B, batch.T - 1],
    );
    const loss = (params: Params) => {
      const { logprobs, entropy } = lpOf(params);
      return policyLoss(
        {
          logprobs,
          oldLogprobs: old,
          advantages: adv,
          mask,
          refLogprobs: refLp,
          entropy: entropy ?? undefined,
          sampleWeights: tf.tensor1d([1, 0.5]),
        },
        { klCoef: 0.1, entropyCoef: 0.01, epsClip: 10, epsClipHigh: 10 }, // no clipping kinks near the FD points
      ).loss;
    };
    const analytic = tf.tidy(() => {
      const { grads } = tf.valueAndGrads((...ps: tf.Tensor[]) =>
        loss(Object.fromEntries(names.map((n, i) => [n, ps[i]]))),
      )(names.map((n) => model.params[n]));
      return grads.map((g) => g.dataSync());
    });
    let checked = 0;
    paramShapes(model.config).forEach(([name, shape], k) => {
      const x0 = model.params[name].dataSync() as Float32Array;
      // Up to three entries per tensor, preferring the largest analytic gradients (clearest signal).
      const order = [...analytic[k].keys()]
        .sort((a, b) => Math.abs(analytic[k][b]) - Math.abs(analytic[k][a]))
        .slice(0, 3);
      const numeric = numericGrad((x) => loss({ ...model.params, [name]: x }), x0, shape, 1e-2, order);
      for (const [i, g] of numeric) {
        expectClose(analytic[k][i], g, 0.05, 1e-3);
        checked++;
      }
    });
    expect(checked).toBe(3 * names.length);
    tf.dispose([ids, mask, old, refLp, adv]);
  });
});
