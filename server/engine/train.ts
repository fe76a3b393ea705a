/**
 * One optimizer step over a batch of samples: micro-batched forward/backward with gradient
 * accumulation, global-norm clipping, Adam(W). The event loop is yielded between micro-batches so a
 * process that also serves requests stays responsive.
 *
 * π_old follows the reference by default (`oldLogprobs: "recompute"`): the current weights
 * recompute the log-probs before the update, and the rollout (behaviour) log-probs only feed the
 * `train/train_rollout_logprob_abs_diff` metric. `"rollout"` trains against the sample's own
 * `oldLogprobs` (like slime's --use-rollout-logprobs), which makes the PPO ratio see staleness; it
 * is also what a caller uses for further inner epochs on the same batch.
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { yieldToEventLoop } from "./generate";
import {
  computeAdvantages, customPolicyLoss, lossHyperSchema, policyLoss, type CustomLossFn, type PolicyLossInputs,
} from "./losses";
import { forward, paramNames, type Params, type PolicyModel } from "./model";
import { globalNorm, type Adam } from "./optimizer";
import { packBatch, scoreBatch, tokenLogprobs, type PackedBatch } from "./score";

const ids = z.array(z.number().int().min(0));

export const trainSampleSchema = z
  .object({
    promptIds: ids.min(1),
    responseIds: ids.min(1),
    oldLogprobs: z.array(z.number()),
    reward: z.number(),
    teacherLogprobs: z.array(z.number()).optional(),
    kind: z.enum(["RL", "OPD", "BOTH"]),
    /** per-sample loss weight (importance weight for stale samples); default 1 */
    weight: z.number().min(0).optional(),
  })
  .refine((s) => s.oldLogprobs.length === s.responseIds.length, { message: "oldLogprobs must match responseIds" })
  .refine((s) => !s.teacherLogprobs || s.teacherLogprobs.length === s.responseIds.length, {
    message: "teacherLogprobs must match responseIds",
  });
export type TrainSample = z.input<typeof trainSampleSchema>;

export const trainHyperSchema = lossHyperSchema.extend({
  /** overrides the optimizer's learning rate for this step */
  lr: z.number().positive().optional(),
  /** global-norm gradient clip; 0 disables */
  gradClip: z.number().min(0).default(1),
  microBatchSize: z.number().int().positive().default(8),
  oldLogprobs: z.enum(["recompute", "rollout"]).default("recompute"),
});
export type TrainHyper = z.input<typeof trainHyperSchema>;

export interface TrainOptions {
  /** frozen reference policy for the KL term (computed and logged whenever given) */
  refModel?: PolicyModel;
  /** replaces the PPO clipped surrogate (see losses.ts) */
  customLoss?: CustomLossFn;
}

export interface TrainMetrics {
  "train/loss": number;
  "train/pg_loss": number;
  "train/pg_clipfrac": number;
  "train/ppo_kl": number;
  "train/kl_loss": number;
  "train/entropy": number;
  "train/grad_norm": number;
  /** mean |rollout − recomputed| log-prob; only when π_old is recomputed */
  "train/train_rollout_logprob_abs_diff"?: number;
  "train/lr": number;
  "train/samples": number;
  "train/response_tokens": number;
  "train/prompt_tokens": number;
}

const METRIC_KEYS = ["pg_loss", "pg_clipfrac", "ppo_kl", "kl_loss", "entropy"] as const;

/** [B, T-1] matrix with each row's values placed on its response span. */
function spread(batch: PackedBatch, rows: ReadonlyArray<readonly number[]>): tf.Tensor2D {
  const W = batch.T - 1;
  const out = new Float32Array(batch.B * W);
  batch.spans.forEach(({ start }, i) => out.set(rows[i], i * W + start));
  return tf.tensor2d(out, [batch.B, W]);
}

