/**
 * Pure-JS incremental decoder with a KV cache: the same network as model.ts, evaluated one token
 * at a time on Float32Array copies of the weights.
 *
 * Why not tfjs here: a decode step is ~120 tiny ops, and on wasm each op costs ~18 µs of dispatch
 * (≈2.3 ms per token at L2/d64), while the arithmetic is only ~0.13 M multiply-adds. Plain loops do
 * the same step ~10× faster and need no padding to batch rows of different lengths. Training and
 * scoring stay on tfjs (they need gradients and large products); tests check that generation
 * log-probs reproduce tfjs scoring.
 */
import type { ModelConfig, PolicyModel } from "./model";
import { paramNames } from "./model";

const LN_EPS = 1e-5;

interface Layer {
  ln1g: Float32Array;
  ln1b: Float32Array;
  wqkv: Float32Array;
  bqkv: Float32Array;
  wo: Float32Array;
  bo: Float32Array;
  ln2g: Float32Array;
  ln2b: Float32Array;
  w1: Float32Array;
  b1: Float32Array;
  w2: Float32Array;
  b2: Float32Array;
}

/** Per-row cache: keys/values of every layer for positions 0..len-1, laid out [pos][d]. */
export interface DecoderState {
  k: Float32Array[];
  v: Float32Array[];
  len: number;
}

/**
 * out[r, j] = bias[j] + Σ_i x[r, i]·w[i, j] for `rows` rows (w row-major [nIn, nOut]). Four input
 * rows per pass over the accumulator: ~2.5× faster than one (fewer accumulator loads and stores).
 */
function linear(
  x: Float32Array,
  rows: number,
  nIn: number,
  w: Float32Array,
  bias: Float32Array,
  nOut: number,
): Float32Array {
  const out = new Float32Array(rows * nOut);
  const acc = new Float64Array(nOut);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < nOut; j++) acc[j] = bias[j];
    const xo = r * nIn;
    let i = 0;
    for (; i + 4 <= nIn; i += 4) {
      const x0 = x[xo + i],
        x1 = x[xo + i + 1],
        x2 = x[xo + i + 2],
        x3 = x[xo + i + 3];
      const w0 = i * nOut,
        w1 = w0 + nOut,
        w2 = w1 + nOut,
        w3 = w2 + nOut;
      for (let j = 0; j < nOut; j++) acc[j] += x0 * w[w0 + j] + x1 * w[w1 + j] + x2 * w[w2 + j] + x3 * w[w3 + j];
    }
    for (; i < nIn; i++) {
      const xi = x[xo + i];
      const wo = i * nOut;
      for (let j = 0; j < nOut; j++) acc[j] += xi * w[wo + j];
    }
    for (let j = 0; j < nOut; j++) out[r * nOut + j] = acc[j];
  }
  return out;
}

function layerNorm(x: Float32Array, rows: number, d: number, g: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) {
    const o = r * d;
    let mean = 0;
    for (let i = 0; i < d; i++) mean += x[o + i];
    mean /= d;
    let v = 0;
    for (let i = 0; i < d; i++) v += (x[o + i] - mean) ** 2;
    const inv = 1 / Math.sqrt(v / d + LN_EPS);
    for (let i = 0; i < d; i++) out[o + i] = (x[o + i] - mean) * inv * g[i] + b[i];
  }
  return out;
}

/** Σ_i a[ao+i]·b[bo+i], four accumulators. */
function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, n: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[ao + i] * b[bo + i];
    s1 += a[ao + i + 1] * b[bo + i + 1];
    s2 += a[ao + i + 2] * b[bo + i + 2];
    s3 += a[ao + i + 3] * b[bo + i + 3];
  }
  for (; i < n; i++) s0 += a[ao + i] * b[bo + i];
  return s0 + s1 + (s2 + s3);
}

const scratch = { scores: new Float64Array(0), out: new Float64Array(0) };

/**
 * Causal self-attention of one new query (at qkv[qo..qo+d)) over `n` cached positions of K, V
 * ([pos][d] layout), all heads; writes the d outputs at out[oo..].
 */
function attendRow(
  qkv: Float32Array,
  qo: number,
  K: Float32Array,
  V: Float32Array,
  n: number,
  d: number,
  H: number,
  out: Float32Array,
  oo: number,
): void {
  const hd = d / H;
  const scale = 1 / Math.sqrt(hd);
  if (scratch.scores.length < n) scratch.scores = new Float64Array(Math.max(n, 2 * scratch.scores.length));
  if (scratch.out.length < hd) scratch.out = new Float64Array(hd);
  const scores = scratch.scores;
  const acc = scratch.out;
  for (let h = 0; h < H; h++) {
    const ho = h * hd;
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      const sc = dot(qkv, qo + ho, K, j * d + ho, hd) * scale;
      scores[j] = sc;
      if (sc > max) max = sc;
    }
    let sum = 0;
    for (let j = 0; j < n; j++) sum += scores[j] = Math.exp(scores[j] - max);
    acc.fill(0, 0, hd);
    for (let j = 0; j < n; j++) {
      const p = scores[j] / sum;
      const vo = j * d + ho;
      for (let i = 0; i < hd; i++) acc[i] += p * V[vo + i];
    }
    for (let i = 0; i < hd; i++) out[oo + ho + i] = acc[i];
  }
}

export class Decoder {
  readonly config: ModelConfig;
  private readonly wte: Float32Array;
  private readonly wpe: Float32Array;
  private readonly layers: Layer[];
  private readonly lnfg: Float32Array;
  private readonly lnfb: Float32Array;

