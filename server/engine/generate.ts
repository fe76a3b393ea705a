/**
 * KV-cache generation with temperature / top-p sampling and a seedable RNG, streaming per token.
 *
 * The log-prob reported for each token is log π(token | context) under the model itself —
 * temperature 1, no top-p truncation — i.e. exactly what scoring and training recompute, so a
 * sample's behaviour log-probs are comparable with its old/teacher log-probs. (Sampling still
 * uses the requested temperature/top-p.)
 *
 * Several prompts can be generated together (left-padded, with padded keys masked out); each row
 * draws from its own RNG stream `rowSeed(seed, row)`, so a row of a batch samples the same way as a
 * single generation seeded with that row's seed.
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { disposeCache, forwardCached, type KVCache, type PolicyModel } from "./model";
import { mulberry32 } from "./rng";
import { createStreamDecoder, END_ID, PAD_ID } from "./tokenizer";

export const sampleOptionsSchema = z.object({
  maxTokens: z.number().int().positive().default(128),
  /** 0 = greedy */
  temperature: z.number().min(0).default(1),
  topP: z.number().gt(0).max(1).default(1),
  seed: z.number().int().optional(),
  stopIds: z.array(z.number().int()).default([END_ID]),
});
export type SampleOptions = z.input<typeof sampleOptionsSchema>;

export interface TokenEvent {
  /** which prompt of the batch this token belongs to */
  row: number;
  /** index of the token within its response */
  index: number;
  tokenId: number;
  /** text this token completes ("" for specials and partial UTF-8 characters) */
  text: string;
  logprob: number;
}

export type FinishReason = "stop" | "length";

export interface GenerationResult {
  /** response ids, including the stop token when finishReason is "stop" */
  tokenIds: number[];
  logprobs: number[];
  /** decoded response text without special tokens */
  text: string;
  finishReason: FinishReason;
  /** the prompt actually used (after left truncation to fit the context) */
  promptIds: number[];
}

const MASKED = -1e9;

export function rowSeed(seed: number, row: number): number {
  return (seed + Math.imul(row, 0x9e3779b1)) >>> 0;
}

/** Log-softmax in float64 of one row of logits. */
function logSoftmaxRow(logits: Float32Array, off: number, V: number): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logits[off + i]);
  let sum = 0;
  for (let i = 0; i < V; i++) sum += Math.exp(logits[off + i] - max);
  const lse = max + Math.log(sum);
  const out = new Float64Array(V);
  for (let i = 0; i < V; i++) out[i] = logits[off + i] - lse;
  return out;
}

/** Draw a token id from log-probs with temperature and nucleus (top-p) truncation. */
export function sampleToken(logp: Float64Array, temperature: number, topP: number, rng: () => number): number {
  const V = logp.length;
  if (temperature === 0) {
    let best = 0;
    for (let i = 1; i < V; i++) if (logp[i] > logp[best]) best = i;
    return best;
  }
  const w = new Float64Array(V);
  let max = -Infinity;
  for (let i = 0; i < V; i++) max = Math.max(max, logp[i] / temperature);
  let total = 0;
  for (let i = 0; i < V; i++) total += w[i] = Math.exp(logp[i] / temperature - max);
  let order: number[] = Array.from({ length: V }, (_, i) => i);
  if (topP < 1) {
    order.sort((a, b) => w[b] - w[a] || a - b);
    let acc = 0;
    let keep = 0;
    while (keep < V && acc < topP * total) acc += w[order[keep++]];
    order = order.slice(0, Math.max(1, keep));
    total = acc;
  }
  let u = rng() * total;
  for (const i of order) {
    u -= w[i];
    if (u <= 0) return i;
  }
  return order[order.length - 1];
}

/** Yield to the event loop so a serving process stays responsive between decode steps. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Fit prompt + response into the context: the prompt is cut from the left only as far as needed to
 * leave room for min(maxTokens, ctx/2) new tokens, and maxTokens shrinks to whatever room remains.
 */
export function fitPrompt(promptIds: readonly number[], ctx: number, maxTokens: number): { prompt: number[]; maxTokens: number } {
  if (promptIds.length === 0) throw new Error("empty prompt");
  const reserve = Math.max(1, Math.min(maxTokens, Math.floor(ctx / 2)));
  const keep = Math.min(promptIds.length, ctx - reserve);
  return { prompt: promptIds.slice(promptIds.length - keep), maxTokens: Math.min(maxTokens, ctx - keep) };
}

/**
 * Core generator: yields every sampled token of every row as it is produced and returns one result
 * per prompt. Breaking out of the iteration early frees the cache.
 */
