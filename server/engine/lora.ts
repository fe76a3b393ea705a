/**
 * LoRA adapters for the embedded model: one small adapter per user on a shared, frozen base.
 *
 * An adapter holds, per target projection W (stored here as [in, out], since the model computes x·W),
 * a low-rank pair in PEFT's layout: A [r, in] and B [out, r]. The adapted projection is
 *   y = x·W + (α/r) · (x·Aᵀ)·Bᵀ
 * B starts at zero, so a fresh adapter reproduces the base exactly. The same pair exported as PEFT's
 * `lora_A.weight` / `lora_B.weight` is what SGLang and vLLM load (see server/proxy/upstreams/lora.ts).
 *
 * Two ways to apply it: `loraLinear` for one projection (unmerged: the base product plus the low-rank
 * path, what a multi-adapter server does per request), and `adaptedParams`, which returns the model's
 * parameter record with each target replaced by W + (α/r)·Aᵀ·Bᵀ so the unchanged `forward` runs the
 * adapted model. Both are differentiable with respect to A and B; the base tensors are only read.
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import type { ModelConfig, Params } from "./model";
import { paramShapes } from "./model";
import { mulberry32 } from "./rng";

export interface LoraPair {
  /** [r, in] */
  A: tf.Tensor2D;
  /** [out, r] */
  B: tf.Tensor2D;
}

export interface LoraAdapter {
  rank: number;
  alpha: number;
  /** Target parameter name (e.g. `h0.attn.wqkv`) → its pair. Insertion order is the canonical order. */
  pairs: Map<string, LoraPair>;
}

/** Projections an adapter may target: the 2-D weights of each block (not the embeddings). */
const TARGETABLE = /^h\d+\.(attn\.wqkv|attn\.wo|mlp\.w1|mlp\.w2)$/;

/** PEFT's common default on attention: the fused q/k/v projection and the output projection. */
export function defaultTargets(config: ModelConfig): string[] {
  return Array.from({ length: config.nLayer }, (_, l) => [`h${l}.attn.wqkv`, `h${l}.attn.wo`]).flat();
}

/** Attention and MLP projections of every block. */
export function attentionAndMlpTargets(config: ModelConfig): string[] {
  return Array.from({ length: config.nLayer }, (_, l) => [
    `h${l}.attn.wqkv`,
    `h${l}.attn.wo`,
    `h${l}.mlp.w1`,
    `h${l}.mlp.w2`,
  ]).flat();
}

export function loraScale(adapter: Pick<LoraAdapter, "rank" | "alpha">): number {
  return adapter.alpha / adapter.rank;
}

export const loraOptionsSchema = z.object({
  rank: z.number().int().min(1).max(256),
  alpha: z.number().positive().finite(),
  targets: z.array(z.string().regex(TARGETABLE)).min(1),
});
export type LoraOptions = z.infer<typeof loraOptionsSchema>;

/** [in, out] of each targetable weight of this model. */
function targetDims(config: ModelConfig): Map<string, [number, number]> {
  const dims = new Map<string, [number, number]>();
  for (const [name, shape] of paramShapes(config)) if (TARGETABLE.test(name)) dims.set(name, [shape[0], shape[1]]);
  return dims;
}

/**
 * A fresh adapter: A ~ U(−1/√in, 1/√in) (PEFT's kaiming-uniform with a=√5 gives this bound), B = 0.
 * Seeded, so the same user and seed give the same adapter.
 */
