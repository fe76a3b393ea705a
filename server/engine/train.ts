/**
 * One optimizer step over a batch of samples: micro-batched forward/backward with gradient
 * accumulation, global-norm clipping, Adam(W). The event loop is yielded between micro-batches so a
 * process that also serves requests stays responsive.
 *
 * π_old follows the reference by default (`oldLogprobs: "recompute"`): the current weights
 * recompute the log-probs before the update, and the rollout (behaviour) log-probs only feed the
 * `train/train_rollout_logprob_abs_diff` metric. `"rollout"` trains against the sample's own
 * `oldLogprobs` (like slime's --use-rollout-logprobs), which makes the PPO ratio see staleness; it
 * is also what a caller uses for further inner epochs on the same batch. `"decoupled"` (decoupled PPO)
 * keeps the ratio against the behaviour log-probs and takes the OPD term of the advantage against the
 * current weights' log-probs, so a stale sample's OPD advantage is teacher − π rather than teacher −
 * (an older π).
 *
 * `epochs` > 1 runs that many passes (each one optimizer update) over the same batch with π_old and the advantages
 * fixed at what epoch 0 used, so from epoch 1 the ratio moves away from 1 and the PPO clip bounds the update: more
 * update per batch behind a trust region (the reference takes one). `baseKlCoef` adds the exact KL to the frozen
 * base (`options.refModel`) over the whole vocabulary at every response position, an anchor for the content.
 *
 * Demonstration samples (kind "DEMO": a hindsight target, training/trainInputs.ts) train by cross-entropy only.
 *
 * The topk/full OPD estimators need the teacher's whole next-token distribution: samples carry the
 * hinted prompt (`teacherPromptIds`) and `options.teacherModel` scores it in each micro-batch (the frozen
 * base, or the current weights before the update; either way a constant of the loss).
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { yieldToEventLoop } from "./generate";
import {
  overlapCounts,
  selectCandidatePerToken,
  topKIndices,
  trainHintSelectionSchema,
  type TrainHintSelection,
} from "./hintSelection";
import {
  batchAdvantages,
  customPolicyLoss,
  hintFocusWeights,
  lossHyperSchema,
  policyLoss,
  type CustomLossFn,
  type PolicyLossInputs,
} from "./losses";
import { forward, paramNames, type Params, type PolicyModel } from "./model";
import { globalNorm, type Adam } from "./optimizer";
import { packBatch, scoreBatch, tokenLogprobs, vocabLogprobsAt, type PackedBatch } from "./score";

const ids = z.array(z.number().int().min(0));

export const trainSampleSchema = z
  .object({
    promptIds: ids.min(1),
    responseIds: ids.min(1),
    oldLogprobs: z.array(z.number()),
    reward: z.number(),
    teacherLogprobs: z.array(z.number()).optional(),
    kind: z.enum(["RL", "OPD", "BOTH", "DEMO"]),
    /** where in the conversation the reply was served (the per-context baseline's group) */
    context: z.enum(["first", "afterCorrection", "afterApproval"]).optional(),
    /**
     * The reward is already its group's normalised advantage (an agent episode's step, z-normalised per task group
     * and step): batch whitening leaves it as it is, since whitening again would shift it by the batch's mean.
     */
    groupNormalized: z.boolean().optional(),
    /** per-sample loss weight (importance weight for stale samples); default 1 */
    weight: z.number().min(0).optional(),
    /** the teacher's (hinted) prompt, for the topk/full estimators */
    teacherPromptIds: ids.min(1).optional(),
    /**
     * Every hint candidate's teacher prompt, shortest hint first (candidate 0 is `teacherPromptIds`), for
     * hintSelection token_optimal / sequence_optimal: the teacher distribution at each position comes from the
     * candidate chosen there (hintSelection.ts).
     */
    teacherPromptCandidates: z.array(ids.min(1)).min(2).optional(),
  })
  .refine((s) => s.oldLogprobs.length === s.responseIds.length, { message: "oldLogprobs must match responseIds" })
  .refine((s) => !s.teacherLogprobs || s.teacherLogprobs.length === s.responseIds.length, {
    message: "teacherLogprobs must match responseIds",
  })
  .refine((s) => !s.teacherPromptCandidates || s.teacherPromptIds, {
    message: "teacherPromptCandidates need teacherPromptIds (their candidate 0)",
  });
export type TrainSample = z.input<typeof trainSampleSchema>;

