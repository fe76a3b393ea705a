/**
 * One training step of a user's LoRA adapter on the frozen base: a policy-gradient step on that user's judged
 * samples only. The loss is OpenClaw-RL's binary-reward RL term with advantages A = r (no whitening: the judge's
 * −1/0/+1 is already centred, and one user's small batch has too few samples for a stable baseline),
 *   L = −(1/N) Σ_i A_i · mean_t log π_{base+adapter}(y_{i,t} | x_i, y_{i,<t})
 * and its gradients reach A and B only (lora.ts `adapterGrads`): the base is read, never updated, so every
 * user's adapter sits on the same base and one user's step cannot move another user's model.
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import { adapterGrads, sgdStep, disposeAdapter, type LoraAdapter, type LoraPair } from "./lora";
import { forward, type PolicyModel } from "./model";
import { packBatch, tokenLogprobs } from "./score";

export const adapterSampleSchema = z.object({
  promptIds: z.array(z.number().int().min(0)).min(1),
  responseIds: z.array(z.number().int().min(0)).min(1),
  reward: z.number().min(-1).max(1),
});
export type AdapterSample = z.infer<typeof adapterSampleSchema>;

export interface AdapterStepResult {
  adapter: LoraAdapter;
  loss: number;
  gradNorm: number;
}

/**
 * One SGD step; returns a new adapter (the given one is left intact, so a caller can keep the parent version).
 * `gradClip` bounds the global gradient norm (0: off).
 */
export function adapterStep(
  base: PolicyModel,
  adapter: LoraAdapter,
  samplesIn: readonly AdapterSample[],
  opts: { lr: number; gradClip?: number; advantages?: "raw" | "centered" | "positive" },
): AdapterStepResult {
  const samples = samplesIn.map((s) => adapterSampleSchema.parse(s));
  if (!samples.length) throw new Error("adapterStep needs at least one sample");
  const mode = opts.advantages ?? "raw";
  const mean = mode === "raw" ? 0 : samples.reduce((s, x) => s + x.reward, 0) / samples.length;
  const advantages = samples.map((s) => Math.max(mode === "positive" ? 0 : -1, Math.min(1, s.reward - mean)));
  const batch = packBatch(samples, base.config.ctx);
  const lengths = batch.spans.map((s) => s.length);
  const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
  // Per row: A_i / (N · |y_i|) on its response tokens, so the sum is the mean over samples of token means.
  const weights = tf.tidy(() =>
    tf.mul(
      tf.tensor2d(batch.mask, [batch.B, batch.T - 1]),
      tf.tensor2d(
        advantages.map((a, i) => a / (samples.length * lengths[i])),
        [batch.B, 1],
      ),
    ),
  );
  const { value, grads } = adapterGrads(base.params, adapter, (params) => {
    const { logprobs } = tokenLogprobs(forward(base.config, params, ids), batch, false);
    return tf.neg(tf.sum(tf.mul(logprobs, weights))) as tf.Scalar;
  });
  tf.dispose([ids, weights]);
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
