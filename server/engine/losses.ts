/**
 * Policy losses with the OpenClaw-RL / slime semantics (reference §4–5):
 *
 *   GRPO     A_t = r                                    (broadcast, no normalisation)
 *   OPD      A_t = clamp(teacher_lp_t − base_t, ±c)     (reward unused; c = advClamp, 0 = unclamped)
 *   Combine  A_t = w_opd·clamp(teacher_lp_t − base_t, ±c) + w_rl·r
 *
 *   ratio_t = exp(lp_t − old_lp_t)
 *   pg_t    = max(−A_t·ratio_t, −A_t·clip(ratio_t, 1−ε, 1+ε_high))      ε=0.2, ε_high=0.28
 *             and, with dual-clip c_d > 1 (dualClip), for A_t < 0: min(pg_t, −A_t·c_d)
 *   kl_t    = k3 ("low_var_kl"): exp(ref_t − lp_t) − (ref_t − lp_t) − 1, clamped to [−10, 10]
 *   kl_base_t = Σ_v π(v) (log π(v) − log π_base(v))        exact KL to the frozen base over the whole vocabulary
 *   loss    = agg(pg) + w_opd·agg(distill) + kl_coef·agg(kl) + β·agg(kl_base) + w_demo·agg_demo(−lp)
 *             − entropy_coef·agg(entropy)
 *
 * base_t is π_old (the reference) or, decoupled (train.ts), the current policy's log-prob before the
 * update while the ratio stays against the behaviour log-probs.
 *
 * OPD estimator (`opdEstimator`): "sampled" is the reference's (the OPD term in the advantage above);
 * "topk" and "full" leave it out of the advantage and add distill_t, the reverse KL(π ‖ teacher) at
 * each response position: over the teacher's top-K tokens plus one tail bin for the rest of the mass
 * (the reference's topk_distillation_loss), or over the whole vocabulary.
 *
 * agg ("sum_of_sample_mean") = token mean within each sample, then mean over samples; a sample's
 * optional weight w_i (importance weight for stale samples; 0 reproduces slime's loss_mask=0, the
 * sample still counting in the denominator) scales its term: agg(x) = Σ_i w_i·mean_t(x_it) / N.
 * Metrics (pg_loss, pg_clipfrac, ppo_kl = agg(old − lp), kl_loss, entropy) use the same reducer.
 *
 * kl_base (β = `baseKlCoef`) anchors every response position to the base's whole next-token distribution — the
 * content as well as the style — where the k3 estimate sees only the sampled token and is too noisy to hold the
 * content at a higher learning rate. It departs from the reference (whose KL is k3, off by default).
 *
 * Sample kinds map onto the estimators: "RL" → GRPO term only, "OPD" → OPD term only, "BOTH" →
 * Combine, "DEMO" → none of them: a demonstration (hindsight, train.ts) that only the cross-entropy term
 * agg_demo(−lp) = Σ_{demo i} w_i·mean_t(−lp_it) / N trains, weighted by `wDemo`. The combine server's RL-only branch (reference: teacher log-probs = rollout log-probs, an
 * OPD term only approximately 0) is "BOTH" without teacherLogprobs: its OPD term is exactly 0.
 */
import * as tf from "@tensorflow/tfjs-core";
import { pathToFileURL } from "node:url";
import { resolveExtensionModule } from "../platform/extensions";
import { z } from "zod";