export const trainHyperSchema = lossHyperSchema.extend({
  /** overrides the optimizer's learning rate for this step */
  lr: z.number().min(0).optional(),
  /** global-norm gradient clip; 0 disables */
  gradClip: z.number().min(0).default(1),
  /** How samples with several hint candidates pick theirs (topk/full estimators): hintSelection.ts. */
  hintSelection: trainHintSelectionSchema.default("shortest"),
  microBatchSize: z.number().int().positive().default(8),
  oldLogprobs: z.enum(["recompute", "rollout", "decoupled"]).default("recompute"),
  /** passes over the batch, one update each, with π_old fixed after epoch 0 */
  epochs: z.number().int().min(1).max(4).default(1),
  /**
   * where a demonstration's term acts: every position alike, or, on demonstrations with a teacher distribution,
   * weighted by KL(teacher ‖ base) at each position (losses.ts hintFocusWeights): where the hint moved the teacher
   */
  demoFocus: z.enum(["uniform", "hint"]).default("uniform"),
});
export type TrainHyper = z.input<typeof trainHyperSchema>;

export interface TrainOptions {
  /** frozen reference policy for the KL term (computed and logged whenever given) */
  refModel?: PolicyModel;
  /** replaces the PPO clipped surrogate (see losses.ts) */
  customLoss?: CustomLossFn;
  /** scores `teacherPromptIds` for the topk/full OPD estimators */
  teacherModel?: PolicyModel;
  /** called after each epoch's update with the π_old it trained against and that epoch's metrics */
  onEpoch?: (epoch: number, info: { oldLogprobs: readonly (readonly number[])[]; metrics: TrainMetrics }) => void;
}

export interface TrainMetrics {
  "train/loss": number;
  "train/pg_loss": number;
  "train/pg_clipfrac": number;
  "train/ppo_kl": number;
  "train/kl_loss": number;
  "train/entropy": number;
  /** reverse KL to the teacher over its top-K (or all) tokens; 0 with the sampled estimator */
  "train/distill_kl": number;
  /** exact KL(π ‖ base) over the vocabulary, per response token (only with baseKlCoef > 0) */
  "train/kl_base"?: number;
  /** mean −log π of demonstration tokens (0 without demonstrations) */
  "train/demo_nll": number;
  "train/demo_samples": number;
  "train/epochs": number;
  "train/grad_norm": number;
  /** mean |rollout − recomputed| log-prob; only when π_old is recomputed */
  "train/train_rollout_logprob_abs_diff"?: number;
  "train/lr": number;
  "train/samples": number;
  "train/response_tokens": number;
  "train/prompt_tokens": number;
}

const METRIC_KEYS = [
  "pg_loss",
  "pg_clipfrac",
  "ppo_kl",
  "kl_loss",
  "entropy",
  "distill_kl",
  "kl_base",
  "demo_nll",
] as const;

/** [B, T-1] matrix with each row's values placed on its response span. */
function spread(batch: PackedBatch, rows: ReadonlyArray<readonly number[]>): tf.Tensor2D {
  const W = batch.T - 1;
  const out = new Float32Array(batch.B * W);
  batch.spans.forEach(({ start }, i) => out.set(rows[i], i * W + start));
  return tf.tensor2d(out, [batch.B, W]);
}

/** A model's log-probs over the vocabulary at every position of `batch` (its own prompts), [B, T-1, V]. No gradient. */
function vocabDistribution(m: PolicyModel, batch: PackedBatch): tf.Tensor {
  return tf.tidy(() => {
    const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
    return tokenLogprobs(forward(m.config, m.params, ids), batch, false, true).vocab!;
  });
}

/** Candidate `k` of a row's teacher prompts; a row with fewer candidates reuses them cyclically (upstream's K-loop). */
function candidatePrompt(row: z.output<typeof trainSampleSchema>, k: number): number[] | undefined {
  const cands = row.teacherPromptCandidates;
  return cands ? cands[k % cands.length] : row.teacherPromptIds;
}

/** The teacher's log-probs over the vocabulary for each row's candidate `k`, laid out on `batch`, [B*(T-1)*V]. */
function candidateDistribution(
  teacher: PolicyModel,
  batch: PackedBatch,
  rows: ReadonlyArray<z.output<typeof trainSampleSchema>>,
  k: number,
): Float32Array {
  return vocabLogprobsAt(
    teacher,
    batch,
    rows.flatMap((r, i) =>
      r.teacherPromptIds ? [{ row: i, promptIds: candidatePrompt(r, k)!, responseIds: r.responseIds }] : [],
    ),
  );
}

