// One supervised step of the pretraining scripts (pretrain-policy.ts, pretrain-toolcall.ts): cross-entropy on the
// response tokens of a packed batch, the gradient clipped to global norm 1, Adam at a warm-up-then-cosine rate
// (down to 10 % of the peak). Returns the step's loss, rate and gradient norm (before clipping).
import * as tf from "@tensorflow/tfjs-core";
import { forward, paramNames, type Params, type PolicyModel } from "../../server/engine/model";
import type { Adam } from "../../server/engine/optimizer";
import { globalNorm } from "../../server/engine/optimizer";
import { packBatch, tokenLogprobs } from "../../server/engine/score";

export interface Schedule {
  lr: number;
  warmup: number;
  steps: number;
}

/** Linear warm-up to `lr`, then a cosine from `lr` down to 0.1·lr at the last step. */
export function scheduledLr(step: number, s: Schedule): number {
  if (step <= s.warmup) return (s.lr * step) / s.warmup;
  const progress = Math.max(0, step - s.warmup) / Math.max(1, s.steps - s.warmup);
  return s.lr * (0.1 + 0.45 * (1 + Math.cos(Math.PI * progress)));
}

export function supervisedStep(
  model: PolicyModel,
  adam: Adam,
  seqs: { promptIds: number[]; responseIds: number[] }[],
  step: number,
  schedule: Schedule,
): { loss: number; lr: number; gnorm: number } {
  const config = model.config;
  const names = paramNames(config);
  const batch = packBatch(seqs, config.ctx);
  const { value, grads } = tf.tidy(() => {
    const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
    const mask = tf.tensor2d(batch.mask, [batch.B, batch.T - 1]);
    return tf.valueAndGrads((...ps: tf.Tensor[]) => {
      const params: Params = Object.fromEntries(names.map((n, i) => [n, ps[i]]));
      const { logprobs } = tokenLogprobs(forward(config, params, ids), batch, false);
      return tf.div(tf.neg(tf.sum(tf.mul(logprobs, mask))), tf.sum(mask)) as tf.Scalar;
    })(names.map((n) => model.params[n]));
  });
  const loss = value.dataSync()[0];
  value.dispose();
  const gnorm = globalNorm(grads);
  const clip = gnorm > 1 ? 1 / gnorm : 1;
  const scaled = grads.map((g) => tf.mul(g, clip));
  const lr = scheduledLr(step, schedule);
  adam.apply(model.params, Object.fromEntries(names.map((n, i) => [n, scaled[i]])), lr);
  tf.dispose([...grads, ...scaled]);
  return { loss, lr, gnorm };
}
