/**
 * Serving latency with the trainer busy vs idle, as a ratio from one run (target: p99 ratio ≤ 1.10).
 * A bench, not a test: numbers depend on the machine and on whatever else runs on it.
 *
 *   npx tsx bench/train/serving.ts [--requests 120] [--blocks 6] [--tokens 48] [--checkpoint models/base]
 *
 * This process serves like the proxy's embedded upstream: one client sending chat requests back to back
 * to an EmbeddedEngine. A second process trains like workers/train does (its priority lowered to
 * TRAINER_NICE; trainStep on a batch of `batch` samples yielding between micro-batches; the checkpoint
 * written atomically after every step; a rest of REST_AFTER_STEP_MS between steps). Idle and busy blocks
 * alternate (the trainer is frozen with SIGSTOP during idle blocks) so slow drift hits both alike.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { initBackend } from "../../server/engine/backend";
import { loadCheckpoint, saveCheckpoint } from "../../server/engine/checkpoint";
import { EmbeddedEngine } from "../../server/engine/engine";
import { createModel, DEFAULT_CONFIG } from "../../server/engine/model";
import { Adam } from "../../server/engine/optimizer";
import { mulberry32 } from "../../server/engine/rng";
import { trainStep, type TrainSample } from "../../server/engine/train";
import { REST_AFTER_STEP_MS, TRAINER_NICE } from "../../server/training/loop";

const argsSchema = z.object({
  role: z.enum(["serve", "trainer"]).default("serve"),
  requests: z.coerce.number().int().positive().default(120),
  blocks: z.coerce.number().int().min(2).default(6),
  tokens: z.coerce.number().int().positive().default(48),
  batch: z.coerce.number().int().positive().default(16),
  checkpoint: z.string().default("models/base"),
});
type Args = z.output<typeof argsSchema>;

const root = path.resolve(import.meta.dirname, "../..");

async function baseCheckpoint(args: Args, dir: string): Promise<string> {
  const given = path.resolve(root, args.checkpoint);
  if (existsSync(path.join(given, "meta.json"))) return given;
  const target = path.join(dir, "base");
  await saveCheckpoint(target, createModel(DEFAULT_CONFIG, 1), { version: 0, step: 0 });
  return target;
}

/** The trainer side: steps back to back on samples shaped like served turns. */
async function trainer(args: Args, checkpoint: string): Promise<void> {
  try {
    os.setPriority(TRAINER_NICE);
  } catch {
    // not permitted: measure anyway (the report says so)
  }
  const { model } = await loadCheckpoint(checkpoint);
  const adam = new Adam({ lr: 1e-5, beta1: 0.9, beta2: 0.98, weightDecay: 0.1 });
  const rng = mulberry32(7);
  const ids = (n: number) => Array.from({ length: n }, () => 32 + Math.floor(rng() * 90));
  const samples: TrainSample[] = Array.from({ length: args.batch }, (_, i) => ({
    promptIds: ids(64),
    responseIds: ids(64),
    oldLogprobs: new Array<number>(64).fill(-4),
    reward: i % 2 ? 1 : -1,
    kind: "RL",
  }));
  const out = await fs.mkdtemp(path.join(os.tmpdir(), "bench-trainer-"));
  for (let step = 1; ; step++) {
    await trainStep(model, adam, samples, { microBatchSize: 8, oldLogprobs: "rollout" });
    await saveCheckpoint(path.join(out, "latest"), model, { version: step, step, optimizer: adam });
    process.stdout.write(`step ${step}\n`);
    await new Promise((r) => setTimeout(r, REST_AFTER_STEP_MS));
  }
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}

async function serve(args: Args): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bench-serving-"));
  const checkpoint = await baseCheckpoint(args, dir);
  const engine = new EmbeddedEngine();
  await engine.load(checkpoint);
  const child: ChildProcess = spawn(
    path.join(root, "node_modules/.bin/tsx"),
    [import.meta.filename, "--role", "trainer", "--batch", String(args.batch), "--checkpoint", checkpoint],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let steps = 0;
  child.stdout!.on(
    "data",
    (d: Buffer) =>
      (steps += d
        .toString()
        .split("\n")
        .filter((l) => l.startsWith("step ")).length),
  );
  try {
    while (steps === 0) await new Promise((r) => setTimeout(r, 100)); // the trainer is warm
    const messages = [{ role: "user" as const, content: "I keep forgetting to drink water during the day. Any tips?" }];
    for (let i = 0; i < 5; i++) await engine.chat(messages, { maxTokens: args.tokens, seed: i, stopIds: [] });

    const lat = { idle: [] as number[], busy: [] as number[] };
    const stepsIn = { idle: 0, busy: 0 };
    const perBlock = Math.ceil(args.requests / args.blocks);
    for (let b = 0; b < args.blocks; b++) {
      const phase = b % 2 === 0 ? "idle" : "busy";
      child.kill(phase === "idle" ? "SIGSTOP" : "SIGCONT");
      await new Promise((r) => setTimeout(r, 300)); // let the scheduler settle into the phase
      const before = steps;
      for (let i = 0; i < perBlock; i++) {
        const t0 = performance.now();
        await engine.chat(messages, { maxTokens: args.tokens, seed: 100 + b * perBlock + i, stopIds: [] });
        lat[phase].push(performance.now() - t0);
      }
      stepsIn[phase] += steps - before;
    }
    const row = (phase: "idle" | "busy") =>
      `${phase.padEnd(4)}  n=${lat[phase].length}  p50 ${quantile(lat[phase], 0.5).toFixed(1)} ms  p99 ${quantile(lat[phase], 0.99).toFixed(1)} ms  trainer steps ${stepsIn[phase]}`;
    const ratio = quantile(lat.busy, 0.99) / quantile(lat.idle, 0.99);
    console.log(
      `serving ${checkpoint} (${args.tokens} tokens per answer) on ${os.cpus().length} CPUs, trainer batch ${args.batch} at nice ${TRAINER_NICE}`,
    );
    console.log(row("idle"));
    console.log(row("busy"));
    console.log(
      `p99 busy/idle = ${ratio.toFixed(3)} (target ≤ 1.10); p50 ratio ${(quantile(lat.busy, 0.5) / quantile(lat.idle, 0.5)).toFixed(3)}`,
    );
  } finally {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
    engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(argsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = argsSchema.parse(values);
  await initBackend();
  if (args.role === "trainer") await trainer(args, path.resolve(root, args.checkpoint));
  else await serve(args);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
