/**
 * Policy losses with the OpenClaw-RL / slime semantics (reference §4–5):
 *
 *   GRPO     A_t = r                                    (broadcast, no normalisation)
 *   OPD      A_t = teacher_lp_t − old_lp_t              (reward unused)
 *   Combine  A_t = w_opd·(teacher_lp_t − old_lp_t) + w_rl·r
 *
 *   ratio_t = exp(lp_t − old_lp_t)
 *   pg_t    = max(−A_t·ratio_t, −A_t·clip(ratio_t, 1−ε, 1+ε_high))      ε=0.2, ε_high=0.28
 *   kl_t    = k3 ("low_var_kl"): exp(ref_t − lp_t) − (ref_t − lp_t) − 1, clamped to [−10, 10]
 *   loss    = agg(pg) + kl_coef·agg(kl) − entropy_coef·agg(entropy)
 *
 * agg ("sum_of_sample_mean") = token mean within each sample, then mean over samples; a sample's
 * optional weight w_i (importance weight for stale samples; 0 reproduces slime's loss_mask=0, the
 * sample still counting in the denominator) scales its term: agg(x) = Σ_i w_i·mean_t(x_it) / N.
 * Metrics (pg_loss, pg_clipfrac, ppo_kl = agg(old − lp), kl_loss, entropy) use the same reducer.
 *
 * Sample kinds map onto the estimators: "RL" → GRPO term only, "OPD" → OPD term only, "BOTH" →
 * Combine. The combine server's RL-only branch (teacher log-probs = rollout log-probs) is "BOTH"
 * with teacherLogprobs set to the rollout log-probs.
 */
import * as tf from "@tensorflow/tfjs-core";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";

export const lossHyperSchema = z.object({
  epsClip: z.number().min(0).default(0.2),
  epsClipHigh: z.number().min(0).default(0.28),
  klCoef: z.number().min(0).default(0),
  entropyCoef: z.number().min(0).default(0),
  wOpd: z.number().default(1),
  wRl: z.number().default(1),
});
export type LossHyper = z.input<typeof lossHyperSchema>;
type LossHyperFull = z.output<typeof lossHyperSchema>;

export type SampleKind = "RL" | "OPD" | "BOTH";

export interface AdvantageInput {
  kind: SampleKind;
  reward: number;
  teacherLogprobs?: readonly number[];
}

/** Per-token advantages for one sample (plain numbers: advantages carry no gradient). */
export function computeAdvantages(s: AdvantageInput, oldLogprobs: readonly number[], hyper: LossHyper = {}): number[] {
  const { wOpd, wRl } = lossHyperSchema.parse(hyper);
  const n = oldLogprobs.length;
  if (s.kind === "RL") return new Array<number>(n).fill(s.reward);
  const teacher = s.teacherLogprobs;
  if (!teacher || teacher.length !== n) {
    throw new Error(`${s.kind} sample needs teacherLogprobs of length ${n}, got ${teacher?.length ?? "none"}`);
  }
  if (s.kind === "OPD") return oldLogprobs.map((old, t) => teacher[t] - old);
  return oldLogprobs.map((old, t) => wOpd * (teacher[t] - old) + wRl * s.reward);
}

/** k3 / "low_var_kl" estimator of KL(π‖π_ref) per token, clamped like slime. */
export function lowVarKl(logprobs: tf.Tensor, refLogprobs: tf.Tensor): tf.Tensor {
  const logRatio = tf.sub(refLogprobs, logprobs);
  return tf.clipByValue(tf.sub(tf.sub(tf.exp(logRatio), logRatio), 1), -10, 10);
}

/**
 * Token mean per sample, then Σ_i w_i·mean_i / N. x, mask: [B,T]; weights: [B] or none.
 * A sample with an empty mask contributes 0 (its token count is clamped to 1, as in slime).
 */
