/**
 * Gradient registrations for the kernels the policy's forward pass and losses use, plus the
 * common element-wise ones a custom loss is likely to reach for (min, pow, where, abs, tanh, relu).
 *
 * Why this file exists: tfjs-core's Node entry (dist/tf-core.node.js) registers no gradients at
 * all, and its `register_all_gradients` module is bundler-only ESM (extensionless imports) that
 * Node cannot load. These are the same formulas as tfjs-core 4.22's `src/gradients/*_grad.ts`,
 * restricted to what we need; tests/unit/engine check them against finite differences.
 */
import * as tf from "@tensorflow/tfjs-core";

const { getReductionAxes, assertAndGetBroadcastShape, getUndoAxesPermutation } = tf.backend_util;

type GradMap = Record<string, () => tf.Tensor>;
type Dy = tf.Tensor | tf.Tensor[];

const one = (dy: Dy): tf.Tensor => (Array.isArray(dy) ? dy[0] : dy);

/** Sum a broadcast gradient back down to `shape`. */
function unbroadcast(g: tf.Tensor, shape: number[], outShape: number[]): tf.Tensor {
  const axes = getReductionAxes(shape, outShape);
  return tf.reshape(axes.length ? tf.sum(g, axes) : g, shape);
}

type Partial2 = (dy: tf.Tensor, a: tf.Tensor, b: tf.Tensor) => tf.Tensor;

function binary(name: string, da: Partial2, db: Partial2): tf.GradConfig {
  return {
    kernelName: name,
    inputsToSave: ["a", "b"],
    gradFunc: (dy: Dy, [a, b]: tf.Tensor[]): GradMap => {
      const out = assertAndGetBroadcastShape(a.shape, b.shape);
      return {
        a: () => unbroadcast(da(one(dy), a, b), a.shape, out),
        b: () => unbroadcast(db(one(dy), a, b), b.shape, out),
      };
    },
  };
}

function reduceGrad(name: string, mean: boolean): tf.GradConfig {
  return {
    kernelName: name,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => {
      const axes = tf.util.parseAxisParam(attrs.axis as number | number[], x.shape);
      const expanded = x.shape.slice();
      axes.forEach((a) => (expanded[a] = 1));
      const n = axes.reduce((s, a) => s * x.shape[a], 1);
      return {
        x: () => {
          const g = tf.mul(tf.reshape(one(dy), expanded), tf.ones(x.shape, "float32"));
          return mean ? tf.div(g, n) : g;
        },
      };
    },
  };
}