export async function* generateEvents(
  model: PolicyModel, prompts: ReadonlyArray<readonly number[]>, options: SampleOptions = {},
): AsyncGenerator<TokenEvent, GenerationResult[]> {
  const opts = sampleOptionsSchema.parse(options);
  const ctx = model.config.ctx;
  const B = prompts.length;
  if (B === 0) return [];
  const fitted = prompts.map((p) => fitPrompt(p, ctx, opts.maxTokens));
  const P = Math.max(...fitted.map((f) => f.prompt.length));
  const pad = fitted.map((f) => P - f.prompt.length);
  const maxTokens = Math.min(...fitted.map((f) => f.maxTokens), ctx - P);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rngs = fitted.map((_, r) => mulberry32(rowSeed(seed, r)));
  const decoders = fitted.map(() => createStreamDecoder());
  const stop = new Set(opts.stopIds);
  const results: GenerationResult[] = fitted.map((f) => ({ tokenIds: [], logprobs: [], text: "", finishReason: "length", promptIds: f.prompt }));
  const done = new Array<boolean>(B).fill(false);
  const V = model.config.vocabSize;

  // Prefill: left-padded prompts, causal mask plus masked padding keys.
  const ids = new Int32Array(B * P).fill(PAD_ID);
  const pos = new Int32Array(B * P);
  const bias = new Float32Array(B * P * P);
  for (let r = 0; r < B; r++) {
    ids.set(fitted[r].prompt, r * P + pad[r]);
    for (let i = 0; i < P; i++) {
      pos[r * P + i] = Math.max(0, i - pad[r]);
      for (let j = 0; j < P; j++) if (j > i || j < pad[r]) bias[(r * P + i) * P + j] = MASKED;
    }
  }
  let cache: KVCache | null = null;
  let logits: tf.Tensor2D | null = null;
  try {
    ({ logits, cache } = forwardCached(model, B, P, ids, pos, bias, null));
    for (let step = 0; ; step++) {
      const lv = (logits as tf.Tensor2D).dataSync() as Float32Array;
      const next = new Int32Array(B).fill(PAD_ID);
      for (let r = 0; r < B; r++) {
        if (done[r]) continue;
        const logp = logSoftmaxRow(lv, r * V, V);
        const tok = sampleToken(logp, opts.temperature, opts.topP, rngs[r]);
        const res = results[r];
        res.tokenIds.push(tok);
        res.logprobs.push(logp[tok]);
        next[r] = tok;
        const isStop = stop.has(tok);
        let text = decoders[r].push(tok);
        if (isStop || res.tokenIds.length >= maxTokens) {
          text += decoders[r].flush();
          done[r] = true;
          res.finishReason = isStop ? "stop" : "length";
        }
        res.text += text;
        yield { row: r, index: res.tokenIds.length - 1, tokenId: tok, text, logprob: logp[tok] };
      }
      if (done.every(Boolean)) break;
      await yieldToEventLoop();
      const S = P + step + 1; // keys after appending this step's token
      const stepPos = new Int32Array(B);
      const stepBias = new Float32Array(B * S);
      for (let r = 0; r < B; r++) {
        stepPos[r] = S - 1 - pad[r];
        for (let j = 0; j < pad[r]; j++) stepBias[r * S + j] = MASKED;
      }
      const prev = cache;
      const prevLogits = logits;
      ({ logits, cache } = forwardCached(model, B, 1, next, stepPos, stepBias, prev));
      disposeCache(prev);
      prevLogits?.dispose();
    }
  } finally {
    disposeCache(cache);
    logits?.dispose();
  }
  return results;
}

/** Streaming generation of one prompt: an async iterator of tokens whose return value is the result. */
export async function* generateStream(
  model: PolicyModel, promptIds: readonly number[], options: SampleOptions = {},
): AsyncGenerator<TokenEvent, GenerationResult> {
  const results = yield* generateEvents(model, [promptIds], options);
  return results[0];
}

/** Drain a generator, forwarding tokens to an optional callback; resolves to its return value. */
async function drain<T>(gen: AsyncGenerator<TokenEvent, T>, onToken?: (ev: TokenEvent) => void): Promise<T> {
  let finished = false;
  try {
    for (;;) {
      const it = await gen.next();
      if (it.done) {
        finished = true;
        return it.value;
      }
      onToken?.(it.value);
    }
  } finally {
    // A throwing onToken must still free the KV cache.
    if (!finished) await gen.return(undefined as never);
  }
}

export function generate(
  model: PolicyModel, promptIds: readonly number[], options: SampleOptions & { onToken?: (ev: TokenEvent) => void } = {},
): Promise<GenerationResult> {
  const { onToken, ...opts } = options;
  return drain(generateStream(model, promptIds, opts), onToken);
}

export function generateBatch(
  model: PolicyModel, prompts: ReadonlyArray<readonly number[]>, options: SampleOptions & { onToken?: (ev: TokenEvent) => void } = {},
): Promise<GenerationResult[]> {
  const { onToken, ...opts } = options;
  return drain(generateEvents(model, prompts, opts), onToken);
}