export function sampleMean(x: tf.Tensor, mask: tf.Tensor, weights?: tf.Tensor): tf.Scalar {
  const perSample = tf.div(tf.sum(tf.mul(x, mask), -1), tf.maximum(tf.sum(mask, -1), 1));
  const weighted = weights ? tf.mul(perSample, weights) : perSample;
  return tf.div(tf.sum(weighted), x.shape[0]) as tf.Scalar;
}

export interface PolicyLossInputs {
  /** current log-probs of the taken tokens, [B,T] (carries the gradient) */
  logprobs: tf.Tensor;
  oldLogprobs: tf.Tensor;
  advantages: tf.Tensor;
  /** 1 on response tokens that count, 0 elsewhere, [B,T] */
  mask: tf.Tensor;
  /** reference-model log-probs for the KL term, [B,T] */
  refLogprobs?: tf.Tensor;
  /** per-token entropy of the current policy, [B,T] */
  entropy?: tf.Tensor;
  /** per-sample weights, [B] */
  sampleWeights?: tf.Tensor;
}

export interface PolicyLossMetrics {
  pg_loss: tf.Scalar;
  pg_clipfrac: tf.Scalar;
  ppo_kl: tf.Scalar;
  kl_loss: tf.Scalar;
  entropy: tf.Scalar;
}

/** The PPO clipped surrogate. Returns the per-token loss and clip indicator, [B,T]. */
export function ppoClipTerms(
  logprobs: tf.Tensor, oldLogprobs: tf.Tensor, advantages: tf.Tensor, epsClip: number, epsClipHigh: number,
): { pg: tf.Tensor; clipped: tf.Tensor } {
  const ratio = tf.exp(tf.sub(logprobs, oldLogprobs));
  const pg1 = tf.mul(tf.neg(advantages), ratio);
  const pg2 = tf.mul(tf.neg(advantages), tf.clipByValue(ratio, 1 - epsClip, 1 + epsClipHigh));
  return { pg: tf.maximum(pg1, pg2), clipped: tf.cast(tf.greater(pg2, pg1), "float32") };
}

/** Metrics other than pg_loss, shared by the built-in and custom losses. */
function monitorMetrics(inp: PolicyLossInputs, h: LossHyperFull) {
  const { logprobs, oldLogprobs, advantages, mask, sampleWeights: w } = inp;
  const { clipped } = ppoClipTerms(logprobs, oldLogprobs, advantages, h.epsClip, h.epsClipHigh);
  const zero = tf.scalar(0);
  return {
    pg_clipfrac: sampleMean(clipped, mask, w),
    ppo_kl: sampleMean(tf.sub(oldLogprobs, logprobs), mask, w),
    kl_loss: inp.refLogprobs ? sampleMean(lowVarKl(logprobs, inp.refLogprobs), mask, w) : zero,
    entropy: inp.entropy ? sampleMean(inp.entropy, mask, w) : zero,
  };
}

function addRegularisers(pgLoss: tf.Scalar, m: { kl_loss: tf.Scalar; entropy: tf.Scalar }, h: LossHyperFull): tf.Scalar {
  let loss: tf.Scalar = pgLoss;
  if (h.klCoef > 0) loss = tf.add(loss, tf.mul(m.kl_loss, h.klCoef));
  if (h.entropyCoef > 0) loss = tf.sub(loss, tf.mul(m.entropy, h.entropyCoef));
  return loss;
}

export function policyLoss(inp: PolicyLossInputs, hyper: LossHyper = {}): { loss: tf.Scalar; metrics: PolicyLossMetrics } {
  const h = lossHyperSchema.parse(hyper);
  if (h.klCoef > 0 && !inp.refLogprobs) throw new Error("klCoef > 0 needs reference log-probs");
  const { pg } = ppoClipTerms(inp.logprobs, inp.oldLogprobs, inp.advantages, h.epsClip, h.epsClipHigh);
  const pgLoss = sampleMean(pg, inp.mask, inp.sampleWeights);
  const m = monitorMetrics(inp, h);
  return { loss: addRegularisers(pgLoss, m, h), metrics: { pg_loss: pgLoss, ...m } };
}

