/**
 * A small decoder-only transformer: byte-level vocabulary, learned positions, pre-LayerNorm blocks,
 * 4× MLP with quick-GELU (x·σ(1.702x)), output head tied to the token embedding.
 *
 * Parameters are plain tensors in a name→tensor record (no tf.Variable: variables live in a global
 * registry keyed by name, which would collide when the engine holds two versions during a hot swap).
 * Training takes gradients with `tf.valueAndGrads` over the parameter list and replaces tensors.
 *
 * The token embedding is `oneHot(ids) @ wte` rather than `gather`, because gather has no gradient
 * on the wasm backend and a 2-D product reaches XNNPACK (cheap at vocab 262).
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { mulberry32 } from "./rng";
import { VOCAB_SIZE } from "./tokenizer";

export const modelConfigSchema = z.object({
  vocabSize: z.number().int().positive(),
  ctx: z.number().int().positive(),
  nLayer: z.number().int().positive(),
  nEmbd: z.number().int().positive(),
  nHead: z.number().int().positive(),
});
export type ModelConfig = z.infer<typeof modelConfigSchema>;

export const DEFAULT_CONFIG: ModelConfig = { vocabSize: VOCAB_SIZE, ctx: 512, nLayer: 2, nEmbd: 64, nHead: 4 };

export type Params = Record<string, tf.Tensor>;

export interface PolicyModel {
  config: ModelConfig;
  params: Params;
}

const LN_EPS = 1e-5;
const MASKED = -1e9;

/** Canonical parameter order and shapes (checkpoints and optimizers rely on this order). */
export function paramShapes(c: ModelConfig): Array<[string, number[]]> {
  const d = c.nEmbd;
  const out: Array<[string, number[]]> = [
    ["wte", [c.vocabSize, d]],
    ["wpe", [c.ctx, d]],
  ];
  for (let l = 0; l < c.nLayer; l++) {
    out.push(
      [`h${l}.ln1.g`, [d]],
      [`h${l}.ln1.b`, [d]],
      [`h${l}.attn.wqkv`, [d, 3 * d]],
      [`h${l}.attn.bqkv`, [3 * d]],
      [`h${l}.attn.wo`, [d, d]],
      [`h${l}.attn.bo`, [d]],
      [`h${l}.ln2.g`, [d]],
      [`h${l}.ln2.b`, [d]],
      [`h${l}.mlp.w1`, [d, 4 * d]],
      [`h${l}.mlp.b1`, [4 * d]],
      [`h${l}.mlp.w2`, [4 * d, d]],
      [`h${l}.mlp.b2`, [d]],
    );
  }
  out.push(["lnf.g", [d]], ["lnf.b", [d]]);
  return out;
}

export function paramNames(c: ModelConfig): string[] {
  return paramShapes(c).map(([n]) => n);
}

export function countParams(c: ModelConfig): number {
  return paramShapes(c).reduce((s, [, shape]) => s + shape.reduce((a, b) => a * b, 1), 0);
}

function gaussian(rng: () => number): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** GPT-2 style init: N(0, 0.02), residual output projections scaled by 1/√(2L), LN γ=1, β=0. */
export function createModel(config: ModelConfig, seed: number): PolicyModel {
  const c = modelConfigSchema.parse(config);
  if (c.nEmbd % c.nHead !== 0) throw new Error("nEmbd must be divisible by nHead");
  const rng = mulberry32(seed);
  const params: Params = {};
  for (const [name, shape] of paramShapes(c)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(size);
    if (name.endsWith(".g")) v.fill(1);
    else if (shape.length === 2) {
      const std = /attn\.wo|mlp\.w2/.test(name) ? 0.02 / Math.sqrt(2 * c.nLayer) : 0.02;
      for (let i = 0; i < size; i++) v[i] = gaussian(rng) * std;
    }
    params[name] = tf.tensor(v, shape, "float32");
  }
  return { config: c, params };
}

export function disposeModel(m: PolicyModel): void {
  for (const t of Object.values(m.params)) t.dispose();
}

/** Deep copy (e.g. a frozen reference model for the KL term). */
export function cloneModel(m: PolicyModel): PolicyModel {
  const params: Params = {};
  for (const [k, t] of Object.entries(m.params)) params[k] = t.clone();
  return { config: { ...m.config }, params };
}

/**
 * One-hot rows as float32. (The wasm OneHot kernel ignores a float32 dtype and writes int32 bit
 * patterns — 1 reads back as 1.4e-45 — so build int32 and cast.)
 */