export function createAdapter(config: ModelConfig, options: LoraOptions, seed: number): LoraAdapter {
  const o = loraOptionsSchema.parse(options);
  const dims = targetDims(config);
  const rng = mulberry32(seed);
  const pairs = new Map<string, LoraPair>();
  for (const name of o.targets) {
    const d = dims.get(name);
    if (!d) throw new Error(`no projection ${name} in this model`);
    if (pairs.has(name)) throw new Error(`target ${name} given twice`);
    const [inDim, outDim] = d;
    const bound = 1 / Math.sqrt(inDim);
    const a = Float32Array.from({ length: o.rank * inDim }, () => (rng() * 2 - 1) * bound);
    pairs.set(name, {
      A: tf.tensor2d(a, [o.rank, inDim]),
      B: tf.zeros([outDim, o.rank], "float32") as tf.Tensor2D,
    });
  }
  return { rank: o.rank, alpha: o.alpha, pairs };
}

export function disposeAdapter(adapter: LoraAdapter): void {
  for (const { A, B } of adapter.pairs.values()) {
    A.dispose();
    B.dispose();
  }
}

/** x [N, in] through one adapted projection W [in, out]: x·W + scale·(x·Aᵀ)·Bᵀ (+ bias). */
export function loraLinear(
  x: tf.Tensor2D,
  W: tf.Tensor2D,
  pair: LoraPair,
  scale: number,
  bias?: tf.Tensor,
): tf.Tensor2D {
  const base = tf.matMul(x, W);
  const low = tf.matMul(tf.matMul(x, pair.A, false, true), pair.B, false, true);
  const y = tf.add(base, tf.mul(low, scale)) as tf.Tensor2D;
  return bias ? (tf.add(y, bias) as tf.Tensor2D) : y;
}

/** The delta (α/r)·Aᵀ·Bᵀ in the model's [in, out] layout. */
export function loraDelta(pair: LoraPair, scale: number): tf.Tensor2D {
  return tf.mul(tf.matMul(pair.A, pair.B, true, true), scale) as tf.Tensor2D;
}

/**
 * The parameter record with each target replaced by W + delta; other entries are the base tensors
 * themselves (shared, not copied). New tensors are created for the targets only: call inside tf.tidy
 * or dispose them (`disposeAdapted`).
 */
export function adaptedParams(base: Params, adapter: LoraAdapter): Params {
  const scale = loraScale(adapter);
  const out: Params = { ...base };
  for (const [name, pair] of adapter.pairs) {
    const W = base[name];
    if (!W) throw new Error(`base has no parameter ${name}`);
    out[name] = tf.add(W, loraDelta(pair, scale));
  }
  return out;
}

/** Dispose the merged targets made by `adaptedParams` (never the shared base tensors). */
export function disposeAdapted(adapted: Params, adapter: LoraAdapter): void {
  for (const name of adapter.pairs.keys()) adapted[name].dispose();
}

export interface AdapterGrads {
  value: number;
  grads: Map<string, LoraPair>;
}

/**
 * Value and gradients of `loss(adaptedParams(base, adapter))` with respect to every A and B, and
 * nothing else: the base tensors are closed over, not differentiated, so they stay frozen.
 */
export function adapterGrads(base: Params, adapter: LoraAdapter, loss: (params: Params) => tf.Scalar): AdapterGrads {
  const names = [...adapter.pairs.keys()];
  const flat = names.flatMap((n) => {
    const p = adapter.pairs.get(n)!;
    return [p.A, p.B];
  });
  const { value, grads } = tf.tidy(() => {
    const f = (...xs: tf.Tensor[]): tf.Scalar => {
      const pairs = new Map<string, LoraPair>();
      names.forEach((n, i) => pairs.set(n, { A: xs[2 * i] as tf.Tensor2D, B: xs[2 * i + 1] as tf.Tensor2D }));
      return loss(adaptedParams(base, { ...adapter, pairs }));
    };
    return tf.valueAndGrads(f)(flat);
  });
  const v = value.dataSync()[0];
  value.dispose();
  const out = new Map<string, LoraPair>();
  names.forEach((n, i) => out.set(n, { A: grads[2 * i] as tf.Tensor2D, B: grads[2 * i + 1] as tf.Tensor2D }));
  return { value: v, grads: out };
}