  constructor(model: PolicyModel) {
    const c = model.config;
    const get = (n: string) => Float32Array.from(model.params[n].dataSync() as Float32Array);
    this.config = c;
    this.wte = get("wte");
    this.wpe = get("wpe");
    this.layers = Array.from({ length: c.nLayer }, (_, l) => ({
      ln1g: get(`h${l}.ln1.g`),
      ln1b: get(`h${l}.ln1.b`),
      wqkv: get(`h${l}.attn.wqkv`),
      bqkv: get(`h${l}.attn.bqkv`),
      wo: get(`h${l}.attn.wo`),
      bo: get(`h${l}.attn.bo`),
      ln2g: get(`h${l}.ln2.g`),
      ln2b: get(`h${l}.ln2.b`),
      w1: get(`h${l}.mlp.w1`),
      b1: get(`h${l}.mlp.b1`),
      w2: get(`h${l}.mlp.w2`),
      b2: get(`h${l}.mlp.b2`),
    }));
    this.lnfg = get("lnf.g");
    this.lnfb = get("lnf.b");
  }

  newState(): DecoderState {
    const size = this.config.ctx * this.config.nEmbd;
    return {
      k: this.layers.map(() => new Float32Array(size)),
      v: this.layers.map(() => new Float32Array(size)),
      len: 0,
    };
  }

  /**
   * Append one token to each row's sequence and return the next-token logits, [rows, V] row-major.
   * Rows are independent (each at its own position); weights are streamed once for all rows.
   */
  step(states: readonly DecoderState[], tokens: readonly number[]): Float32Array {
    return this.append(states.map((state, r) => ({ state, tokens: [tokens[r]] })));
  }

  /**
   * Append a whole prompt to one row and return the logits after its last token. Same arithmetic as one
   * `step` per token, but every matrix product runs over all the prompt's positions at once.
   */
  prefill(state: DecoderState, tokens: readonly number[]): Float32Array {
    if (tokens.length === 0) throw new Error("prefill needs at least one token");
    return this.append([{ state, tokens }]);
  }

  /** Append `tokens` to each row's cache; the logits after each row's last token, [rows, V]. */
  private append(rows: ReadonlyArray<{ state: DecoderState; tokens: readonly number[] }>): Float32Array {
    const { nEmbd: d, nHead: H, vocabSize: V, ctx } = this.config;
    // One flat position per appended token: its row's cache and its position in it.
    const flat = rows.flatMap(({ state, tokens }) => tokens.map((token, i) => ({ state, token, pos: state.len + i })));
    const N = flat.length;
    let x = new Float32Array(N * d);
    flat.forEach(({ token, pos }, f) => {
      if (pos >= ctx) throw new Error(`context ${ctx} exhausted`);
      for (let i = 0; i < d; i++) x[f * d + i] = this.wte[token * d + i] + this.wpe[pos * d + i];
    });
    for (let l = 0; l < this.layers.length; l++) {
      const L = this.layers[l];
      const qkv = linear(layerNorm(x, N, d, L.ln1g, L.ln1b), N, d, L.wqkv, L.bqkv, 3 * d);
      // Cache every new key and value first: a position attends to the earlier new ones of its row.
      flat.forEach(({ state, pos }, f) => {
        state.k[l].set(qkv.subarray(f * 3 * d + d, f * 3 * d + 2 * d), pos * d);
        state.v[l].set(qkv.subarray(f * 3 * d + 2 * d, f * 3 * d + 3 * d), pos * d);
      });
      const att = new Float32Array(N * d);
      flat.forEach(({ state, pos }, f) => attendRow(qkv, f * 3 * d, state.k[l], state.v[l], pos + 1, d, H, att, f * d));
      const y = linear(att, N, d, L.wo, L.bo, d);
      for (let i = 0; i < x.length; i++) x[i] += y[i];
      const m = linear(layerNorm(x, N, d, L.ln2g, L.ln2b), N, d, L.w1, L.b1, 4 * d);
      for (let i = 0; i < m.length; i++) m[i] = m[i] / (1 + Math.exp(-1.702 * m[i])); // quick-GELU
      const z = linear(m, N, 4 * d, L.w2, L.b2, d);
      const next = new Float32Array(x.length);
      for (let i = 0; i < x.length; i++) next[i] = x[i] + z[i];
      x = next;
    }
    // Only each row's last position needs logits (the head is a sixth of a step's arithmetic at d 64).
    const R = rows.length;
    const last = new Float32Array(R * d);
    let f = 0;
    rows.forEach(({ state, tokens }, r) => {
      f += tokens.length;
      last.set(x.subarray((f - 1) * d, f * d), r * d);
      state.len += tokens.length;
    });
    const h = layerNorm(last, R, d, this.lnfg, this.lnfb);
    const wte = this.wte;
    const logits = new Float32Array(R * V);
    for (let r = 0; r < R; r++) {
      const ho = r * d;
      for (let v = 0; v < V; v++) logits[r * V + v] = dot(h, ho, wte, v * d, d);
    }
    return logits;
  }
}

// Generations on the same (unchanged) weights share one decoder; the cache entry is keyed on the
// parameter tensors themselves, which training replaces on every update.
const cache = new WeakMap<PolicyModel, { tensors: unknown[]; decoder: Decoder }>();

export function decoderFor(model: PolicyModel): Decoder {
  const tensors = paramNames(model.config).map((n) => model.params[n]);
  const hit = cache.get(model);
  if (hit && hit.tensors.every((t, i) => t === tensors[i])) return hit.decoder;
  const decoder = new Decoder(model);
  cache.set(model, { tensors, decoder });
  return decoder;
}
