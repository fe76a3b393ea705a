/**
 * One training step of a user's LoRA adapter on the frozen base: a policy-gradient step on that user's judged
 * samples only, plus (hindsight) a cross-entropy step toward that user's demonstrations. The loss is OpenClaw-RL's
 * binary-reward RL term with advantages A_i (adapterStep's `advantages`), and the shared trainer's demonstration
 * term (losses.ts agg_demo, weight w_demo) on the demonstrations D, both reduced like the shared trainer's
 * ("sum_of_sample_mean", losses.ts sampleMean, over all N = |samples| + |D| rows):
 *   L = −(1/N) Σ_{i ∈ samples} A_i · mean_t log π(y_{i,t} | x_i, y_{i,<t})  +  w_demo · (1/N) Σ_{d ∈ D} mean_t −log π(y_{d,t} | x_d, …)
 *       + β · (1/N) Σ_{i ∈ samples} mean_t KL(π ‖ π_base)(· | x_i, y_{i,<t})      (optional, `baseKl`: the exact KL over the
 *         vocabulary; on the demonstrations' rows too with `baseKlScope` "all")
 * with π = base + adapter. Gradients reach A and B only (lora.ts `adapterGrads`): the base is read, never updated, so
 * every user's adapter sits on the same base and one user's step cannot move another user's model.
 * A demonstration's term can instead follow the hinted teacher's distribution (`demoTarget`), and its positions can be
 * weighted by where the hint moved the teacher (`demoFocus`).
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { adapterGrads, sgdStep, disposeAdapter, type LoraAdapter, type LoraPair } from "./lora";
import { distillationKl, forwardKl, hintFocusWeights, sampleMean } from "./losses";
import { forward, type PolicyModel } from "./model";
import { packBatch, tokenLogprobs, vocabLogprobsAt } from "./score";

export const adapterSampleSchema = z.object({
  promptIds: z.array(z.number().int().min(0)).min(1),
  responseIds: z.array(z.number().int().min(0)).min(1),
  reward: z.number().min(-1).max(1),
});
export type AdapterSample = z.infer<typeof adapterSampleSchema>;

/** A demonstration for the adapter (hindsight, training/trainInputs.ts hintedTeacherDemos): a target reply, no reward. */
export const adapterDemoSchema = adapterSampleSchema
  .pick({ promptIds: true, responseIds: true })
  .extend({ hintedPromptIds: z.array(z.number().int().min(0)).min(1).optional() });
export type AdapterDemo = z.infer<typeof adapterDemoSchema>;

export interface AdapterStepResult {
  adapter: LoraAdapter;
  loss: number;
  gradNorm: number;
}

/** What one adapter step trains toward and how far (adapterStep). */
export interface AdapterStepOptions {
  lr: number;
  gradClip?: number;
  advantages?: "raw" | "centered" | "positive";
  /** hindsight targets of this user's corrected turns, trained by cross-entropy */
  demos?: readonly AdapterDemo[];
  /** w_demo, the weight of the demonstrations' cross-entropy (default 1) */
  demoWeight?: number;
  /**
   * β: the weight of the exact KL(π ‖ base) over the vocabulary at the response positions of the rows `baseKlScope`
   * names, reduced like the other terms over all N rows (losses.ts kl_base); 0 (default) leaves it out
   */
  baseKl?: number;
  /** the rows the KL to the base acts on: the samples only ("samples", the default) or the demonstrations too ("all") */
  baseKlScope?: "samples" | "all";
  /**
   * What a demonstration trains toward: its sampled tokens ("sampled", cross-entropy, the default) or the hinted
   * teacher's whole distribution at each of its positions ("teacher": the forward KL(teacher ‖ π) over the
   * vocabulary, the frozen base on the demonstration's `hintedPromptIds`)
   */
  demoTarget?: "sampled" | "teacher";
  /**
   * Where a demonstration's term acts: every position alike ("uniform", the default), or weighted by how far the
   * hint moved the teacher from the base there ("hint": losses.ts hintFocusWeights, mean 1 per demonstration), so
   * the positions where the user's feedback decides (a reply's first word, a line break, a sign-off) carry the
   * step, and the content the base already writes is not pulled toward the hinted teacher's noisier copy of it.
   * Needs the demonstration's `hintedPromptIds`; one without is weighted uniformly.
   */
  demoFocus?: "uniform" | "hint";
  /**
   * τ of the teacher's distribution the "teacher" target follows: log q / τ renormalised per position (1, the
   * default: q as it is; below 1 sharper). The focus compares the teacher as it is with the base.
   */
  demoTemperature?: number;
}