// ---- custom-loss extension point -------------------------------------------------------------

/** What a custom loss receives: [B,T] tensors (`sampleWeights` [B] when any sample has a weight). */
export interface CustomLossArgs {
  logprobs: tf.Tensor;
  oldLogprobs: tf.Tensor;
  advantages: tf.Tensor;
  mask: tf.Tensor;
  sampleWeights?: tf.Tensor;
}

/** Identity whose gradient is zero (for weights a custom loss treats as data). */
export function stopGradient(x: tf.Tensor): tf.Tensor {
  return tf.customGrad((...inputs) => ({
    value: tf.clone(inputs[0] as tf.Tensor),
    gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy),
  }))(x);
}

/** Must return a scalar that is differentiable w.r.t. `logprobs`. It replaces the PPO pg term. */
export type CustomLossFn = (args: CustomLossArgs) => tf.Scalar;

/** Same as `policyLoss`, with the pg term computed by a custom function. */
export function customPolicyLoss(
  fn: CustomLossFn, inp: PolicyLossInputs, hyper: LossHyper = {},
): { loss: tf.Scalar; metrics: PolicyLossMetrics } {
  const h = lossHyperSchema.parse(hyper);
  if (h.klCoef > 0 && !inp.refLogprobs) throw new Error("klCoef > 0 needs reference log-probs");
  const pgLoss = fn({
    logprobs: inp.logprobs, oldLogprobs: inp.oldLogprobs, advantages: inp.advantages, mask: inp.mask, sampleWeights: inp.sampleWeights,
  });
  const m = monitorMetrics(inp, h);
  return { loss: addRegularisers(pgLoss, m, h), metrics: { pg_loss: pgLoss, ...m } };
}

/**
 * Load a custom loss from a TS/JS module: `spec` is "path/to/file.ts" (default export) or
 * "path/to/file.ts#exportName". TS modules need a TS-aware runtime (tsx, Vitest). The function is
 * validated on a tiny probe: it must return a finite scalar with a finite gradient w.r.t. logprobs.
 */
export async function loadCustomLoss(spec: string): Promise<CustomLossFn> {
  const hash = spec.lastIndexOf("#");
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const exportName = hash > 0 ? spec.slice(hash + 1) : "default";
  const mod: Record<string, unknown> = await import(pathToFileURL(path.resolve(file)).href);
  const fn = mod[exportName];
  if (fn === undefined) throw new Error(`custom loss: ${file} has no export "${exportName}"`);
  if (typeof fn !== "function") throw new Error(`custom loss: export "${exportName}" of ${file} is not a function`);
  validateCustomLoss(fn as CustomLossFn);
  return fn as CustomLossFn;
}

export function validateCustomLoss(fn: CustomLossFn): void {
  tf.tidy(() => {
    const logprobs = tf.tensor2d([[-0.5, -1.2, -2.0], [-0.1, -0.7, -3.0]]);
    const args = {
      oldLogprobs: tf.tensor2d([[-0.6, -1.0, -2.0], [-0.2, -0.7, -2.5]]),
      advantages: tf.tensor2d([[1, 1, 1], [-0.5, -0.5, -0.5]]),
      mask: tf.tensor2d([[1, 1, 1], [1, 1, 0]]),
    };
    let value = NaN;
    const grad = tf.grad((lp: tf.Tensor) => {
      const out: unknown = fn({ ...args, logprobs: lp });
      if (!(out instanceof tf.Tensor)) throw new Error("custom loss must return a tfjs tensor");
      if (out.rank !== 0) throw new Error(`custom loss must return a scalar, got shape [${out.shape.join(",")}]`);
      value = out.dataSync()[0];
      return out;
    })(logprobs);
    if (!Number.isFinite(value)) throw new Error(`custom loss returned a non-finite value on the probe: ${value}`);
    if (!Array.from(grad.dataSync()).every(Number.isFinite)) throw new Error("custom loss gradient is not finite on the probe");
  });
}
