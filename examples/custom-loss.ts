/**
 * Example custom policy loss: a CISPO-style objective. Instead of clipping the PPO surrogate, it
 * clips the importance weight and treats it as data (no gradient through it), so every token keeps
 * a gradient:  loss = −agg( sg(min(ratio, 1 + ε_high)) · A · log π ),  with agg = token mean per
 * sample, then mean over samples.
 *
 * Use it with `loadCustomLoss("custom-loss.ts")` (relative to EXTENSIONS_DIR) and pass the result to trainStep's
 * `customLoss` option; loadCustomLoss checks on a tiny probe that it returns a finite scalar with a
 * finite gradient.
 */
import * as tf from "@tensorflow/tfjs-core";
import { sampleMean, stopGradient, type CustomLossArgs } from "../server/engine/losses";

const EPS_HIGH = 0.28;

export default function cispoLoss({
  logprobs,
  oldLogprobs,
  advantages,
  mask,
  sampleWeights,
}: CustomLossArgs): tf.Scalar {
  const ratio = stopGradient(tf.minimum(tf.exp(tf.sub(logprobs, oldLogprobs)), 1 + EPS_HIGH));
  return sampleMean(tf.neg(tf.mul(tf.mul(ratio, advantages), logprobs)), mask, sampleWeights);
}