/** What the teacher needs to choose among hint candidates: the student's distribution and the chosen k*. */
type CandidateChoice = {
  mode: TrainHintSelection;
  topK: number;
  /** the student's log-probs over the vocabulary on `batch` ([B*(T-1)*V]), computed on demand */
  student: () => Float32Array;
  /** k*(t) per sample, decided once (against π_old's top-K, as upstream) and reused by later epochs */
  chosen: Map<number, number[]>;
  sampleIndex: readonly number[];
};

/**
 * The teacher's log-probs over the vocabulary at the student's response positions of `batch`, [B, T-1, V]
 * (zeros elsewhere), and a [B, 1] indicator of the rows that have a teacher prompt. Plain data: no gradient.
 * Rows with several hint candidates take, at each position, the distribution of the candidate `choice` picks.
 */
function teacherDistribution(
  teacher: PolicyModel,
  batch: PackedBatch,
  rows: ReadonlyArray<z.output<typeof trainSampleSchema>>,
  choice: CandidateChoice,
): { logp: tf.Tensor3D; rows: tf.Tensor2D } {
  const V = teacher.config.vocabSize;
  const W = batch.T - 1;
  const has = rows.map((r) => (r.teacherPromptIds ? 1 : 0));
  const kMax = choice.mode === "shortest" ? 1 : Math.max(1, ...rows.map((r) => r.teacherPromptCandidates?.length ?? 1));
  const dists = Array.from({ length: kMax }, (_, k) => candidateDistribution(teacher, batch, rows, k));
  const out = dists[0];
  if (kMax > 1) {
    let student: Float32Array | null = null;
    rows.forEach((r, i) => {
      const K = r.teacherPromptCandidates?.length ?? 1;
      if (K < 2) return;
      const { start, length } = batch.spans[i];
      const at = (t: number) => (i * W + start + t) * V;
      let kStar = choice.chosen.get(choice.sampleIndex[i]);
      if (!kStar) {
        student ??= choice.student();
        const s = student;
        const studentTop = Array.from({ length }, (_, t) => topKIndices(s.subarray(at(t), at(t) + V), choice.topK));
        const teacherTop = dists
          .slice(0, K)
          .map((d) => Array.from({ length }, (_, t) => topKIndices(d.subarray(at(t), at(t) + V), choice.topK)));
        kStar = selectCandidatePerToken(overlapCounts(studentTop, teacherTop), choice.mode);
        choice.chosen.set(choice.sampleIndex[i], kStar);
      }
      kStar.forEach((k, t) => {
        if (k !== 0) out.set(dists[k].subarray(at(t), at(t) + V), at(t));
      });
    });
  }
  return { logp: tf.tensor3d(out, [batch.B, W, V]), rows: tf.tensor2d(has, [batch.B, 1]) };
}

/**
 * ExOPD: the hinted teacher's distribution moved λ times its difference from the base's (both over the vocabulary at
 * the student's response positions), renormalised. Takes ownership of `teacher.logp`.
 */
export function extrapolate(
  teacher: { logp: tf.Tensor3D; rows: tf.Tensor2D },
  base: tf.Tensor,
  lambda: number,
): { logp: tf.Tensor3D; rows: tf.Tensor2D } {
  const logp = tf.tidy(() => tf.logSoftmax(tf.add(base, tf.mul(tf.sub(teacher.logp, base), lambda))) as tf.Tensor3D);
  teacher.logp.dispose();
  return { logp, rows: teacher.rows };
}