/**
 * One SGD step; returns a new adapter (the given one is left intact, so a caller can keep the parent version).
 * `gradClip` bounds the global gradient norm (0: off).
 */
export function adapterStep(
  base: PolicyModel,
  adapter: LoraAdapter,
  samplesIn: readonly AdapterSample[],
  opts: AdapterStepOptions,
): AdapterStepResult {
  const samples = samplesIn.map((s) => adapterSampleSchema.parse(s));
  const demos = (opts.demos ?? []).map((d) => adapterDemoSchema.parse(d));
  if (!samples.length) throw new Error("adapterStep needs at least one sample");
  const mode = opts.advantages ?? "raw";
  const mean = mode === "raw" ? 0 : samples.reduce((s, x) => s + x.reward, 0) / samples.length;
  const rows: StepRow[] = [
    ...samples.map((s) => ({
      promptIds: s.promptIds,
      responseIds: s.responseIds,
      // A row's RL weight: A_i on a sample, 0 on a demonstration; the demonstrations' own term takes their rows.
      advantage: Math.max(mode === "positive" ? 0 : -1, Math.min(1, s.reward - mean)),
      demo: false,
    })),
    ...demos.map((d) => ({ ...d, advantage: 0, demo: true })),
  ];
  // The loss is a mean over all N rows, so it is a sum over micro-batches of (their rows' share) × their own mean:
  // the gradient is the whole batch's, but no [rows, positions, vocabulary] tensor is larger than a micro-batch's
  // (a user's multi-turn prompts with their demonstrations ran the engine's WebAssembly memory out at once).
  const part = (i: number) => {
    const chunk = rows.slice(i, i + STEP_MICRO_BATCH);
    return chunkGrads(base, adapter, chunk, opts, chunk.length / rows.length);
  };
  let { value, grads } = part(0);
  for (let i = STEP_MICRO_BATCH; i < rows.length; i += STEP_MICRO_BATCH) {
    const next = part(i);
    value += next.value;
    const sum = addGrads(grads, next.grads);
    disposeGrads(grads);
    disposeGrads(next.grads);
    grads = sum;
  }
  const gradNorm = Math.sqrt(
    [...grads.values()].reduce(
      (acc, g) => acc + tf.tidy(() => tf.add(tf.sum(tf.square(g.A)), tf.sum(tf.square(g.B))).dataSync()[0]),
      0,
    ),
  );
  const clip = opts.gradClip ?? 1;
  const scale = clip > 0 && gradNorm > clip ? clip / (gradNorm + 1e-6) : 1;
  const used = scaled(grads, scale);
  const next = sgdStep(adapter, used, opts.lr);
  disposeGrads(grads);
  if (used !== grads) disposeGrads(used);
  return { adapter: next, loss: value, gradNorm };
}

/** Rows of one micro-batch at most (the full-vocabulary terms hold [rows, positions, vocabulary] tensors). */
const STEP_MICRO_BATCH = 8;

/** A sample or a demonstration, with its policy-gradient weight (0 on a demonstration). */
type StepRow = AdapterDemo & { advantage: number; demo: boolean };

/**
 * The loss of some rows of the step, times `share` (their count over the step's), and its gradient on A and B: the
 * terms of adapterStep's loss restricted to these rows. The step sums the parts.
 */