export const lossHyperSchema = z.object({
  epsClip: z.number().min(0).default(0.2),
  epsClipHigh: z.number().min(0).default(0.28),
  klCoef: z.number().min(0).default(0),
  entropyCoef: z.number().min(0).default(0),
  wOpd: z.number().default(1),
  wRl: z.number().default(1),
  /** |teacher − base| cap on the sampled OPD term; 0 = unclamped (the reference) */
  advClamp: z.number().min(0).default(0),
  /** dual-clip constant c > 1 bounding the loss of negative-advantage tokens; 0 = off (the reference) */
  dualClip: z
    .number()
    .min(0)
    .default(0)
    .refine((c) => c === 0 || c > 1, "dual-clip must be 0 (off) or above 1"),
  opdEstimator: z.enum(["sampled", "topk", "full"]).default("sampled"),
  /** K of the top-K estimator */
  topK: z.number().int().min(1).default(50),
  /** whiten the advantages over the batch's response tokens (slime --normalize-advantages) */
  normalizeAdvantages: z.boolean().default(false),
  /**
   * what the whitening's mean and deviation are taken over: the whole batch (slime), or each context separately
   * (first reply, after a correction, after an approval), so a reply is compared with replies in the same situation
   */
  advantageGroups: z.enum(["batch", "context"]).default("batch"),
  /** β of the exact full-vocabulary KL(π ‖ base) at every response position; 0 = off (the reference) */
  baseKlCoef: z.number().min(0).default(0),
  /**
   * λ of extrapolated distillation (ExOPD) for the topk/full estimators: the teacher becomes
   * softmax(log π_base + λ·(log π_hinted − log π_base)), the base scored on the student's un-hinted prompt. 1 = the
   * hinted teacher itself (the reference); above 1 pushes further along what the hint changed.
   */
  opdExtrapolation: z.number().min(0.5).max(3).default(1),
  /** weight of the cross-entropy on demonstration ("DEMO") samples */
  wDemo: z.number().min(0).default(1),
});
export type LossHyper = z.input<typeof lossHyperSchema>;
type LossHyperFull = z.output<typeof lossHyperSchema>;

export type SampleKind = "RL" | "OPD" | "BOTH" | "DEMO";

/** Where in a conversation a reply was served: the per-context baseline's groups. */
export type ReplyContext = "first" | "afterCorrection" | "afterApproval";

export interface AdvantageInput {
  kind: SampleKind;
  reward: number;
  teacherLogprobs?: readonly number[];
  context?: ReplyContext;
  /** The reward is already its group's normalised advantage (episode steps): not whitened again. */
  groupNormalized?: boolean;
}

/**
 * The two terms of a sample's per-token advantage (plain numbers: advantages carry no gradient): the RL term
 * (w_rl·r for Combine, r for GRPO, 0 for OPD) and the sampled OPD term (w_opd·clamp(teacher − base) for Combine,
 * clamp(teacher − base) for OPD, 0 for GRPO and for the topk/full estimators, whose OPD part is the distillation
 * loss). `baseLogprobs` is what the OPD term is taken against (π_old, or the current policy when decoupled).
 */
export function advantageTerms(
  s: AdvantageInput,
  baseLogprobs: readonly number[],
  hyper: LossHyper = {},
): { rl: number[]; opd: number[] } {
  const { wOpd, wRl, advClamp, opdEstimator } = lossHyperSchema.parse(hyper);
  const n = baseLogprobs.length;
  const zeros = () => new Array<number>(n).fill(0);
  if (s.kind === "DEMO") return { rl: zeros(), opd: zeros() };
  if (s.kind === "RL") return { rl: new Array<number>(n).fill(s.reward), opd: zeros() };
  const rl = new Array<number>(n).fill(s.kind === "BOTH" ? wRl * s.reward : 0);
  const teacher = s.teacherLogprobs;
  // Combine's RL-only samples carry no teacher: their OPD term is 0 (see the header).
  if (opdEstimator !== "sampled" || (s.kind === "BOTH" && !teacher)) return { rl, opd: zeros() };
  if (!teacher || teacher.length !== n) {
    throw new Error(`${s.kind} sample needs teacherLogprobs of length ${n}, got ${teacher?.length ?? "none"}`);
  }
  const clamp = (d: number) => (advClamp > 0 ? Math.max(-advClamp, Math.min(advClamp, d)) : d);
  const w = s.kind === "OPD" ? 1 : wOpd;
  return { rl, opd: baseLogprobs.map((base, t) => w * clamp(teacher[t] - base)) };
}

/** A sample's per-token advantage: the RL term plus the sampled OPD term (see advantageTerms). */
export function computeAdvantages(s: AdvantageInput, baseLogprobs: readonly number[], hyper: LossHyper = {}): number[] {
  const { rl, opd } = advantageTerms(s, baseLogprobs, hyper);
  return rl.map((r, t) => r + opd[t]);
}

