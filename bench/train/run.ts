/**
 * Embedded-policy bench: train-step time and tokens/s per model size, with the fast BatchMatMul
 * and with the stock wasm kernel, plus KV-cache generation throughput. A bench, not a test: numbers
 * depend on the machine and on whatever else is running.
 *
 *   npx tsx bench/train/run.ts [--reps 3] [--batch 16] [--seq 128,256] [--sizes L2/d64,L4/d128] [--stock true]
 *
 * A train step is one `trainStep` (forward + backward + Adam, PPO loss, π_old from the samples) on
 * `batch` samples of `seq` tokens each (32 prompt + seq−32 response tokens).
 */
import * as tf from "@tensorflow/tfjs-core";
import { parseArgs } from "node:util";
import { z } from "zod";
import { initBackend, useFastMatMul } from "../../server/engine/backend";
import { generateBatch } from "../../server/engine/generate";
import { countParams, createModel, DEFAULT_CONFIG, disposeModel, type ModelConfig } from "../../server/engine/model";
import { Adam } from "../../server/engine/optimizer";
import { mulberry32 } from "../../server/engine/rng";
import { trainStep, type TrainSample } from "../../server/engine/train";

const argsSchema = z.object({
  reps: z.coerce.number().int().positive().default(3),
  batch: z.coerce.number().int().positive().default(16),
  seq: z.string().default("128,256"),
  sizes: z.string().default("L2/d64,L4/d128"),
  stock: z.enum(["true", "false"]).default("true"),
  genTokens: z.coerce.number().int().positive().default(64),
});

function parseSize(s: string): ModelConfig {
  const m = /^L(\d+)\/d(\d+)$/.exec(s);
  if (!m) throw new Error(`size must look like L2/d64, got ${s}`);
  return { ...DEFAULT_CONFIG, nLayer: Number(m[1]), nEmbd: Number(m[2]), nHead: Math.max(1, Number(m[2]) / 16) };
}

function samples(batch: number, seq: number, seed: number): TrainSample[] {
  const rng = mulberry32(seed);
  const ids = (n: number) => Array.from({ length: n }, () => Math.floor(rng() * 256));
  return Array.from({ length: batch }, (_, i) => ({
    promptIds: ids(32),
    responseIds: ids(seq - 32),
    oldLogprobs: new Array<number>(seq - 32).fill(-5.5),
    reward: i % 2 ? 1 : -1,
    kind: "RL" as const,
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeTrain(config: ModelConfig, batch: number, seq: number, reps: number): Promise<number> {
  const model = createModel(config, 1);
  const adam = new Adam({ lr: 1e-4 });
  const data = samples(batch, seq, 2);
  const hyper = { oldLogprobs: "rollout" as const, microBatchSize: batch };
  await trainStep(model, adam, data, hyper); // warm-up: heap growth, XNNPACK operator caches
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await trainStep(model, adam, data, hyper);
    times.push(performance.now() - t0);
  }
  disposeModel(model);
  adam.dispose();
  return median(times);
}

async function timeGenerate(config: ModelConfig, rows: number, tokens: number): Promise<number> {
  const model = createModel(config, 1);
  const prompt = Array.from({ length: 24 }, (_, i) => 97 + (i % 26));
  const prompts = Array.from({ length: rows }, () => prompt);
  await generateBatch(model, prompts, { maxTokens: 8, seed: 1, stopIds: [] });
  const t0 = performance.now();
  await generateBatch(model, prompts, { maxTokens: tokens, seed: 1, stopIds: [] });
  const ms = performance.now() - t0;
  disposeModel(model);
  return (rows * tokens) / (ms / 1000);
}

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(argsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = argsSchema.parse(values);
  const info = await initBackend();
  console.log(
    `tfjs ${tf.version_core} backend=${info.backend} simd=${info.simd} threads=${info.threads}; median of ${args.reps} steps`,
  );
  const seqs = args.seq.split(",").map(Number);
  const rows: string[][] = [];
  for (const size of args.sizes.split(",")) {
    const config = parseSize(size);
    for (const seq of seqs) {
      const fast = await timeTrain(config, args.batch, seq, args.reps);
      let stock = NaN;
      if (args.stock === "true") {
        useFastMatMul(false);
        stock = await timeTrain(config, args.batch, seq, args.reps);
        useFastMatMul(true);
      }
      const tokens = args.batch * seq;
      rows.push([
        size,
        String(countParams(config)),
        `${args.batch}×${seq}`,
        (fast / 1000).toFixed(3),
        String(Math.round(tokens / (fast / 1000))),
        Number.isNaN(stock) ? "-" : (stock / 1000).toFixed(3),
        Number.isNaN(stock) ? "-" : `${(stock / fast).toFixed(1)}×`,
      ]);
      console.log(
        `  ${size} ${args.batch}×${seq}: fast ${(fast / 1000).toFixed(3)} s, stock ${(stock / 1000).toFixed(3)} s`,
      );
    }
    const g1 = await timeGenerate(config, 1, args.genTokens);
    const g8 = await timeGenerate(config, 8, args.genTokens);
    rows.push([
      size,
      String(countParams(config)),
      "generate",
      "-",
      `${Math.round(g1)} (b1) / ${Math.round(g8)} (b8) tok/s`,
      "-",
      "-",
    ]);
  }
  const header = ["size", "params", "batch", "step s (fast)", "tokens/s (fast)", "step s (stock)", "speedup"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log([line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
