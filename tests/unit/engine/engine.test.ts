import * as tf from "@tensorflow/tfjs-core";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint, saveCheckpoint } from "../../../server/engine/checkpoint";
import { EmbeddedEngine } from "../../../server/engine/engine";
import { generate, type TokenEvent } from "../../../server/engine/generate";
import { disposeModel, paramNames, type PolicyModel } from "../../../server/engine/model";
import { scoreResponse } from "../../../server/engine/score";
import { encode, END_ID, renderChat, type ChatMessage } from "../../../server/engine/tokenizer";
import { maxAbsDiff, microModel } from "./helpers";

let dir = "";
let v1: PolicyModel;
let v2: PolicyModel;
const messages: ChatMessage[] = [{ role: "user", content: "How can I sleep better?" }];
const sampling = { maxTokens: 16, seed: 77, stopIds: [] as number[] };

beforeAll(async () => {
  await initBackend();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "engine-"));
  await saveCheckpoint(path.join(dir, "v1"), microModel(1, 4), { version: 1, step: 10 });
  await saveCheckpoint(path.join(dir, "v2"), microModel(2, 4), { version: 2, step: 20 });
  v1 = (await loadCheckpoint(path.join(dir, "v1"))).model;
  v2 = (await loadCheckpoint(path.join(dir, "v2"))).model;
});
afterAll(async () => {
  disposeModel(v1);
  disposeModel(v2);
  await fs.rm(dir, { recursive: true, force: true });
});

describe("EmbeddedEngine", () => {
  it("chats with token ids and behaviour log-probs, streaming or not", async () => {
    const engine = new EmbeddedEngine();
    await engine.load(path.join(dir, "v1"));
    expect(engine.version).toBe(1);
    const events: TokenEvent[] = [];
    const result = await engine.chat(messages, { ...sampling, onToken: (e) => events.push(e) });
    expect(result.version).toBe(1);
    expect(result.promptIds).toEqual(renderChat(messages, { addGenerationPrompt: true }));
    expect(events.map((e) => e.tokenId)).toEqual(result.tokenIds);

    const streamed: TokenEvent[] = [];
    const gen = engine.chatStream(messages, sampling);
    let it = await gen.next();
    while (!it.done) {
      streamed.push(it.value);
      it = await gen.next();
    }
    expect(it.value).toEqual(result);
    expect(streamed).toEqual(events);

    // Teacher/behaviour scoring of the same response reproduces the generation log-probs.
    const scored = await engine.scoreChat(messages, result.tokenIds);
    expect(scored.version).toBe(1);
    expect(maxAbsDiff(scored.logprobs, result.logprobs)).toBeLessThan(1e-4);
    // A text response is scored with the end-of-turn token appended.
    const text = await engine.scoreChat(messages, "Keep a fixed wake-up time.");
    expect(text.tokenIds).toEqual([...encode("Keep a fixed wake-up time."), END_ID]);
    expect(maxAbsDiff(text.logprobs, scoreResponse(v1, text.promptIds, text.tokenIds))).toBeLessThan(1e-5);
    engine.dispose();
  });

  it("hot-swaps without touching in-flight generations (v started → v finished)", async () => {
    const engine = new EmbeddedEngine();
    const baseline = tf.memory().numTensors;
    await engine.load(path.join(dir, "v1"));
    const perModel = paramNames(v1.config).length;
    expect(tf.memory().numTensors).toBe(baseline + perModel);

    const expectedV1 = await generate(v1, renderChat(messages, { addGenerationPrompt: true }), sampling);
    const stream = engine.chatStream(messages, sampling);
    const firstTokens: number[] = [];
    for (let i = 0; i < 5; i++) {
      const it = await stream.next();
      if (it.done) throw new Error("ended early");
      firstTokens.push(it.value.tokenId);
    }
    await engine.swap(path.join(dir, "v2"));
    expect(engine.version).toBe(2);

    // A request that starts now runs on v2, concurrently with the v1 stream.
    const onV2 = engine.chat(messages, sampling);
    let it = await stream.next();
    while (!it.done) it = await stream.next();
    const finished = it.value;
    expect(finished.version).toBe(1);
    expect(finished.tokenIds.slice(0, 5)).toEqual(firstTokens);
    expect(finished.tokenIds).toEqual(expectedV1.tokenIds);
    expect(finished.logprobs).toEqual(expectedV1.logprobs);

    const second = await onV2;
    // v1's weights were released once its last generation finished; only v2's remain.
    expect(tf.memory().numTensors).toBe(baseline + perModel);
    engine.dispose();
    expect(tf.memory().numTensors).toBe(baseline);

    expect(second.version).toBe(2);
    expect(second.tokenIds).not.toEqual(finished.tokenIds);
    expect(maxAbsDiff(second.logprobs, scoreResponse(v2, second.promptIds, second.tokenIds))).toBeLessThan(1e-4);
  });

  it("pins the version when the stream is created, before the first token", async () => {
    const engine = new EmbeddedEngine();
    const baseline = tf.memory().numTensors;
    await engine.load(path.join(dir, "v1"));
    const early = engine.chatStream(messages, sampling);
    const abandoned = engine.chatStream(messages, sampling);
    await engine.swap(path.join(dir, "v2"));
    expect(early.version).toBe(1);
    let it = await early.next();
    while (!it.done) it = await early.next();
    expect(it.value.version).toBe(1);
    expect(it.value.tokenIds).toEqual((await generate(v1, it.value.promptIds, sampling)).tokenIds);
    // A stream closed without ever being iterated releases its pin, so v1 can be freed.
    const perModel = paramNames(v1.config).length;
    expect(tf.memory().numTensors).toBe(baseline + 2 * perModel);
    await abandoned.return(undefined as never);
    expect(tf.memory().numTensors).toBe(baseline + perModel);
    engine.dispose();
  });

  it("refuses to serve before a checkpoint is loaded", async () => {
    const engine = new EmbeddedEngine();
    expect(engine.loaded).toBe(false);
    await expect(engine.chat(messages)).rejects.toThrow(/no checkpoint/);
    expect(() => engine.chatStream(messages)).toThrow(/no checkpoint/);
  });
});