const GRADIENTS: tf.GradConfig[] = [
  {
    kernelName: tf.BatchMatMul,
    inputsToSave: ["a", "b"],
    gradFunc: (dy: Dy, [a, b]: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => {
      const g = one(dy);
      const tA = Boolean(attrs.transposeA);
      const tB = Boolean(attrs.transposeB);
      if (!tA && !tB) return { a: () => tf.matMul(g, b, false, true), b: () => tf.matMul(a, g, true, false) };
      if (!tA && tB) return { a: () => tf.matMul(g, b, false, false), b: () => tf.matMul(g, a, true, false) };
      if (tA && !tB) return { a: () => tf.matMul(b, g, false, true), b: () => tf.matMul(a, g, false, false) };
      return { a: () => tf.matMul(b, g, true, true), b: () => tf.matMul(g, a, true, true) };
    },
  },
  binary(
    tf.Add,
    (dy) => dy,
    (dy) => dy,
  ),
  binary(
    tf.Sub,
    (dy) => dy,
    (dy) => tf.neg(dy),
  ),
  binary(
    tf.Multiply,
    (dy, _a, b) => tf.mul(dy, b),
    (dy, a) => tf.mul(dy, a),
  ),
  binary(
    tf.RealDiv,
    (dy, _a, b) => tf.div(dy, b),
    (dy, a, b) => tf.neg(tf.div(tf.mul(dy, a), tf.square(b))),
  ),
  binary(
    tf.Maximum,
    (dy, a, b) => tf.mul(dy, tf.cast(tf.greaterEqual(a, b), "float32")),
    (dy, a, b) => tf.mul(dy, tf.cast(tf.less(a, b), "float32")),
  ),
  binary(
    tf.Minimum,
    (dy, a, b) => tf.mul(dy, tf.cast(tf.lessEqual(a, b), "float32")),
    (dy, a, b) => tf.mul(dy, tf.cast(tf.greater(a, b), "float32")),
  ),
  binary(
    tf.Pow,
    (dy, a, b) => tf.mul(dy, tf.mul(b, tf.pow(a, tf.sub(b, 1)))),
    (dy, a, b) =>
      tf.mul(dy, tf.mul(tf.pow(a, b), tf.where(tf.greater(a, 0), tf.log(tf.maximum(a, 1e-30)), tf.zerosLike(a)))),
  ),
  {
    kernelName: tf.Select,
    inputsToSave: ["condition"],
    gradFunc: (dy: Dy, [cond]: tf.Tensor[]): GradMap => ({
      condition: () => tf.zerosLike(cond),
      t: () => tf.mul(one(dy), tf.cast(cond, "float32")),
      e: () => tf.mul(one(dy), tf.cast(tf.logicalNot(cond), "float32")),
    }),
  },
  {
    kernelName: tf.Abs,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({ x: () => tf.mul(one(dy), tf.sign(x)) }),
  },
  {
    kernelName: tf.Tanh,
    outputsToSave: [true],
    gradFunc: (dy: Dy, [y]: tf.Tensor[]): GradMap => ({ x: () => tf.mul(one(dy), tf.sub(1, tf.square(y))) }),
  },
  {
    kernelName: tf.Relu,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({
      x: () => tf.mul(one(dy), tf.cast(tf.greater(x, 0), "float32")),
    }),
  },
  { kernelName: tf.Neg, gradFunc: (dy: Dy): GradMap => ({ x: () => tf.neg(one(dy)) }) },
  {
    kernelName: tf.Exp,
    outputsToSave: [true],
    gradFunc: (dy: Dy, [y]: tf.Tensor[]): GradMap => ({ x: () => tf.mul(one(dy), y) }),
  },
  {
    kernelName: tf.Log,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({ x: () => tf.div(one(dy), x) }),
  },
  {
    kernelName: tf.Square,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({ x: () => tf.mul(one(dy), tf.mul(x, 2)) }),
  },
  {
    kernelName: tf.Sqrt,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({ x: () => tf.div(one(dy), tf.mul(tf.sqrt(x), 2)) }),
  },
  {
    kernelName: tf.Rsqrt,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({ x: () => tf.neg(tf.div(one(dy), tf.mul(tf.pow(x, 1.5), 2))) }),
  },
  {
    kernelName: tf.Sigmoid,
    outputsToSave: [true],
    gradFunc: (dy: Dy, [y]: tf.Tensor[]): GradMap => ({ x: () => tf.mul(one(dy), tf.mul(y, tf.sub(1, y))) }),
  },
  {
    kernelName: tf.Softmax,
    outputsToSave: [true],
    gradFunc: (dy: Dy, [y]: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => ({
      logits: () => {
        const dyY = tf.mul(one(dy), y);
        return tf.sub(dyY, tf.mul(tf.sum(dyY, [attrs.dim as number], true), y));
      },
    }),
  },
  {
    kernelName: tf.ClipByValue,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => ({
      x: () => {
        const inside = tf.logicalAnd(
          tf.greaterEqual(x, attrs.clipValueMin as number),
          tf.lessEqual(x, attrs.clipValueMax as number),
        );
        return tf.where(inside, one(dy), tf.zerosLike(one(dy)));
      },
    }),
  },
  reduceGrad(tf.Sum, false),
  reduceGrad(tf.Mean, true),
  {
    kernelName: tf.Reshape,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[]): GradMap => ({ x: () => tf.reshape(one(dy), x.shape) }),
  },
  {
    kernelName: tf.Transpose,
    gradFunc: (dy: Dy, _s: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => ({
      x: () => tf.transpose(one(dy), getUndoAxesPermutation(attrs.perm as number[])),
    }),
  },
  {
    kernelName: tf.Slice,
    inputsToSave: ["x"],
    gradFunc: (dy: Dy, [x]: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => {
      const [begin, size] = tf.slice_util.parseSliceParams(x, attrs.begin as number[], attrs.size as number[]);
      const paddings = x.shape.map((d, i): [number, number] => [begin[i], d - begin[i] - size[i]]);
      return { x: () => tf.pad(one(dy), paddings) };
    },
  },
  {
    kernelName: tf.SplitV,
    gradFunc: (dy: Dy, _s: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => ({
      x: () => tf.concat(dy as tf.Tensor[], attrs.axis as number),
    }),
  },
  {
    kernelName: tf.Pack,
    saveAllInputs: true,
    gradFunc: (dy: Dy, saved: tf.Tensor[], attrs: tf.NamedAttrMap): GradMap => {
      const parts = tf.unstack(one(dy), attrs.axis as number);
      return Object.fromEntries(saved.map((_, i) => [i, () => parts[i]]));
    },
  },
  {
    kernelName: tf.AddN,
    saveAllInputs: true,
    gradFunc: (dy: Dy, saved: tf.Tensor[]): GradMap =>
      Object.fromEntries(saved.map((_, i) => [i, () => tf.clone(one(dy))])),
  },
  { kernelName: tf.Cast, gradFunc: (dy: Dy): GradMap => ({ x: () => tf.clone(one(dy)) }) },
  { kernelName: tf.Identity, gradFunc: (dy: Dy): GradMap => ({ x: () => tf.clone(one(dy)) }) },
];

/** Register the gradients above, leaving any already registered (e.g. by the full tfjs) alone. */
export function registerGradients(): void {
  for (const g of GRADIENTS) if (!tf.getGradient(g.kernelName)) tf.registerGradient(g);
}
