/**
 * Checkpoints: a directory holding
 *   meta.json      {format, version, step, config, params[{name, shape}], sha256, optimizer?, createdAt, extra?}
 *   weights.bin    float32 little-endian, parameters concatenated in canonical order (model.paramShapes)
 *   optimizer.bin  optional Adam state: for each parameter in order, m then v (float32 LE)
 *
 * Saving is atomic: everything is written into a temporary sibling directory, each file and the
 * directory are fsync'ed, then it is renamed into place (an existing checkpoint at that path is
 * first renamed aside and removed afterwards), so a reader never sees a half-written checkpoint.
 * Loading verifies sizes and SHA-256 digests. The round trip is bit-exact (raw float32 bytes).
 */
import * as tf from "@tensorflow/tfjs-core";
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { modelConfigSchema, paramShapes, type Params, type PolicyModel } from "./model";
import { Adam, adamConfigSchema, type AdamState } from "./optimizer";

export const CHECKPOINT_FORMAT = "openclaw-policy-v1";

export const checkpointMetaSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.number().int().min(0),
  step: z.number().int().min(0),
  config: modelConfigSchema,
  params: z.array(z.object({ name: z.string(), shape: z.array(z.number().int().positive()) })),
  /** SHA-256 of weights.bin */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  optimizer: z
    .object({ step: z.number().int().min(0), config: adamConfigSchema, sha256: z.string().regex(/^[0-9a-f]{64}$/) })
    .optional(),
  createdAt: z.string(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type CheckpointMeta = z.infer<typeof checkpointMetaSchema>;

export interface SaveOptions {
  version: number;
  step: number;
  optimizer?: Adam;
  extra?: Record<string, unknown>;
}

if (os.endianness() !== "LE") throw new Error("checkpoint format assumes a little-endian host");

function bytesOf(parts: Float32Array[]): Buffer {
  return Buffer.concat(parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
}

function sha256(buf: Uint8Array): string {
  return createHash("sha256").update(buf).digest("hex");
}

async function writeFileSynced(file: string, data: Uint8Array | string): Promise<void> {
  const fh = await fs.open(file, "w");
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function saveCheckpoint(dir: string, model: PolicyModel, opts: SaveOptions): Promise<CheckpointMeta> {
  const shapes = paramShapes(model.config);
  const weights = bytesOf(shapes.map(([name]) => model.params[name].dataSync() as Float32Array));
  let optimizerBytes: Buffer | null = null;
  let optimizerMeta: CheckpointMeta["optimizer"];
  if (opts.optimizer) {
    const state = opts.optimizer.getState();
    const zeros = (shape: number[]) => new Float32Array(shape.reduce((a, b) => a * b, 1));
    optimizerBytes = bytesOf(
      shapes.flatMap(([name, shape]) => [state.m[name] ?? zeros(shape), state.v[name] ?? zeros(shape)]),
    );
    optimizerMeta = { step: state.step, config: opts.optimizer.config, sha256: sha256(optimizerBytes) };
  }
  const meta: CheckpointMeta = checkpointMetaSchema.parse({
    format: CHECKPOINT_FORMAT,
    version: opts.version,
    step: opts.step,
    config: model.config,
    params: shapes.map(([name, shape]) => ({ name, shape })),
    sha256: sha256(weights),
    optimizer: optimizerMeta,
    createdAt: new Date().toISOString(),
    extra: opts.extra,
  });

  const target = path.resolve(dir);
  const parent = path.dirname(target);
  await fs.mkdir(parent, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmp = `${target}.tmp-${tag}`;
  await fs.mkdir(tmp);
  try {
    await writeFileSynced(path.join(tmp, "weights.bin"), weights);
    if (optimizerBytes) await writeFileSynced(path.join(tmp, "optimizer.bin"), optimizerBytes);
    await writeFileSynced(path.join(tmp, "meta.json"), JSON.stringify(meta, null, 2) + "\n");
    await syncDir(tmp);
    const aside = `${target}.old-${tag}`;
    const existed = await fs.rename(target, aside).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === "ENOENT") return false;
        throw e;
      },
    );
    await fs.rename(tmp, target);
    await syncDir(parent);
    if (existed) await fs.rm(aside, { recursive: true, force: true });
  } catch (e) {
    await fs.rm(tmp, { recursive: true, force: true });
    throw e;
  }
  return meta;
}

export async function readCheckpointMeta(dir: string): Promise<CheckpointMeta> {
  const raw = JSON.parse(await fs.readFile(path.join(dir, "meta.json"), "utf8"));
  return checkpointMetaSchema.parse(raw);
}

function floatsOf(buf: Buffer): Float32Array {
  // Copy into a fresh, aligned buffer (Buffer pooling may give an unaligned byteOffset).
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

export interface LoadedCheckpoint {
  model: PolicyModel;
  meta: CheckpointMeta;
  /** Adam state when the checkpoint has one; restore with `restoreOptimizer` */
  optimizerState: AdamState | null;
}

export async function loadCheckpoint(dir: string): Promise<LoadedCheckpoint> {
  const meta = await readCheckpointMeta(dir);
  const shapes = paramShapes(meta.config);
  if (JSON.stringify(shapes.map(([name, shape]) => ({ name, shape }))) !== JSON.stringify(meta.params)) {
    throw new Error(`checkpoint ${dir}: parameter list does not match its config`);
  }
  const sizes = shapes.map(([, s]) => s.reduce((a, b) => a * b, 1));
  const total = sizes.reduce((a, b) => a + b, 0);
  const wbuf = await fs.readFile(path.join(dir, "weights.bin"));
  if (wbuf.byteLength !== total * 4)
    throw new Error(`checkpoint ${dir}: weights.bin has ${wbuf.byteLength} bytes, expected ${total * 4}`);
  if (sha256(wbuf) !== meta.sha256) throw new Error(`checkpoint ${dir}: weights.bin SHA-256 mismatch`);
  const w = floatsOf(wbuf);
  const params: Params = {};
  let off = 0;
  shapes.forEach(([name, shape], i) => {
    params[name] = tf.tensor(w.subarray(off, off + sizes[i]), shape, "float32");
    off += sizes[i];
  });

  let optimizerState: AdamState | null = null;
  if (meta.optimizer) {
    const obuf = await fs.readFile(path.join(dir, "optimizer.bin"));
    if (obuf.byteLength !== total * 8) throw new Error(`checkpoint ${dir}: optimizer.bin has the wrong size`);
    if (sha256(obuf) !== meta.optimizer.sha256) throw new Error(`checkpoint ${dir}: optimizer.bin SHA-256 mismatch`);
    const o = floatsOf(obuf);
    optimizerState = { step: meta.optimizer.step, m: {}, v: {} };
    let p = 0;
    shapes.forEach(([name], i) => {
      optimizerState!.m[name] = o.slice(p, p + sizes[i]);
      optimizerState!.v[name] = o.slice(p + sizes[i], p + 2 * sizes[i]);
      p += 2 * sizes[i];
    });
  }
  return { model: { config: meta.config, params }, meta, optimizerState };
}

/**
 * A checkpoint's prompt pool (`prompts.json` beside its weights, optional): public prompts of the model's own training
 * data that a trainer may put its own teacher's demonstrations on (perUser.stylePrompts). The embedded base's is
 * written by scripts/base-prompts.ts.
 */
export const promptPoolSchema = z.object({
  source: z.string().max(500),
  prompts: z.array(z.string().min(1).max(2000)).max(10_000),
});
export type PromptPool = z.infer<typeof promptPoolSchema>;

/** The checkpoint's prompt pool, or none (an empty list) when it has no prompts.json. */
export async function loadPromptPool(dir: string): Promise<string[]> {
  const raw = await fs.readFile(path.join(dir, "prompts.json"), "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    throw e;
  });
  return raw === null ? [] : promptPoolSchema.parse(JSON.parse(raw)).prompts;
}

/** A fresh Adam carrying the saved configuration and state (or a new one if none was saved). */
export function restoreOptimizer(loaded: LoadedCheckpoint): Adam {
  const adam = new Adam(loaded.meta.optimizer?.config ?? {});
  if (loaded.optimizerState) {
    adam.setState(loaded.optimizerState, Object.fromEntries(paramShapes(loaded.meta.config)));
  }
  return adam;
}