/**
 * The advantages of a batch. With `normalizeAdvantages`, the advantage slime computes is whitened over the batch
 * (whitenAdvantages) — the OPD term for OPD samples (--advantage-estimator on_policy_distillation), the RL term
 * otherwise — and Combine's OPD term is added after, as OpenClaw-RL's combine loss adds it to slime's advantages.
 * With `advantageGroups: "context"` each context (a sample's `context`, "first" when unset) is whitened on its own.
 * Demonstrations carry no advantage and take no part in the whitening, and neither do samples whose reward is
 * already a group-normalised advantage (episode steps: whitening them again over a batch where most groups
 * succeeded turned the all-correct groups' zeros negative, and held-out pass@1 collapsed; docs/environments.md).
 */
export function batchAdvantages(
  samples: readonly AdvantageInput[],
  baseLogprobs: readonly (readonly number[])[],
  hyper: LossHyper = {},
): number[][] {
  const { normalizeAdvantages, advantageGroups } = lossHyperSchema.parse(hyper);
  const terms = samples.map((s, i) => advantageTerms(s, baseLogprobs[i], hyper));
  if (!normalizeAdvantages) return terms.map(({ rl, opd }) => rl.map((r, t) => r + opd[t]));
  const primary = terms.map(({ rl, opd }, i) => (samples[i].kind === "OPD" ? opd : rl));
  const groupOf = (s: AdvantageInput): string =>
    s.kind === "DEMO" || s.groupNormalized ? "kept" : advantageGroups === "context" ? (s.context ?? "first") : "batch";
  const whitened: number[][] = primary.map((row) => [...row]);
  for (const g of new Set(samples.map(groupOf))) {
    if (g === "kept") continue;
    const members = samples.flatMap((s, i) => (groupOf(s) === g ? [i] : []));
    whitenAdvantages(members.map((i) => primary[i])).forEach((row, k) => (whitened[members[k]] = row));
  }
  return whitened.map((w, i) => (samples[i].kind === "BOTH" ? w.map((a, t) => a + terms[i].opd[t]) : w));
}

/**
 * slime's `--normalize-advantages` (megatron_utils/loss.py → distributed_masked_whiten): every response token's
 * advantage minus the mean over all of the batch's response tokens, divided by their standard deviation (with
 * Bessel's correction; ε 1e-8 under the root). With ±1 rewards it is a baseline: a reply's tokens move by how
 * much better it did than the batch, so what the approved and the rejected replies share (the content of the
 * answer) is no longer pushed down by the many rejections. A batch whose advantages are all equal gets zeros.
 */
export function whitenAdvantages(adv: readonly (readonly number[])[]): number[][] {
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  for (const row of adv)
    for (const a of row) {
      n++;
      sum += a;
      sumSq += a * a;
    }
  if (n === 0) return adv.map((row) => [...row]);
  const mean = sum / n;
  const variance = Math.max(0, sumSq / n - mean * mean) * (n >= 2 ? n / (n - 1) : 1);
  const scale = 1 / Math.sqrt(variance + 1e-8);
  return adv.map((row) => row.map((a) => (a - mean) * scale));
}

/**
 * Reverse KL(π ‖ teacher) per position from log-probabilities over the vocabulary, [B,T,V] → [B,T].
 * With `topK`, the sum runs over the teacher's K most likely tokens plus one tail bin holding the rest of
 * each distribution's mass (both tails floored at 1e-6 so the log stays finite); without, over all tokens.
 * The gradient flows through `studentLogp` only.
 */
export function distillationKl(studentLogp: tf.Tensor, teacherLogp: tf.Tensor, topK?: number): tf.Tensor {
  return tf.tidy(() => {
    const p = tf.exp(studentLogp);
    const diff = tf.sub(studentLogp, teacherLogp);
    const V = studentLogp.shape[studentLogp.rank - 1];
    if (topK === undefined || topK >= V) return tf.sum(tf.mul(p, diff), -1);
    // K-hot mask of the teacher's top-K per position (a mask, not a gather: gather has no gradient on wasm).
    const { indices } = tf.topk(teacherLogp, topK);
    const mask = tf.sum(tf.oneHot(indices, V), -2);
    const head = tf.sum(tf.mul(mask, tf.mul(p, diff)), -1);
    const tailS = tf.maximum(tf.sub(1, tf.sum(tf.mul(mask, p), -1)), 1e-6);
    const tailT = tf.maximum(tf.sub(1, tf.sum(tf.mul(mask, tf.exp(teacherLogp)), -1)), 1e-6);
    return tf.add(head, tf.mul(tailS, tf.sub(tf.log(tailS), tf.log(tailT))));
  });
}

