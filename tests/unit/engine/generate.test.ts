import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import {
  fitPrompt,
  generate,
  generateBatch,
  generateStream,
  rowSeed,
  sampleToken,
  type TokenEvent,
} from "../../../server/engine/generate";
import { Decoder } from "../../../server/engine/decoder";
import { disposeModel, type PolicyModel } from "../../../server/engine/model";
import { mulberry32 } from "../../../server/engine/rng";
import { scoreBatch, scoreResponse } from "../../../server/engine/score";
import { renderChat } from "../../../server/engine/tokenizer";
import { maxAbsDiff, microModel } from "./helpers";

let model: PolicyModel;
const promptA = renderChat([{ role: "user", content: "How do I boil an egg?" }], { addGenerationPrompt: true });
const promptB = renderChat([{ role: "user", content: "Hi" }], { addGenerationPrompt: true });

beforeAll(async () => {
  await initBackend();
  model = microModel(5, 3, { vocabSize: 262, ctx: 64, nLayer: 2, nEmbd: 16, nHead: 2 });
});
afterAll(() => disposeModel(model));

describe("generation", () => {
  it("prefills a prompt exactly as one decode step per token would", () => {
    const decoder = new Decoder(model);
    const stepped = decoder.newState();
    let logits: Float32Array = new Float32Array(0);
    for (const id of promptA) logits = decoder.step([stepped], [id]);
    const prefilled = decoder.newState();
    expect(decoder.prefill(prefilled, promptA)).toEqual(logits);
    expect(prefilled.len).toBe(stepped.len);
    expect(prefilled.k).toEqual(stepped.k);
    expect(prefilled.v).toEqual(stepped.v);
    // A second prefill continues from where the first left off.
    for (const id of promptB) logits = decoder.step([stepped], [id]);
    expect(decoder.prefill(prefilled, promptB)).toEqual(logits);
  });

  it("streams exactly what the non-streaming call returns", async () => {
    const opts = { maxTokens: 20, temperature: 1, seed: 42, stopIds: [] };
    const events: TokenEvent[] = [];
    const stream = generateStream(model, promptA, opts);
    let it = await stream.next();
    while (!it.done) {
      events.push(it.value);
      it = await stream.next();
    }
    const streamed = it.value;
    const viaCallback: TokenEvent[] = [];
    const plain = await generate(model, promptA, { ...opts, onToken: (e) => viaCallback.push(e) });
    expect(plain).toEqual(streamed);
    expect(viaCallback).toEqual(events);
    expect(events.map((e) => e.tokenId)).toEqual(plain.tokenIds);
    expect(events.map((e) => e.logprob)).toEqual(plain.logprobs);
    expect(events.map((e) => e.text).join("")).toBe(plain.text);
    expect(plain.finishReason).toBe("length");
    expect(plain.tokenIds).toHaveLength(20);
  });

  it("a reply cut by max tokens inside a multi-byte character ends before it, not in '�'", async () => {
    const lead = (id: number) => id >= 0xc2 && id <= 0xf4;
    let checked = 0;
    for (let seed = 1; seed <= 200 && checked < 3; seed++) {
      const r = await generate(model, promptA, { maxTokens: 4, temperature: 1, seed, stopIds: [] });
      // The last token opens a character; the one before is plain ASCII (nothing else pending).
      if (!lead(r.tokenIds[3]!) || r.tokenIds[2]! >= 0x80) continue;
      checked++;
      expect(r.finishReason).toBe("length");
      expect(r.text.endsWith("\uFFFD")).toBe(false);
      expect(r.text).toBe(new TextDecoder().decode(Uint8Array.from(r.tokenIds.slice(0, 3).filter((id) => id < 256))));
    }
    expect(checked).toBe(3);
  });

  it("reports log-probs that scoring the response reproduces", async () => {
    for (const [prompt, seed] of [
      [promptA, 1],
      [promptB, 2],
    ] as const) {
      const r = await generate(model, prompt, { maxTokens: 30, seed, stopIds: [] });
      expect(maxAbsDiff(scoreResponse(model, r.promptIds, r.tokenIds), r.logprobs)).toBeLessThan(1e-4);
      // They are proper log-probabilities.
      r.logprobs.forEach((lp) => expect(lp).toBeLessThanOrEqual(0));
    }
  });

  it("batched rows equal single generations seeded with the row seed", async () => {
    const batch = await generateBatch(model, [promptA, promptB], { maxTokens: 15, seed: 9, stopIds: [] });
    for (const [row, prompt] of [promptA, promptB].entries()) {
      const single = await generate(model, prompt, { maxTokens: 15, seed: rowSeed(9, row), stopIds: [] });
      expect(batch[row].tokenIds).toEqual(single.tokenIds);
      expect(maxAbsDiff(batch[row].logprobs, single.logprobs)).toBeLessThan(1e-4);
    }
    const scored = scoreBatch(
      model,
      batch.map((r) => ({ promptIds: r.promptIds, responseIds: r.tokenIds })),
    );
    batch.forEach((r, i) => expect(maxAbsDiff(scored[i], r.logprobs)).toBeLessThan(1e-4));
  });

  it("is greedy at temperature 0 and stops on a stop token (included in the ids)", async () => {
    const g1 = await generate(model, promptA, { maxTokens: 8, temperature: 0, seed: 1, stopIds: [] });
    const g2 = await generate(model, promptA, { maxTokens: 8, temperature: 0, seed: 2, stopIds: [] });
    expect(g2.tokenIds).toEqual(g1.tokenIds);
    const stopAt = g1.tokenIds[2];
    const firstStop = g1.tokenIds.indexOf(stopAt);
    const stopped = await generate(model, promptA, { maxTokens: 8, temperature: 0, stopIds: [stopAt] });
    expect(stopped.finishReason).toBe("stop");
    expect(stopped.tokenIds).toEqual(g1.tokenIds.slice(0, firstStop + 1));
  });

  it("leaves no tensors behind, also when the consumer stops early", async () => {
    const before = tf.memory().numTensors;
    await generate(model, promptA, { maxTokens: 5, seed: 3 });
    const stream = generateStream(model, promptA, { maxTokens: 50, seed: 3, stopIds: [] });
    await stream.next();
    await stream.return(undefined as never);
    await expect(
      generate(model, promptA, {
        maxTokens: 5,
        onToken: () => {
          throw new Error("boom");
        },
      }),
    ).rejects.toThrow("boom");
    expect(tf.memory().numTensors).toBe(before);
  });

  it("left-truncates prompts to fit the context", async () => {
    const long = Array.from({ length: 100 }, (_, i) => i);
    expect(fitPrompt(long, 64, 20)).toEqual({ prompt: long.slice(56), maxTokens: 20 });
    // Room is reserved for at most ctx/2 new tokens; a shorter prompt keeps everything.
    expect(fitPrompt(long, 64, 500)).toEqual({ prompt: long.slice(68), maxTokens: 32 });
    expect(fitPrompt([1, 2, 3], 64, 500)).toEqual({ prompt: [1, 2, 3], maxTokens: 61 });
    const r = await generate(
      model,
      long.map((i) => 97 + (i % 26)),
      { maxTokens: 40, seed: 1, stopIds: [] },
    );
    expect(r.promptIds).toEqual(long.slice(68).map((i) => 97 + (i % 26)));
    expect(r.tokenIds).toHaveLength(32);
  });
});

describe("sampling", () => {
  const logp = Float64Array.from([0.5, 0.3, 0.15, 0.05].map(Math.log));
  const freq = (temperature: number, topP: number, n = 4000) => {
    const rng = mulberry32(123);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < n; i++) counts[sampleToken(logp, temperature, topP, rng)]++;
    return counts.map((c) => c / n);
  };

  it("draws from the distribution at temperature 1", () => {
    freq(1, 1).forEach((f, i) => expect(Math.abs(f - [0.5, 0.3, 0.15, 0.05][i])).toBeLessThan(0.03));
  });

  it("keeps the smallest nucleus reaching top-p and renormalises", () => {
    const f = freq(1, 0.7); // 0.5 + 0.3 ≥ 0.7
    expect(f[2] + f[3]).toBe(0);
    expect(Math.abs(f[0] - 0.625)).toBeLessThan(0.03);
  });

  it("sharpens with low temperature and is argmax at 0", () => {
    expect(freq(0.25, 1)[0]).toBeGreaterThan(0.85);
    expect(freq(0, 1)).toEqual([1, 0, 0, 0]);
  });
});
