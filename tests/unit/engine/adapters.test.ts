// Per-user adapters on the embedded engine: serving a user's adapter (merged on the shared base), the pool's
// eviction, and one adapter training step (gradients on A and B only; the base never moves).
import * as tf from "@tensorflow/tfjs-core";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdapterPool } from "../../../server/engine/adapterPool";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint, saveCheckpoint } from "../../../server/engine/checkpoint";
import { EmbeddedEngine } from "../../../server/engine/engine";
import { generate } from "../../../server/engine/generate";
import {
  adaptedParams,
  createAdapter,
  defaultTargets,
  disposeAdapter,
  serializeAdapter,
  type LoraAdapter,
} from "../../../server/engine/lora";
import { adapterStep } from "../../../server/engine/loraTrain";
import { disposeModel, type PolicyModel } from "../../../server/engine/model";
import { scoreResponse } from "../../../server/engine/score";
import { encode, END_ID, renderChat, type ChatMessage } from "../../../server/engine/tokenizer";
import { MICRO, maxAbsDiff, microModel, randomArray } from "./helpers";

let dir = "";
let base: PolicyModel;
const messages: ChatMessage[] = [{ role: "user", content: "Plan my week" }];
const sampling = { maxTokens: 12, seed: 5, stopIds: [] as number[] };

/** An adapter whose B is random (a fresh one has B = 0 and reproduces the base). */
function trainedLike(seed: number): LoraAdapter {
  const a = createAdapter(MICRO, { rank: 2, alpha: 4, targets: defaultTargets(MICRO) }, seed);
  for (const [n, p] of a.pairs) {
    p.B.dispose();
    a.pairs.set(n, { A: p.A, B: tf.tensor2d(randomArray(p.B.size, seed + 1, 0.5), p.B.shape) });
  }
  return a;
}

beforeAll(async () => {
  await initBackend();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "adapters-"));
  await saveCheckpoint(path.join(dir, "base"), microModel(3, 4), { version: 1, step: 0 });
  base = (await loadCheckpoint(path.join(dir, "base"))).model;
});
afterAll(async () => {
  disposeModel(base);
  await fs.rm(dir, { recursive: true, force: true });
});

describe("serving a user's adapter", () => {
  it("answers exactly as the merged model would, and a fresh adapter exactly as the base", async () => {
    const engine = new EmbeddedEngine();
    await engine.load(path.join(dir, "base"));
    const prompt = renderChat(messages, { addGenerationPrompt: true });
    const user = trainedLike(11);
    const merged = { config: base.config, params: adaptedParams(base.params, user) };
    const expected = await generate(merged, prompt, sampling);
    const served = await engine.chat(messages, {
      ...sampling,
      adapter: { key: "u1@1", weights: serializeAdapter(user) },
    });
    expect(served.tokenIds).toEqual(expected.tokenIds);
    expect(maxAbsDiff(served.logprobs, expected.logprobs)).toBeLessThan(1e-4);

    const fresh = createAdapter(MICRO, { rank: 2, alpha: 4, targets: defaultTargets(MICRO) }, 1);
    const plain = await engine.chat(messages, sampling);
    const viaFresh = await engine.chat(messages, {
      ...sampling,
      adapter: { key: "u2@1", weights: serializeAdapter(fresh) },
    });
    expect(viaFresh.tokenIds).toEqual(plain.tokenIds);
    expect(served.tokenIds).not.toEqual(plain.tokenIds); // the adapter changes the answer
    for (const n of user.pairs.keys()) merged.params[n].dispose();
    disposeAdapter(user);
    disposeAdapter(fresh);
    engine.dispose();
  });

  it("keeps at most `max` merged adapters, evicting the least recently used, and frees an evicted one only after its generation", () => {
    const pool = new AdapterPool(2);
    const w = (s: number) => serializeAdapter(trainedLike(s));
    const a = pool.acquire(base, 1, { key: "a", weights: w(21) });
    pool.acquire(base, 1, { key: "b", weights: w(22) }).release();
    pool.acquire(base, 1, { key: "c", weights: w(23) }).release(); // evicts a (least recently used), still pinned
    expect(pool.keys()).toEqual(["1:b", "1:c"]);
    const target = defaultTargets(MICRO)[0];
    expect(a.model.params[target].isDisposed).toBe(false);
    a.release();
    expect(a.model.params[target].isDisposed).toBe(true);
    // The base's own tensors are shared, never freed with an adapter.
    expect(a.model.params.wte).toBe(base.params.wte);
    expect(base.params.wte.isDisposed).toBe(false);
    pool.forget("c");
    expect(pool.keys()).toEqual(["1:b"]);
    pool.clear();
    expect(pool.size).toBe(0);
  });
});

describe("one adapter step", () => {
  const prompt = renderChat(messages, { addGenerationPrompt: true });
  const response = [...encode("ok"), END_ID];
  const logp = (m: PolicyModel) => scoreResponse(m, prompt, response).reduce((s, x) => s + x, 0);

  it("raises a rewarded reply's log-prob and lowers a punished one's, touching only A and B", () => {
    const before = Object.fromEntries(Object.entries(base.params).map(([k, t]) => [k, t.dataSync().slice()]));
    const start = createAdapter(MICRO, { rank: 2, alpha: 4, targets: defaultTargets(MICRO) }, 7);
    const served = (a: LoraAdapter) => {
      const params = adaptedParams(base.params, a);
      const v = logp({ config: base.config, params });
      for (const n of a.pairs.keys()) params[n].dispose();
      return v;
    };
    const l0 = served(start);
    const up = adapterStep(base, start, [{ promptIds: prompt, responseIds: response, reward: 1 }], { lr: 0.5 });
    const down = adapterStep(base, start, [{ promptIds: prompt, responseIds: response, reward: -1 }], { lr: 0.5 });
    const zero = adapterStep(base, start, [{ promptIds: prompt, responseIds: response, reward: 1 }], { lr: 0 });
    expect(served(up.adapter)).toBeGreaterThan(l0);
    expect(served(down.adapter)).toBeLessThan(l0);
    expect(served(zero.adapter)).toBeCloseTo(l0, 6);
    expect(up.gradNorm).toBeGreaterThan(0);
    for (const [k, t] of Object.entries(base.params)) expect(maxAbsDiff(t.dataSync(), before[k])).toBe(0);
    // The parent adapter is left as it was (a rollback serves it again).
    expect(served(start)).toBeCloseTo(l0, 6);
    for (const a of [start, up.adapter, down.adapter, zero.adapter]) disposeAdapter(a);
  });
});