function chunkGrads(
  base: PolicyModel,
  adapter: LoraAdapter,
  rows: readonly StepRow[],
  opts: AdapterStepOptions,
  share: number,
): { value: number; grads: Map<string, LoraPair> } {
  const batch = packBatch(rows, base.config.ctx);
  const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
  const mask = tf.tensor2d(batch.mask, [batch.B, batch.T - 1]);
  const adv = tf.tensor2d(
    rows.map((r) => r.advantage),
    [batch.B, 1],
  );
  // tidy: the rows' 0/1 column is an argument of the product, which would outlive the step otherwise (one tensor a step).
  const demoMask = tf.tidy(() =>
    tf.mul(
      mask,
      tf.tensor2d(
        rows.map((r) => (r.demo ? 1 : 0)),
        [batch.B, 1],
      ),
    ),
  );
  const wDemo = opts.demoWeight ?? 1;
  const beta = opts.baseKl ?? 0;
  // The anchor's rows (only built when it is on): the samples, or every row with the scope "all".
  const klMask = beta > 0 && opts.baseKlScope !== "all" ? tf.sub(mask, demoMask) : mask;
  const focusOnHint = opts.demoFocus === "hint";
  // The hinted teacher's distribution on the demonstrations that carry their hinted prompt: their target ("teacher"),
  // and what the focus compares with the base.
  const hasTeacher = rows.map((r) =>
    r.demo && r.hintedPromptIds && (opts.demoTarget === "teacher" || focusOnHint) ? 1 : 0,
  );
  const teacher = hasTeacher.some((t) => t)
    ? tf.tensor3d(
        vocabLogprobsAt(
          base,
          batch,
          rows.flatMap((r, j) =>
            hasTeacher[j] ? [{ row: j, promptIds: r.hintedPromptIds!, responseIds: r.responseIds }] : [],
          ),
        ),
        [batch.B, batch.T - 1, base.config.vocabSize],
      )
    : null;
  const teacherRows = tf.tensor2d(hasTeacher, [batch.B, 1]);
  // Demonstrations trained toward the teacher's distribution (those with their hinted prompt), and by cross-entropy.
  const teacherMask = tf.mul(mask, opts.demoTarget === "teacher" ? teacherRows : 0);
  const sampledMask = tf.sub(demoMask, teacherMask);
  // The frozen base's next-token distribution at the same positions (no adapter, outside the gradient).
  const baseVocab =
    beta > 0 || (focusOnHint && teacher)
      ? tf.tidy(() => tokenLogprobs(forward(base.config, base.params, ids), batch, false, true).vocab!)
      : null;
  // Each demonstration position's weight: where the hint moved the teacher (rows without a teacher keep 1).
  const focus =
    focusOnHint && teacher && baseVocab
      ? tf.tidy(() => hintFocusWeights(teacher, baseVocab, tf.mul(mask, teacherRows)))
      : null;
  const focused = (x: tf.Tensor) => (focus ? tf.mul(x, focus) : x);
  const tau = opts.demoTemperature ?? 1;
  const target =
    teacher && opts.demoTarget === "teacher"
      ? tau === 1
        ? teacher
        : tf.tidy(() => tf.logSoftmax(tf.div(teacher, tau)))
      : null;
  const hasDemos = rows.some((r) => r.demo);
  const out = adapterGrads(base.params, adapter, (params) => {
    const { logprobs, vocab } = tokenLogprobs(
      forward(base.config, params, ids),
      batch,
      false,
      beta > 0 || opts.demoTarget === "teacher",
    );
    let loss = tf.neg(sampleMean(tf.mul(logprobs, adv), mask)) as tf.Scalar;
    if (hasDemos) loss = tf.add(loss, tf.mul(sampleMean(focused(tf.neg(logprobs)), sampledMask), wDemo));
    if (target && vocab) loss = tf.add(loss, tf.mul(sampleMean(focused(forwardKl(target, vocab)), teacherMask), wDemo));
    if (vocab && baseVocab && beta > 0)
      loss = tf.add(loss, tf.mul(sampleMean(distillationKl(vocab, baseVocab), klMask), beta));
    return tf.mul(loss, share) as tf.Scalar;
  });
  tf.dispose([
    ids,
    mask,
    adv,
    demoMask,
    ...(klMask !== mask ? [klMask] : []),
    teacherRows,
    teacherMask,
    sampledMask,
    ...(baseVocab ? [baseVocab] : []),
    ...(teacher ? [teacher] : []),
    ...(target && target !== teacher ? [target] : []),
    ...(focus ? [focus] : []),
  ]);
  return out;
}

function addGrads(a: Map<string, LoraPair>, b: Map<string, LoraPair>): Map<string, LoraPair> {
  const out = new Map<string, LoraPair>();
  for (const [n, g] of a) {
    const h = b.get(n)!;
    out.set(n, { A: tf.add(g.A, h.A) as tf.Tensor2D, B: tf.add(g.B, h.B) as tf.Tensor2D });
  }
  return out;
}

function scaled(grads: Map<string, LoraPair>, scale: number): Map<string, LoraPair> {
  if (scale === 1) return grads;
  const out = new Map<string, LoraPair>();
  for (const [n, g] of grads)
    out.set(n, { A: tf.mul(g.A, scale) as tf.Tensor2D, B: tf.mul(g.B, scale) as tf.Tensor2D });
  return out;
}

function disposeGrads(grads: Map<string, LoraPair>): void {
  disposeAdapter({ rank: 1, alpha: 1, pairs: grads });
}