export function oneHotF32(ids: tf.Tensor, depth: number): tf.Tensor {
  return tf.cast(tf.oneHot(ids as tf.Tensor1D, depth), "float32");
}

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, LN_EPS))), g), b);
}

function quickGelu(x: tf.Tensor): tf.Tensor {
  return tf.mul(x, tf.sigmoid(tf.mul(x, 1.702)));
}

/** Split [N, d] into heads: [B, H, T, hd]. */
function toHeads(x: tf.Tensor, B: number, T: number, H: number): tf.Tensor4D {
  const hd = x.shape[x.shape.length - 1] / H;
  return tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3]);
}

function fromHeads(x: tf.Tensor, B: number, T: number, d: number): tf.Tensor2D {
  return tf.reshape(tf.transpose(x, [0, 2, 1, 3]), [B * T, d]);
}

/** x:[N,d] → q,k,v each [N,d]. */
function qkv(p: Params, l: number, h: tf.Tensor): tf.Tensor[] {
  const proj = tf.add(tf.matMul(h as tf.Tensor2D, p[`h${l}.attn.wqkv`] as tf.Tensor2D), p[`h${l}.attn.bqkv`]);
  return tf.split(proj, 3, 1);
}

function attend(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, bias: tf.Tensor): tf.Tensor4D {
  const scale = 1 / Math.sqrt(q.shape[3]);
  const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), scale), bias);
  return tf.matMul(tf.softmax(scores), v);
}

function mlpAndResidual(p: Params, l: number, x: tf.Tensor, attnOut: tf.Tensor): tf.Tensor2D {
  const y = tf.add(tf.matMul(attnOut as tf.Tensor2D, p[`h${l}.attn.wo`] as tf.Tensor2D), p[`h${l}.attn.bo`]);
  const x1 = tf.add(x, y);
  const h = layerNorm(x1, p[`h${l}.ln2.g`], p[`h${l}.ln2.b`]);
  const m = quickGelu(tf.add(tf.matMul(h as tf.Tensor2D, p[`h${l}.mlp.w1`] as tf.Tensor2D), p[`h${l}.mlp.b1`]));
  return tf.add(x1, tf.add(tf.matMul(m as tf.Tensor2D, p[`h${l}.mlp.w2`] as tf.Tensor2D), p[`h${l}.mlp.b2`]));
}

function head(p: Params, x: tf.Tensor): tf.Tensor2D {
  const h = layerNorm(x, p["lnf.g"], p["lnf.b"]);
  return tf.matMul(h as tf.Tensor2D, p.wte as tf.Tensor2D, false, true);
}

const causalCache = new Map<number, tf.Tensor2D>();
/** [T,T] additive causal mask: a slice of one cached [ctx,ctx] mask per context size. */
function causalBias(T: number, ctx: number): tf.Tensor2D {
  let m = causalCache.get(ctx);
  if (!m || m.isDisposed) {
    const v = new Float32Array(ctx * ctx);
    for (let i = 0; i < ctx; i++) for (let j = i + 1; j < ctx; j++) v[i * ctx + j] = MASKED;
    m = tf.keep(tf.tensor2d(v, [ctx, ctx]));
    causalCache.set(ctx, m);
  }
  return tf.slice(m, [0, 0], [T, T]);
}

/**
 * Full causal forward over right-padded rows starting at position 0 (training and scoring;
 * generation uses the equivalent JS decoder in decoder.ts).
 * ids: int32 [B,T]. Returns logits [B*T, V]. Differentiable w.r.t. `params`.
 */
export function forward(config: ModelConfig, params: Params, ids: tf.Tensor2D): tf.Tensor2D {
  const [B, T] = ids.shape;
  if (T > config.ctx) throw new Error(`sequence length ${T} exceeds context ${config.ctx}`);
  const d = config.nEmbd;
  const H = config.nHead;
  const emb = tf.matMul(
    oneHotF32(tf.reshape(ids, [B * T]), config.vocabSize) as tf.Tensor2D,
    params.wte as tf.Tensor2D,
  );
  const pos = tf.slice(params.wpe, [0, 0], [T, d]);
  let x: tf.Tensor = tf.reshape(tf.add(tf.reshape(emb, [B, T, d]), pos), [B * T, d]);
  const bias = causalBias(T, config.ctx);
  for (let l = 0; l < config.nLayer; l++) {
    const h = layerNorm(x, params[`h${l}.ln1.g`], params[`h${l}.ln1.b`]);
    const [q, k, v] = qkv(params, l, h).map((t) => toHeads(t, B, T, H));
    const a = fromHeads(attend(q, k, v, bias), B, T, d);
    x = mlpAndResidual(params, l, x, a);
  }
  return head(params, x);
}