/** Plain SGD on the adapter: returns a new adapter (the old one and the base are left as they are). */
export function sgdStep(adapter: LoraAdapter, grads: Map<string, LoraPair>, lr: number): LoraAdapter {
  const pairs = new Map<string, LoraPair>();
  for (const [name, p] of adapter.pairs) {
    const g = grads.get(name);
    if (!g) throw new Error(`no gradient for ${name}`);
    pairs.set(name, {
      A: tf.tidy(() => tf.sub(p.A, tf.mul(g.A, lr))) as tf.Tensor2D,
      B: tf.tidy(() => tf.sub(p.B, tf.mul(g.B, lr))) as tf.Tensor2D,
    });
  }
  return { rank: adapter.rank, alpha: adapter.alpha, pairs };
}

// ---- Serialisation: a small self-describing blob per user ----
//
// "OCLORA1\n" · u32 LE header length · JSON header · float32 LE data (per target in header order: A then B).

const MAGIC = "OCLORA1\n";

const headerSchema = z.object({
  rank: z.number().int().min(1).max(256),
  alpha: z.number().positive().finite(),
  targets: z
    .array(
      z.object({
        name: z.string().regex(TARGETABLE),
        in: z.number().int().positive(),
        out: z.number().int().positive(),
      }),
    )
    .min(1),
});

export function serializeAdapter(adapter: LoraAdapter): Uint8Array {
  const targets = [...adapter.pairs].map(([name, p]) => ({ name, in: p.A.shape[1], out: p.B.shape[0] }));
  const header = new TextEncoder().encode(JSON.stringify({ rank: adapter.rank, alpha: adapter.alpha, targets }));
  const floats = targets.reduce((s, t) => s + adapter.rank * (t.in + t.out), 0);
  const buf = new Uint8Array(MAGIC.length + 4 + header.length + floats * 4);
  const view = new DataView(buf.buffer);
  buf.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(MAGIC.length, header.length, true);
  buf.set(header, MAGIC.length + 4);
  let off = MAGIC.length + 4 + header.length;
  for (const p of adapter.pairs.values()) {
    for (const t of [p.A, p.B]) {
      for (const v of t.dataSync()) {
        view.setFloat32(off, v, true);
        off += 4;
      }
    }
  }
  return buf;
}

/** Inverse of `serializeAdapter`; checks the header against `config` when given. */
export function deserializeAdapter(bytes: Uint8Array, config?: ModelConfig): LoraAdapter {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < MAGIC.length + 4 || new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) {
    throw new Error("not a LoRA adapter blob");
  }
  const hLen = view.getUint32(MAGIC.length, true);
  const start = MAGIC.length + 4 + hLen;
  if (start > bytes.length) throw new Error("truncated adapter header");
  const header = headerSchema.parse(JSON.parse(new TextDecoder().decode(bytes.subarray(MAGIC.length + 4, start))));
  const floats = header.targets.reduce((s, t) => s + header.rank * (t.in + t.out), 0);
  if (bytes.length !== start + floats * 4)
    throw new Error(`adapter data is ${bytes.length - start} bytes, expected ${floats * 4}`);
  const dims = config ? targetDims(config) : null;
  let off = start;
  const read = (n: number): Float32Array => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++, off += 4) a[i] = view.getFloat32(off, true);
    return a;
  };
  const pairs = new Map<string, LoraPair>();
  for (const t of header.targets) {
    const d = dims?.get(t.name);
    if (dims && (!d || d[0] !== t.in || d[1] !== t.out))
      throw new Error(`adapter target ${t.name} does not fit the model`);
    if (pairs.has(t.name)) throw new Error(`target ${t.name} given twice`);
    const A = tf.tensor2d(read(header.rank * t.in), [header.rank, t.in]);
    const B = tf.tensor2d(read(t.out * header.rank), [t.out, header.rank]);
    pairs.set(t.name, { A, B });
  }
  return { rank: header.rank, alpha: header.alpha, pairs };
}