/**
 * Forward KL(teacher ‖ π) per position, Σ_v q_v (log q_v − log π_v), from log-probabilities over the vocabulary,
 * [B,T,V] → [B,T]: its gradient is the soft-label cross-entropy's, −Σ_v q_v ∇log π_v (a demonstration trained toward
 * the teacher's whole distribution rather than its sampled tokens).
 */
export function forwardKl(teacherLogp: tf.Tensor, studentLogp: tf.Tensor): tf.Tensor {
  return tf.tidy(() => tf.sum(tf.mul(tf.exp(teacherLogp), tf.sub(teacherLogp, studentLogp)), -1));
}

/**
 * Where a hint acted, per position: KL(teacher ‖ base) at each position of a demonstration (the hinted teacher against
 * the same frozen base without the hint, both on the demonstration's tokens), divided by its mean over that row's
 * positions (`mask`), so a row's weights average 1 and its total weight is unchanged. [B,T,V] twice, mask [B,T] →
 * [B,T]. A row where the hint moved nothing (all zero) gets 1 everywhere, and so does every position outside `mask`
 * (the rows and tokens without a teacher keep their weight). Plain data: no gradient.
 */
export function hintFocusWeights(teacherLogp: tf.Tensor, baseLogp: tf.Tensor, mask: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const eps = 1e-6;
    const kl = tf.mul(tf.relu(forwardKl(teacherLogp, baseLogp)), mask);
    const mean = tf.div(tf.sum(kl, -1, true), tf.maximum(tf.sum(mask, -1, true), 1));
    const weights = tf.div(tf.add(kl, eps), tf.add(mean, eps));
    return tf.add(tf.mul(weights, mask), tf.sub(1, mask));
  });
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
  /** topk/full estimators: the policy's and the teacher's log-probs over the vocabulary, [B,T,V] */
  vocabLogprobs?: tf.Tensor;
  teacherVocabLogprobs?: tf.Tensor;
  /** 1 on the response tokens of samples with a teacher distribution, [B,T] */
  distillMask?: tf.Tensor;
  /** the frozen base's log-probs over the vocabulary at the same positions, [B,T,V] (for kl_base) */
  baseVocabLogprobs?: tf.Tensor;
  /** 1 on the response tokens of demonstration samples, [B,T] (their cross-entropy term) */
  demoMask?: tf.Tensor;
  /**
   * 1 on the demonstration tokens trained toward the teacher's distribution instead (hindsightTarget "teacher": the
   * forward KL(teacher ‖ π) over the vocabulary, `teacherVocabLogprobs` at their positions), [B,T]; within demoMask
   */
  demoTeacherMask?: tf.Tensor;
  /** per-position weights of the demonstrations' term (demoFocus "hint": hintFocusWeights, 1 elsewhere), [B,T] */
  demoFocusWeights?: tf.Tensor;
}

export interface PolicyLossMetrics {
  pg_loss: tf.Scalar;
  /** agg of the distillation KL (0 with the sampled estimator) */
  distill_kl: tf.Scalar;
  pg_clipfrac: tf.Scalar;
  ppo_kl: tf.Scalar;
  kl_loss: tf.Scalar;
  entropy: tf.Scalar;
  /** agg of the exact KL(π ‖ base) over the vocabulary (0 without the base's distribution) */
  kl_base: tf.Scalar;
  /** agg_demo of −log π on demonstration tokens (0 without demonstrations) */
  demo_nll: tf.Scalar;
}

