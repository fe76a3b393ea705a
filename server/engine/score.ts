/**
 * Log-probabilities of given response ids under a given prompt (behaviour/old and teacher
 * log-probs). Uses the same forward and the same log-softmax as training, so a recomputed "old"
 * log-prob matches the training-time one.
 */
import * as tf from "@tensorflow/tfjs-core";
import { forward, oneHotF32, type PolicyModel } from "./model";
import { PAD_ID } from "./tokenizer";

export interface ScoreItem {
  promptIds: readonly number[];
  responseIds: readonly number[];
}

/**
 * A batch laid out for one forward pass: row i holds prompt+response (right-padded with PAD);
 * position t predicts token t+1, so response token j of row i is predicted at P_i - 1 + j.
 * When prompt+response exceeds the context, the prompt is cut from the left (the response never is).
 */
export interface PackedBatch {
  ids: Int32Array; // [B, T]
  targets: Int32Array; // [B, T-1]
  mask: Float32Array; // [B, T-1], 1 on response tokens
  B: number;
  T: number;
  /** per row: offset of the first response target in the row, and response length */
  spans: Array<{ start: number; length: number }>;
  promptTokens: number;
}

export function packBatch(items: readonly ScoreItem[], ctx: number): PackedBatch {
  const rows = items.map(({ promptIds, responseIds }) => {
    if (responseIds.length === 0) throw new Error("empty response");
    if (responseIds.length >= ctx)
      throw new Error(`response of ${responseIds.length} tokens does not fit context ${ctx}`);
    const keep = Math.min(promptIds.length, ctx - responseIds.length);
    if (keep < 1) throw new Error("prompt must keep at least one token");
    return { prompt: promptIds.slice(promptIds.length - keep), response: responseIds };
  });
  const B = rows.length;
  const T = Math.max(...rows.map((r) => r.prompt.length + r.response.length));
  const ids = new Int32Array(B * T).fill(PAD_ID);
  const targets = new Int32Array(B * (T - 1)).fill(PAD_ID);
  const mask = new Float32Array(B * (T - 1));
  const spans: PackedBatch["spans"] = [];
  let promptTokens = 0;
  rows.forEach((r, i) => {
    const seq = [...r.prompt, ...r.response];
    ids.set(seq, i * T);
    for (let t = 0; t + 1 < seq.length; t++) targets[i * (T - 1) + t] = seq[t + 1];
    const start = r.prompt.length - 1;
    for (let j = 0; j < r.response.length; j++) mask[i * (T - 1) + start + j] = 1;
    spans.push({ start, length: r.response.length });
    promptTokens += r.prompt.length;
  });
  return { ids, targets, mask, B, T, spans, promptTokens };
}

/**
 * Token log-probs and entropies from logits [B*T, V] of a packed batch: returns [B, T-1] tensors
 * (positions predicting the next token; the last column of each row is dropped), and with `withVocab`
 * the log-probs over the whole vocabulary, [B, T-1, V].
 */
export function tokenLogprobs(
  logits: tf.Tensor2D,
  batch: PackedBatch,
  withEntropy: boolean,
  withVocab = false,
): { logprobs: tf.Tensor2D; entropy: tf.Tensor2D | null; vocab: tf.Tensor3D | null } {
  const { B, T } = batch;
  const V = logits.shape[1];
  const lsm = tf.slice(tf.reshape(tf.logSoftmax(logits), [B, T, V]), [0, 0, 0], [B, T - 1, V]);
  const targets = tf.tensor2d(batch.targets, [B, T - 1], "int32");
  const logprobs = tf.sum(tf.mul(lsm, oneHotF32(targets, V)), -1) as tf.Tensor2D;
  const entropy = withEntropy ? (tf.neg(tf.sum(tf.mul(tf.exp(lsm), lsm), -1)) as tf.Tensor2D) : null;
  return { logprobs, entropy, vocab: withVocab ? (lsm as tf.Tensor3D) : null };
}

/**
 * `model`'s log-probs over the vocabulary for some rows of `batch`, each scored on a prompt of its own (e.g. the
 * hinted teacher's) with the row's response, laid out at that row's response positions of `batch`:
 * [B*(T-1)*V], zeros on every other row and position. Plain data: no gradient.
 */
export function vocabLogprobsAt(
  model: PolicyModel,
  batch: PackedBatch,
  rows: ReadonlyArray<{ row: number; promptIds: readonly number[]; responseIds: readonly number[] }>,
): Float32Array {
  const V = model.config.vocabSize;
  const W = batch.T - 1;
  const out = new Float32Array(batch.B * W * V);
  if (!rows.length) return out;
  const own = packBatch(rows, model.config.ctx);
  const flat = tf.tidy(() => {
    const ids = tf.tensor2d(own.ids, [own.B, own.T], "int32");
    return tokenLogprobs(forward(model.config, model.params, ids), own, false, true).vocab!.dataSync();
  });
  const OW = own.T - 1;
  rows.forEach((r, j) => {
    const src = own.spans[j];
    const dst = batch.spans[r.row];
    out.set(
      flat.subarray((j * OW + src.start) * V, (j * OW + src.start + src.length) * V),
      (r.row * W + dst.start) * V,
    );
  });
  return out;
}

/** Per-item response log-probs, computed in micro-batches of `microBatch` rows. */
export function scoreBatch(model: PolicyModel, items: readonly ScoreItem[], microBatch = 8): number[][] {
  const out: number[][] = [];
  for (let s = 0; s < items.length; s += microBatch) {
    const batch = packBatch(items.slice(s, s + microBatch), model.config.ctx);
    const flat = tf.tidy(() => {
      const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
      return tokenLogprobs(forward(model.config, model.params, ids), batch, false).logprobs.dataSync();
    });
    const W = batch.T - 1;
    batch.spans.forEach(({ start, length }, i) =>
      out.push(Array.from(flat.subarray(i * W + start, i * W + start + length))),
    );
  }
  return out;
}

export function scoreResponse(
  model: PolicyModel,
  promptIds: readonly number[],
  responseIds: readonly number[],
): number[] {
  return scoreBatch(model, [{ promptIds, responseIds }])[0];
}