export async function trainStep(
  model: PolicyModel, optimizer: Adam, samplesIn: readonly TrainSample[], hyperIn: TrainHyper = {}, options: TrainOptions = {},
): Promise<TrainMetrics> {
  const hyper = trainHyperSchema.parse(hyperIn);
  const samples = samplesIn.map((s) => trainSampleSchema.parse(s));
  const N = samples.length;
  if (N === 0) throw new Error("trainStep needs at least one sample");
  const mbs = hyper.microBatchSize;
  const items = samples.map((s) => ({ promptIds: s.promptIds, responseIds: s.responseIds }));

  let old = samples.map((s) => s.oldLogprobs);
  let absDiff = 0;
  if (hyper.oldLogprobs === "recompute") {
    old = scoreBatch(model, items, mbs);
    let n = 0;
    samples.forEach((s, i) => s.oldLogprobs.forEach((lp, t) => { absDiff += Math.abs(lp - old[i][t]); n++; }));
    absDiff /= n;
    await yieldToEventLoop();
  }
  const ref = options.refModel ? scoreBatch(options.refModel, items, mbs) : undefined;
  const adv = samples.map((s, i) => computeAdvantages(s, old[i], hyper));

  const names = paramNames(model.config);
  let acc: tf.Tensor[] | null = null;
  const sums = { loss: 0, pg_loss: 0, pg_clipfrac: 0, ppo_kl: 0, kl_loss: 0, entropy: 0 };
  let responseTokens = 0;
  let promptTokens = 0;

  for (let s = 0; s < N; s += mbs) {
    if (s > 0) await yieldToEventLoop();
    const idx = Array.from({ length: Math.min(mbs, N - s) }, (_, j) => s + j);
    const batch = packBatch(idx.map((i) => items[i]), model.config.ctx);
    responseTokens += idx.reduce((a, i) => a + samples[i].responseIds.length, 0);
    promptTokens += batch.promptTokens;
    const share = batch.B / N; // sampleMean divides by the micro-batch size; rescale to the batch

    let metricsT: tf.Tensor | null = null;
    const { value, grads } = tf.tidy(() => {
      const inputs = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
      const mask = tf.tensor2d(batch.mask, [batch.B, batch.T - 1]);
      const oldT = spread(batch, idx.map((i) => old[i]));
      const advT = spread(batch, idx.map((i) => adv[i]));
      const refT = ref ? spread(batch, idx.map((i) => ref[i])) : undefined;
      const weights = samples.some((x) => x.weight !== undefined)
        ? tf.tensor1d(idx.map((i) => samples[i].weight ?? 1))
        : undefined;
      const lossFn = (...paramList: tf.Tensor[]): tf.Scalar => {
        const params: Params = Object.fromEntries(names.map((n, k) => [n, paramList[k]]));
        const logits = forward(model.config, params, inputs);
        const { logprobs, entropy } = tokenLogprobs(logits, batch, true);
        const inp: PolicyLossInputs = {
          logprobs, oldLogprobs: oldT, advantages: advT, mask, refLogprobs: refT, entropy: entropy ?? undefined, sampleWeights: weights,
        };
        const { loss, metrics } = options.customLoss ? customPolicyLoss(options.customLoss, inp, hyper) : policyLoss(inp, hyper);
        metricsT = tf.keep(tf.stack(METRIC_KEYS.map((k) => metrics[k])));
        return tf.mul(loss, share);
      };
      return tf.valueAndGrads(lossFn)(names.map((n) => model.params[n]));
    });
    const mv = (metricsT as tf.Tensor | null)?.dataSync() ?? new Float32Array(METRIC_KEYS.length);
    METRIC_KEYS.forEach((k, j) => (sums[k] += mv[j] * share));
    sums.loss += value.dataSync()[0];
    tf.dispose([value, metricsT as tf.Tensor | null].filter((t): t is tf.Tensor => t !== null));
    if (!acc) acc = grads;
    else {
      const prev: tf.Tensor[] = acc;
      acc = prev.map((g, k) => tf.add(g, grads[k]));
      tf.dispose([...prev, ...grads]);
    }
  }

  const grads = acc as tf.Tensor[];
  const gradNorm = globalNorm(grads);
  const scale = hyper.gradClip > 0 && gradNorm > hyper.gradClip ? hyper.gradClip / (gradNorm + 1e-6) : 1;
  const clipped = scale === 1 ? grads : grads.map((g) => tf.mul(g, scale));
  const lr = hyper.lr ?? optimizer.config.lr;
  optimizer.apply(model.params, Object.fromEntries(names.map((n, k) => [n, clipped[k]])), lr);
  tf.dispose(scale === 1 ? grads : [...grads, ...clipped]);

  return {
    "train/loss": sums.loss,
    "train/pg_loss": sums.pg_loss,
    "train/pg_clipfrac": sums.pg_clipfrac,
    "train/ppo_kl": sums.ppo_kl,
    "train/kl_loss": sums.kl_loss,
    "train/entropy": sums.entropy,
    "train/grad_norm": gradNorm,
    ...(hyper.oldLogprobs === "recompute" ? { "train/train_rollout_logprob_abs_diff": absDiff } : {}),
    "train/lr": lr,
    "train/samples": N,
    "train/response_tokens": responseTokens,
    "train/prompt_tokens": promptTokens,
  };
}