/** The PPO clipped surrogate. Returns the per-token loss and clip indicator, [B,T]. */
export function ppoClipTerms(
  logprobs: tf.Tensor,
  oldLogprobs: tf.Tensor,
  advantages: tf.Tensor,
  epsClip: number,
  epsClipHigh: number,
  dualClip = 0,
): { pg: tf.Tensor; clipped: tf.Tensor } {
  const ratio = tf.exp(tf.sub(logprobs, oldLogprobs));
  const pg1 = tf.mul(tf.neg(advantages), ratio);
  const pg2 = tf.mul(tf.neg(advantages), tf.clipByValue(ratio, 1 - epsClip, 1 + epsClipHigh));
  const pg = tf.maximum(pg1, pg2);
  if (!(dualClip > 1)) return { pg, clipped: tf.cast(tf.greater(pg2, pg1), "float32") };
  // Dual-clip (Ye et al. 2020): a negative-advantage token's loss is capped at −A·c, so a ratio far above 1
  // (a token the policy now likes much more than when it was sampled) cannot blow up the update.
  const cap = tf.mul(tf.neg(advantages), dualClip);
  const negative = tf.less(advantages, 0);
  const dual = tf.where(negative, tf.minimum(pg, cap), pg);
  const clipped = tf.logicalOr(tf.greater(pg2, pg1), tf.logicalAnd(negative, tf.greater(pg, cap)));
  return { pg: dual, clipped: tf.cast(clipped, "float32") };
}

function distillTerm(inp: PolicyLossInputs, h: LossHyperFull): tf.Scalar {
  if (h.opdEstimator === "sampled" || !inp.vocabLogprobs || !inp.teacherVocabLogprobs || !inp.distillMask)
    return tf.scalar(0);
  const kl = distillationKl(
    inp.vocabLogprobs,
    inp.teacherVocabLogprobs,
    h.opdEstimator === "topk" ? h.topK : undefined,
  );
  return sampleMean(kl, inp.distillMask, inp.sampleWeights);
}

/** Metrics other than pg_loss, shared by the built-in and custom losses. */
function monitorMetrics(inp: PolicyLossInputs, h: LossHyperFull) {
  const { logprobs, oldLogprobs, advantages, mask, sampleWeights: w } = inp;
  const { clipped } = ppoClipTerms(logprobs, oldLogprobs, advantages, h.epsClip, h.epsClipHigh, h.dualClip);
  const zero = tf.scalar(0);
  return {
    pg_clipfrac: sampleMean(clipped, mask, w),
    ppo_kl: sampleMean(tf.sub(oldLogprobs, logprobs), mask, w),
    kl_loss: inp.refLogprobs ? sampleMean(lowVarKl(logprobs, inp.refLogprobs), mask, w) : zero,
    entropy: inp.entropy ? sampleMean(inp.entropy, mask, w) : zero,
    kl_base:
      inp.vocabLogprobs && inp.baseVocabLogprobs
        ? sampleMean(distillationKl(inp.vocabLogprobs, inp.baseVocabLogprobs), mask, w)
        : zero,
    demo_nll: inp.demoMask ? demoTerm(inp, inp.demoMask) : zero,
  };
}

/**
 * agg_demo: the demonstrations' cross-entropy −log π of their tokens, or, on the rows of `demoTeacherMask`, the
 * forward KL(teacher ‖ π) at each position.
 */
function demoTerm(inp: PolicyLossInputs, demoMask: tf.Tensor): tf.Scalar {
  const { logprobs, sampleWeights: w, vocabLogprobs: p, teacherVocabLogprobs: q, demoTeacherMask: tm } = inp;
  const focused = (x: tf.Tensor) => (inp.demoFocusWeights ? tf.mul(x, inp.demoFocusWeights) : x);
  const nll = focused(tf.neg(logprobs));
  if (!tm || !p || !q) return sampleMean(nll, demoMask, w);
  return tf.add(sampleMean(nll, tf.sub(demoMask, tm), w), sampleMean(focused(forwardKl(q, p)), tm, w)) as tf.Scalar;
}

