/**
 * Adam(W) over a name→tensor parameter record, with state that checkpoints can save bit-exactly
 * (tfjs's own optimizers key their state on global variable names, which our plain-tensor params
 * do not have).
 */
import * as tf from "@tensorflow/tfjs-core";
import { z } from "zod";
import type { Params } from "./model";

export const adamConfigSchema = z.object({
  // 0 is a control run: moments update, the weights do not move.
  lr: z.number().min(0).default(3e-4),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.98),
  eps: z.number().positive().default(1e-8),
  /** decoupled weight decay (AdamW), applied to 2-D weights only */
  weightDecay: z.number().min(0).default(0),
});
export type AdamConfig = z.input<typeof adamConfigSchema>;

export interface AdamState {
  step: number;
  m: Record<string, Float32Array>;
  v: Record<string, Float32Array>;
}

export class Adam {
  readonly config: z.output<typeof adamConfigSchema>;
  step = 0;
  private m = new Map<string, tf.Tensor>();
  private v = new Map<string, tf.Tensor>();

  constructor(config: AdamConfig = {}) {
    this.config = adamConfigSchema.parse(config);
  }

  /** Replace each param in `params` by its updated value (old tensors and grads are disposed by the caller). */
  apply(params: Params, grads: Record<string, tf.Tensor>, lr = this.config.lr): void {
    const { beta1, beta2, eps, weightDecay } = this.config;
    this.step += 1;
    const bc1 = 1 - beta1 ** this.step;
    const bc2 = 1 - beta2 ** this.step;
    for (const [name, g] of Object.entries(grads)) {
      const p = params[name];
      if (!p) throw new Error(`gradient for unknown parameter ${name}`);
      const [m, v, next] = tf.tidy(() => {
        const m0 = this.m.get(name) ?? tf.zerosLike(p);
        const v0 = this.v.get(name) ?? tf.zerosLike(p);
        const m1 = tf.add(tf.mul(m0, beta1), tf.mul(g, 1 - beta1));
        const v1 = tf.add(tf.mul(v0, beta2), tf.mul(tf.square(g), 1 - beta2));
        let step = tf.div(tf.mul(m1, lr / bc1), tf.add(tf.sqrt(tf.div(v1, bc2)), eps));
        if (weightDecay > 0 && p.rank >= 2) step = tf.add(step, tf.mul(p, lr * weightDecay));
        return [m1, v1, tf.sub(p, step)];
      });
      this.m.get(name)?.dispose();
      this.v.get(name)?.dispose();
      this.m.set(name, m);
      this.v.set(name, v);
      p.dispose();
      params[name] = next;
    }
  }

  getState(): AdamState {
    const m: Record<string, Float32Array> = {};
    const v: Record<string, Float32Array> = {};
    for (const [k, t] of this.m) m[k] = t.dataSync() as Float32Array;
    for (const [k, t] of this.v) v[k] = t.dataSync() as Float32Array;
    return { step: this.step, m, v };
  }

  setState(state: AdamState, shapes: Record<string, number[]>): void {
    this.dispose();
    this.step = state.step;
    for (const [k, a] of Object.entries(state.m)) this.m.set(k, tf.tensor(a, shapes[k], "float32"));
    for (const [k, a] of Object.entries(state.v)) this.v.set(k, tf.tensor(a, shapes[k], "float32"));
  }

  dispose(): void {
    for (const t of [...this.m.values(), ...this.v.values()]) t.dispose();
    this.m.clear();
    this.v.clear();
  }
}

/** √(Σ‖g‖²) over a list of gradients. */
export function globalNorm(grads: readonly tf.Tensor[]): number {
  const sq = tf.tidy(() => tf.addN(grads.map((g) => tf.sum(tf.square(g)))));
  const v = sq.dataSync()[0];
  sq.dispose();
  return Math.sqrt(v);
}