export async function trainStep(
  model: PolicyModel,
  optimizer: Adam,
  samplesIn: readonly TrainSample[],
  hyperIn: TrainHyper = {},
  options: TrainOptions = {},
): Promise<TrainMetrics> {
  const hyper = trainHyperSchema.parse(hyperIn);
  const samples = samplesIn.map((s) => trainSampleSchema.parse(s));
  const N = samples.length;
  if (N === 0) throw new Error("trainStep needs at least one sample");
  const mbs = hyper.microBatchSize;
  const items = samples.map((s) => ({ promptIds: s.promptIds, responseIds: s.responseIds }));

  // π_old and the advantages are taken once, before epoch 0, and held for every epoch.
  let old = samples.map((s) => s.oldLogprobs);
  let advBase = old;
  let absDiff = 0;
  if (hyper.oldLogprobs !== "rollout") {
    const current = scoreBatch(model, items, mbs);
    let n = 0;
    // Demonstrations were not sampled from the policy: they have no rollout log-probs to compare.
    samples.forEach((s, i) =>
      s.kind === "DEMO"
        ? undefined
        : s.oldLogprobs.forEach((lp, t) => {
            absDiff += Math.abs(lp - current[i][t]);
            n++;
          }),
    );
    absDiff /= Math.max(n, 1);
    advBase = current;
    if (hyper.oldLogprobs === "recompute") old = current;
    await yieldToEventLoop();
  }
  const ref = options.refModel ? scoreBatch(options.refModel, items, mbs) : undefined;
  const adv = batchAdvantages(samples, advBase, hyper);
  const distill = hyper.opdEstimator !== "sampled" && samples.some((s) => s.teacherPromptIds);
  if (distill && !options.teacherModel)
    throw new Error(`the ${hyper.opdEstimator} OPD estimator needs a teacher model`);
  if (hyper.baseKlCoef > 0 && !options.refModel) throw new Error("baseKlCoef > 0 needs the base (refModel)");
  if (distill && hyper.opdExtrapolation !== 1 && !options.refModel)
    throw new Error("opdExtrapolation ≠ 1 needs the base (refModel)");
  const demos = samples.filter((x) => x.kind === "DEMO").length;
  if (distill && demos > 0 && hyper.demoFocus === "hint" && !options.refModel)
    throw new Error("demoFocus hint needs the base (refModel)");

  // Hint candidates chosen in epoch 0, against the student's top-K before this step's update (π_old).
  const chosenCandidates = new Map<number, number[]>();
  const names = paramNames(model.config);
  const totals: Record<string, number> = {};
  let last: TrainMetrics | null = null;
  for (let epoch = 0; epoch < hyper.epochs; epoch++) {
    if (epoch > 0) await yieldToEventLoop();
    let acc: tf.Tensor[] | null = null;
    const sums = {
      loss: 0,
      pg_loss: 0,
      pg_clipfrac: 0,
      ppo_kl: 0,
      kl_loss: 0,
      entropy: 0,
      distill_kl: 0,
      kl_base: 0,
      demo_nll: 0,
    };
    let responseTokens = 0;
    let promptTokens = 0;

    for (let s = 0; s < N; s += mbs) {
      if (s > 0) await yieldToEventLoop();
      const idx = Array.from({ length: Math.min(mbs, N - s) }, (_, j) => s + j);
      const batch = packBatch(
        idx.map((i) => items[i]),
        model.config.ctx,
      );
      responseTokens += idx.reduce((a, i) => a + samples[i].responseIds.length, 0);
      promptTokens += batch.promptTokens;
      const share = batch.B / N; // sampleMean divides by the micro-batch size; rescale to the batch

      // The exact KL to the base, and ExOPD's reference, cost a base forward per micro-batch: only when asked for
      // (train/kl_loss, the k3 estimate, reports the distance to the base otherwise).
      const extrapolating = distill && hyper.opdExtrapolation !== 1;
      // demoFocus "hint" weighs a demonstration's positions by where the hint moved the teacher from the base.
      const focusing = distill && demos > 0 && hyper.demoFocus === "hint";
      const baseDist =
        options.refModel && (hyper.baseKlCoef > 0 || extrapolating || focusing)
          ? vocabDistribution(options.refModel, batch)
          : null;
      const hinted = distill
        ? teacherDistribution(
            options.teacherModel!,
            batch,
            idx.map((i) => samples[i]),
            {
              mode: hyper.hintSelection,
              topK: hyper.topK,
              student: () => {
                const d = vocabDistribution(model, batch);
                const data = d.dataSync() as Float32Array;
                d.dispose();
                return data;
              },
              chosen: chosenCandidates,
              sampleIndex: idx,
            },
          )
        : null;
      const teacherDist = hinted && extrapolating ? extrapolate(hinted, baseDist!, hyper.opdExtrapolation) : hinted;
      const needVocab = teacherDist !== null || baseDist !== null;
      let metricsT: tf.Tensor | null = null;
      const { value, grads } = tf.tidy(() => {
        const inputs = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
        const mask = tf.tensor2d(batch.mask, [batch.B, batch.T - 1]);
        const oldT = spread(
          batch,
          idx.map((i) => old[i]),
        );
        const advT = spread(
          batch,
          idx.map((i) => adv[i]),
        );
        const refT = ref
          ? spread(
              batch,
              idx.map((i) => ref[i]),
            )
          : undefined;
        const weights = samples.some((x) => x.weight !== undefined)
          ? tf.tensor1d(idx.map((i) => samples[i].weight ?? 1))
          : undefined;
        const demoRows = idx.map((i) => (samples[i].kind === "DEMO" ? 1 : 0));
        const demoMask = demos ? tf.mul(mask, tf.tensor2d(demoRows, [batch.B, 1])) : undefined;
        // Demonstrations train by cross-entropy only: their tokens leave the policy-gradient terms.
        const pgMask = demoMask ? tf.sub(mask, demoMask) : mask;
        // Constant across the loss's evaluation: computed once here, outside the gradient's tape.
        const focusWeights =
          demoMask && focusing && baseDist && teacherDist
            ? hintFocusWeights(teacherDist.logp, baseDist, tf.mul(demoMask, teacherDist.rows))
            : null;
        const lossFn = (...paramList: tf.Tensor[]): tf.Scalar => {
          const params: Params = Object.fromEntries(names.map((n, k) => [n, paramList[k]]));
          const logits = forward(model.config, params, inputs);
          const { logprobs, entropy, vocab } = tokenLogprobs(logits, batch, true, needVocab);
          const inp: PolicyLossInputs = {
            logprobs,
            oldLogprobs: oldT,
            advantages: advT,
            mask: pgMask,
            refLogprobs: refT,
            entropy: entropy ?? undefined,
            sampleWeights: weights,
            demoMask,
            ...(needVocab ? { vocabLogprobs: vocab! } : {}),
            ...(baseDist && hyper.baseKlCoef > 0 ? { baseVocabLogprobs: baseDist } : {}),
            ...(teacherDist
              ? {
                  teacherVocabLogprobs: teacherDist.logp,
                  distillMask: tf.mul(pgMask, teacherDist.rows),
                  // a demonstration with a teacher prompt (hindsightTarget "teacher") follows its distribution
                  ...(demoMask ? { demoTeacherMask: tf.mul(demoMask, teacherDist.rows) } : {}),
                  ...(focusWeights ? { demoFocusWeights: focusWeights } : {}),
                }
              : {}),
          };
          const { loss, metrics } = options.customLoss
            ? customPolicyLoss(options.customLoss, inp, hyper)
            : policyLoss(inp, hyper);
          metricsT = tf.keep(tf.stack(METRIC_KEYS.map((k) => metrics[k])));
          return tf.mul(loss, share);
        };
        return tf.valueAndGrads(lossFn)(names.map((n) => model.params[n]));
      });
      if (teacherDist) tf.dispose([teacherDist.logp, teacherDist.rows]);
      if (baseDist) baseDist.dispose();
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

    last = {
      "train/loss": sums.loss,
      "train/pg_loss": sums.pg_loss,
      "train/pg_clipfrac": sums.pg_clipfrac,
      "train/ppo_kl": sums.ppo_kl,
      "train/kl_loss": sums.kl_loss,
      "train/entropy": sums.entropy,
      "train/distill_kl": sums.distill_kl,
      ...(hyper.baseKlCoef > 0 ? { "train/kl_base": sums.kl_base } : {}),
      "train/demo_nll": sums.demo_nll,
      "train/demo_samples": demos,
      "train/epochs": hyper.epochs,
      "train/grad_norm": gradNorm,
      ...(hyper.oldLogprobs !== "rollout" ? { "train/train_rollout_logprob_abs_diff": absDiff } : {}),
      "train/lr": lr,
      "train/samples": N,
      "train/response_tokens": responseTokens,
      "train/prompt_tokens": promptTokens,
    };
    options.onEpoch?.(epoch, { oldLogprobs: old, metrics: last });
    for (const [k, v] of Object.entries(last)) totals[k] = (totals[k] ?? 0) + v;
  }
  // Loss-side metrics are the mean over epochs (the clip fraction then reports how much the trust region bound);
  // counts are per batch.
  const mean = Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v / hyper.epochs]));
  return { ...(mean as unknown as TrainMetrics), ...pickCounts(last!) };
}

function pickCounts(m: TrainMetrics) {
  return {
    "train/demo_samples": m["train/demo_samples"],
    "train/epochs": m["train/epochs"],
    "train/lr": m["train/lr"],
    "train/samples": m["train/samples"],
    "train/response_tokens": m["train/response_tokens"],
    "train/prompt_tokens": m["train/prompt_tokens"],
  };
}