function addRegularisers(
  pgLoss: tf.Scalar,
  m: { kl_loss: tf.Scalar; entropy: tf.Scalar; distill_kl: tf.Scalar; kl_base: tf.Scalar; demo_nll: tf.Scalar },
  h: LossHyperFull,
): tf.Scalar {
  let loss: tf.Scalar = pgLoss;
  if (h.baseKlCoef > 0) loss = tf.add(loss, tf.mul(m.kl_base, h.baseKlCoef));
  if (h.wDemo > 0) loss = tf.add(loss, tf.mul(m.demo_nll, h.wDemo));
  if (h.opdEstimator !== "sampled") loss = tf.add(loss, tf.mul(m.distill_kl, h.wOpd));
  if (h.klCoef > 0) loss = tf.add(loss, tf.mul(m.kl_loss, h.klCoef));
  if (h.entropyCoef > 0) loss = tf.sub(loss, tf.mul(m.entropy, h.entropyCoef));
  return loss;
}

export function policyLoss(
  inp: PolicyLossInputs,
  hyper: LossHyper = {},
): { loss: tf.Scalar; metrics: PolicyLossMetrics } {
  const h = lossHyperSchema.parse(hyper);
  if (h.klCoef > 0 && !inp.refLogprobs) throw new Error("klCoef > 0 needs reference log-probs");
  if (h.baseKlCoef > 0 && !(inp.vocabLogprobs && inp.baseVocabLogprobs))
    throw new Error("baseKlCoef > 0 needs the policy's and the base's log-probs over the vocabulary");
  const { pg } = ppoClipTerms(inp.logprobs, inp.oldLogprobs, inp.advantages, h.epsClip, h.epsClipHigh, h.dualClip);
  const pgLoss = sampleMean(pg, inp.mask, inp.sampleWeights);
  const m = { ...monitorMetrics(inp, h), distill_kl: distillTerm(inp, h) };
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
  fn: CustomLossFn,
  inp: PolicyLossInputs,
  hyper: LossHyper = {},
): { loss: tf.Scalar; metrics: PolicyLossMetrics } {
  const h = lossHyperSchema.parse(hyper);
  if (h.klCoef > 0 && !inp.refLogprobs) throw new Error("klCoef > 0 needs reference log-probs");
  const pgLoss = fn({
    logprobs: inp.logprobs,
    oldLogprobs: inp.oldLogprobs,
    advantages: inp.advantages,
    mask: inp.mask,
    sampleWeights: inp.sampleWeights,
  });
  const m = { ...monitorMetrics(inp, h), distill_kl: distillTerm(inp, h) };
  return { loss: addRegularisers(pgLoss, m, h), metrics: { pg_loss: pgLoss, ...m } };
}

/**
 * Load a custom loss from a TS/JS module in EXTENSIONS_DIR: `spec` is "file.ts" (default export) or
 * "file.ts#exportName", relative to that directory. TS modules need a TS-aware runtime (tsx, Vitest). The function is
 * validated on a tiny probe: it must return a finite scalar with a finite gradient w.r.t. logprobs.
 */
export async function loadCustomLoss(spec: string, opts: { dir?: string } = {}): Promise<CustomLossFn> {
  const hash = spec.lastIndexOf("#");
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const exportName = hash > 0 ? spec.slice(hash + 1) : "default";
  // Only from the operator's EXTENSIONS_DIR, with the module extension allow-list (platform/extensions.ts).
  const mod: Record<string, unknown> = await import(pathToFileURL(await resolveExtensionModule(file, opts)).href);
  const fn = mod[exportName];
  if (fn === undefined) throw new Error(`custom loss: ${file} has no export "${exportName}"`);
  if (typeof fn !== "function") throw new Error(`custom loss: export "${exportName}" of ${file} is not a function`);
  validateCustomLoss(fn as CustomLossFn);
  return fn as CustomLossFn;
}

export function validateCustomLoss(fn: CustomLossFn): void {
  tf.tidy(() => {
    const logprobs = tf.tensor2d([
      [-0.5, -1.2, -2.0],
      [-0.1, -0.7, -3.0],
    ]);
    const args = {
      oldLogprobs: tf.tensor2d([
        [-0.6, -1.0, -2.0],
        [-0.2, -0.7, -2.5],
      ]),
      advantages: tf.tensor2d([
        [1, 1, 1],
        [-0.5, -0.5, -0.5],
      ]),
      mask: tf.tensor2d([
        [1, 1, 1],
        [1, 1, 0],
      ]),
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
    if (!Array.from(grad.dataSync()).every(Number.isFinite))
      throw new Error("custom loss gradient is not finite on the probe");
  });
}
