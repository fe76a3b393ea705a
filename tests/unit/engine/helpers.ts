/** Shared fixtures for the engine tests. */
import * as tf from "@tensorflow/tfjs-core";
import { createModel, type ModelConfig, type PolicyModel } from "../../../server/engine/model";
import { mulberry32 } from "../../../server/engine/rng";
import { VOCAB_SIZE } from "../../../server/engine/tokenizer";

export const MICRO: ModelConfig = { vocabSize: VOCAB_SIZE, ctx: 48, nLayer: 2, nEmbd: 16, nHead: 2 };

/** A micro model with weights large enough that outputs depend visibly on every parameter. */
export function microModel(seed: number, scale = 8, config: ModelConfig = MICRO): PolicyModel {
  const m = createModel(config, seed);
  for (const [k, t] of Object.entries(m.params)) {
    if (t.rank === 2) {
      m.params[k] = tf.mul(t, scale);
      t.dispose();
    }
  }
  return m;
}

export function randomArray(n: number, seed: number, scale = 1): Float32Array {
  const rng = mulberry32(seed);
  return Float32Array.from({ length: n }, () => (rng() * 2 - 1) * scale);
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** float64 reference product of row-major [batch,M,K]·[batch,K,N]. */
export function refMatMul(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  batch: number,
  M: number,
  K: number,
  N: number,
): Float64Array {
  const out = new Float64Array(batch * M * N);
  for (let p = 0; p < batch; p++)
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += a[p * M * K + i * K + k] * b[p * K * N + k * N + j];
        out[p * M * N + i * N + j] = s;
      }
  return out;
}
