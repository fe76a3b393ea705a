import * as tf from "@tensorflow/tfjs-core";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import {
  loadCheckpoint,
  readCheckpointMeta,
  restoreOptimizer,
  saveCheckpoint,
} from "../../../server/engine/checkpoint";
import { disposeModel, paramNames, type PolicyModel } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { microModel } from "./helpers";

let dir = "";
beforeAll(async () => {
  await initBackend();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "ckpt-"));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const bytes = (t: tf.Tensor) => Buffer.from((t.dataSync() as Float32Array).buffer.slice(0));

/** One Adam step on a simple quadratic so every moment is non-zero and non-trivial. */
function stepOptimizer(model: PolicyModel, adam: Adam) {
  const grads = Object.fromEntries(
    Object.entries(model.params).map(([k, p]) => [k, tf.tidy(() => tf.add(tf.mul(p, 0.3), 0.01))]),
  );
  adam.apply(model.params, grads);
  tf.dispose(Object.values(grads));
}

describe("checkpoints", () => {
  it("round-trips weights and optimizer state bit-exactly, with meta and SHA-256", async () => {
    const model = microModel(3, 5);
    const adam = new Adam({ lr: 1e-3, weightDecay: 0.1 });
    stepOptimizer(model, adam);
    stepOptimizer(model, adam);
    const target = path.join(dir, "v7");
    const meta = await saveCheckpoint(target, model, { version: 7, step: 42, optimizer: adam, extra: { note: "t" } });
    expect(meta).toMatchObject({ version: 7, step: 42, config: model.config, extra: { note: "t" } });
    expect(meta.sha256).toBe(
      createHash("sha256")
        .update(await fs.readFile(path.join(target, "weights.bin")))
        .digest("hex"),
    );
    expect(await readCheckpointMeta(target)).toEqual(meta);

    const loaded = await loadCheckpoint(target);
    expect(loaded.meta).toEqual(meta);
    for (const n of paramNames(model.config)) {
      expect(loaded.model.params[n].shape).toEqual(model.params[n].shape);
      expect(bytes(loaded.model.params[n]).equals(bytes(model.params[n]))).toBe(true);
    }
    const saved = adam.getState();
    const restored = restoreOptimizer(loaded);
    expect(restored.step).toBe(2);
    expect(restored.config).toEqual(adam.config);
    const state = restored.getState();
    for (const n of paramNames(model.config)) {
      expect(Buffer.from(state.m[n].buffer).equals(Buffer.from(saved.m[n].buffer))).toBe(true);
      expect(Buffer.from(state.v[n].buffer).equals(Buffer.from(saved.v[n].buffer))).toBe(true);
    }
    // Continuing from the restored state gives bit-identical weights to continuing the original.
    stepOptimizer(model, adam);
    stepOptimizer(loaded.model, restored);
    for (const n of paramNames(model.config))
      expect(bytes(loaded.model.params[n]).equals(bytes(model.params[n]))).toBe(true);
    disposeModel(model);
    disposeModel(loaded.model);
    adam.dispose();
    restored.dispose();
  });

  it("replaces an existing checkpoint atomically and leaves no temporary directories", async () => {
    const target = path.join(dir, "latest");
    const a = microModel(1);
    const b = microModel(2);
    await saveCheckpoint(target, a, { version: 1, step: 1 });
    await saveCheckpoint(target, b, { version: 2, step: 2 });
    const loaded = await loadCheckpoint(target);
    expect(loaded.meta.version).toBe(2);
    expect(loaded.optimizerState).toBeNull();
    expect(bytes(loaded.model.params.wte).equals(bytes(b.params.wte))).toBe(true);
    expect((await fs.readdir(dir)).filter((f) => f.startsWith("latest"))).toEqual(["latest"]);
    [a, b, loaded.model].forEach(disposeModel);
  });

  it("rejects corrupted or truncated weights", async () => {
    const target = path.join(dir, "bad");
    const m = microModel(4);
    await saveCheckpoint(target, m, { version: 1, step: 0 });
    const file = path.join(target, "weights.bin");
    const buf = await fs.readFile(file);
    buf[10] ^= 1;
    await fs.writeFile(file, buf);
    await expect(loadCheckpoint(target)).rejects.toThrow(/SHA-256/);
    await fs.writeFile(file, buf.subarray(0, buf.length - 4));
    await expect(loadCheckpoint(target)).rejects.toThrow(/bytes, expected/);
    disposeModel(m);
  });
});
