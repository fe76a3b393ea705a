/**
 * Many users' adapters in memory on one base: each served adapter is merged into the base once (W + (α/r)·Aᵀ·Bᵀ
 * on its target projections only; every other tensor is the base's own, shared), so a request on an adapter
 * costs what a request on the base costs. The pool keeps the most recently used `max` merged models and
 * evicts the least recently used; an evicted model still generating is freed when its last generation ends.
 */
import * as tf from "@tensorflow/tfjs-core";
import { adaptedParams, deserializeAdapter, disposeAdapter } from "./lora";
import type { PolicyModel } from "./model";

/** An adapter version to serve: `key` names it (its id; the same key always carries the same weights). */
export interface ServedAdapter {
  key: string;
  weights: Uint8Array;
}

interface Merged {
  model: PolicyModel;
  targets: string[];
  pins: number;
  evicted: boolean;
}

export interface AdapterLease {
  model: PolicyModel;
  release(): void;
}

export class AdapterPool {
  /** Map order is recency: the first entry is the least recently used. */
  private readonly entries = new Map<string, Merged>();

  constructor(private max: number) {}

  get size(): number {
    return this.entries.size;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  resize(max: number): void {
    this.max = Math.max(1, max);
    this.trim();
  }

  /** The base (`baseVersion`) with this adapter merged in, pinned until `release`. */
  acquire(base: PolicyModel, baseVersion: number, served: ServedAdapter): AdapterLease {
    const k = `${baseVersion}:${served.key}`;
    let e = this.entries.get(k);
    if (e) this.entries.delete(k);
    else e = merge(base, served.weights);
    this.entries.set(k, e);
    e.pins += 1;
    this.trim(k);
    const entry = e;
    let released = false;
    return {
      model: entry.model,
      release: () => {
        if (released) return;
        released = true;
        entry.pins -= 1;
        if (entry.evicted && entry.pins === 0) free(entry);
      },
    };
  }

  /** Drop every merged model (the base was swapped, or the engine is closing). */
  clear(): void {
    for (const k of [...this.entries.keys()]) this.evict(k);
  }

  /** Drop one adapter's merged models, whatever base version they were merged on (a rollback, a deletion). */
  forget(key: string): void {
    for (const k of [...this.entries.keys()]) if (k.slice(k.indexOf(":") + 1) === key) this.evict(k);
  }

  private trim(keep?: string): void {
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      if (k !== keep) this.evict(k);
    }
  }

  private evict(k: string): void {
    const e = this.entries.get(k);
    if (!e) return;
    this.entries.delete(k);
    e.evicted = true;
    if (e.pins === 0) free(e);
  }
}

function merge(base: PolicyModel, weights: Uint8Array): Merged {
  const adapter = deserializeAdapter(weights, base.config);
  try {
    const params = tf.tidy(() => adaptedParams(base.params, adapter));
    return { model: { config: base.config, params }, targets: [...adapter.pairs.keys()], pins: 0, evicted: false };
  } finally {
    disposeAdapter(adapter);
  }
}

/** Only the merged targets are this entry's own; the other tensors belong to the base. */
function free(e: Merged): void {
  for (const n of e.targets) e.model.params[n].dispose();
}
