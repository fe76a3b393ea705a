/**
 * KV-cache generation with temperature / top-p sampling and a seedable RNG, streaming per token.
 *
 * The log-prob reported for each token is log π(token | context) under the model itself —
 * temperature 1, no top-p truncation — i.e. exactly what scoring and training recompute, so a
 * sample's behaviour log-probs are comparable with its old/teacher log-probs. (Sampling still
 * uses the requested temperature/top-p.)
 *
 * The forward pass runs in plain JS (decoder.ts; ~10× faster than tfjs for one token at a time).
 * Several prompts can be generated together; each row draws from its own RNG stream
 * `rowSeed(seed, row)`, so a row of a batch is exactly a single generation seeded with that seed.
 */
import { z } from "zod";
import { decoderFor } from "./decoder";
import type { PolicyModel } from "./model";
import { mulberry32 } from "./rng";
import { createStreamDecoder, END_ID } from "./tokenizer";

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

export function rowSeed(seed: number, row: number): number {
  return (seed + Math.imul(row, 0x9e3779b1)) >>> 0;
}

/** Log-softmax in float64 of one row of logits. */
function logSoftmax(logits: Float32Array): Float64Array {
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  const lse = max + Math.log(sum);
  return Float64Array.from(logits, (x) => x - lse);
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
export function fitPrompt(
  promptIds: readonly number[],
  ctx: number,
  maxTokens: number,
): { prompt: number[]; maxTokens: number } {
  if (promptIds.length === 0) throw new Error("empty prompt");
  const reserve = Math.max(1, Math.min(maxTokens, Math.floor(ctx / 2)));
  const keep = Math.min(promptIds.length, ctx - reserve);
  return { prompt: promptIds.slice(promptIds.length - keep), maxTokens: Math.min(maxTokens, ctx - keep) };
}

/**
 * Core generator: yields every sampled token of every row as it is produced and returns one result
 * per prompt. Rows are independent (each has its own KV cache and position), so a row of a batch is
 * computed exactly as a single generation would be.
 */
export async function* generateEvents(
  model: PolicyModel,
  prompts: ReadonlyArray<readonly number[]>,
  options: SampleOptions = {},
): AsyncGenerator<TokenEvent, GenerationResult[]> {
  const opts = sampleOptionsSchema.parse(options);
  const decoder = decoderFor(model);
  const V = model.config.vocabSize;
  const fitted = prompts.map((p) => fitPrompt(p, model.config.ctx, opts.maxTokens));
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rows = fitted.map((f, r) => ({
    state: decoder.newState(),
    rng: mulberry32(rowSeed(seed, r)),
    text: createStreamDecoder(),
    maxTokens: f.maxTokens,
    logits: new Float32Array(0) as Float32Array<ArrayBufferLike>,
    result: { tokenIds: [], logprobs: [], text: "", finishReason: "length", promptIds: f.prompt } as GenerationResult,
  }));
  const stop = new Set(opts.stopIds);

  // Prefill row by row (prompts differ in length), yielding between rows.
  for (const row of rows) {
    row.logits = decoder.prefill(row.state, row.result.promptIds);
    await yieldToEventLoop();
  }
  let active = rows.map((_, r) => r);
  while (active.length) {
    const next: number[] = [];
    for (const r of active) {
      const row = rows[r];
      const logp = logSoftmax(row.logits);
      const tok = sampleToken(logp, opts.temperature, opts.topP, row.rng);
      const res = row.result;
      res.tokenIds.push(tok);
      res.logprobs.push(logp[tok]);
      let text = row.text.push(tok);
      const isStop = stop.has(tok);
      if (isStop || res.tokenIds.length >= row.maxTokens) {
        // A reply cut by max tokens inside a multi-byte character would end in "�" (the decoder's flush of the
        // incomplete bytes): it ends before that character instead. The token ids keep every byte.
        text += row.text.flush().replace(/\uFFFD$/u, "");
        res.finishReason = isStop ? "stop" : "length";
      } else next.push(r);
      res.text += text;
      yield { row: r, index: res.tokenIds.length - 1, tokenId: tok, text, logprob: logp[tok] };
    }
    active = next;
    if (!active.length) break;
    await yieldToEventLoop();
    const logits = decoder.step(
      active.map((r) => rows[r].state),
      active.map((r) => rows[r].result.tokenIds.at(-1) as number),
    );
    active.forEach((r, i) => (rows[r].logits = logits.subarray(i * V, (i + 1) * V)));
  }
  return rows.map((r) => r.result);
}

/** Streaming generation of one prompt: an async iterator of tokens whose return value is the result. */
export async function* generateStream(
  model: PolicyModel,
  promptIds: readonly number[],
  options: SampleOptions = {},
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
  model: PolicyModel,
  promptIds: readonly number[],
  options: SampleOptions & { onToken?: (ev: TokenEvent) => void } = {},
): Promise<GenerationResult> {
  const { onToken, ...opts } = options;
  return drain(generateStream(model, promptIds, opts), onToken);
}

export function generateBatch(
  model: PolicyModel,
  prompts: ReadonlyArray<readonly number[]>,
  options: SampleOptions & { onToken?: (ev: TokenEvent) => void } = {},
): Promise<GenerationResult[]> {
  const { onToken, ...opts } = options;
  return drain(generateEvents(model, prompts, opts), onToken);
}
