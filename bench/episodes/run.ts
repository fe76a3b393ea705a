/**
 * Episodes benchmark (issue #30's targets): the tool-call demo's held-out pass@1 from the base checkpoint as GRPO
 * steps go by, on several seeds (which training tasks each round takes), with an lr-0 control on each seed; a
 * chart (band = range over seeds) and a table. Target: ≤ 0.2 at the base, ≥ 0.6 within 30 steps, control flat.
 *
 *   nice -n 10 npx tsx bench/episodes/run.ts [--seeds 1,2,3] [--rounds 12] [--evalEvery 3] [--lr 5e-4]
 *        [--tasksPerRound 6] [--n 4] [--batch 16] [--evalN 4] [--checkpoint models/toolcall]
 *        [--out bench/episodes/heldout-pass1.png]
 *
 * Runs in this process, one run after another, on a throwaway database on the local Postgres and a Redis prefix
 * of its own (as `npm test` does). The loop is bench/episodes/loop.ts (the learning test runs it too).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { chooseServer, dropDatabase, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { chooseRedis } from "../../scripts/lib/redis";
import type { Principal } from "../../server/access/principal";
import { migrate } from "../../server/platform/db/migrator";
import { renderBandPng } from "../learning/chart";
import type { ToolCallTrainingResult } from "./loop";

const root = path.resolve(import.meta.dirname, "../..");
const list = (s: string) => s.split(",").map((x) => z.coerce.number().int().min(0).parse(x.trim()));

const ArgsSchema = z.object({
  seeds: z.string().default("1,2,3").transform(list),
  rounds: z.coerce.number().int().min(1).default(12),
  evalEvery: z.coerce.number().int().min(1).default(3),
  lr: z.coerce.number().positive().default(5e-4),
  tasksPerRound: z.coerce.number().int().min(1).default(6),
  n: z.coerce.number().int().min(2).default(4),
  batch: z.coerce.number().int().min(1).default(16),
  evalN: z.coerce.number().int().min(1).default(4),
  checkpoint: z.string().default("models/toolcall"),
  out: z.string().default("bench/episodes/heldout-pass1.png"),
});

/** The bench acts as an admin (it creates the experiments, seeds the demo and launches). */
const BENCH: Principal = {
  kind: "apiKey",
  keyId: "bench",
  prefix: "bench",
  scopes: ["admin"],
  experimentId: null,
  runId: null,
  createdById: null,
};

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(ArgsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = ArgsSchema.parse(values);
  const log = (s: string) => console.log(`[bench] ${s}`);
  const dataDir = path.join(root, ".data", "bench");
  mkdirSync(dataDir, { recursive: true });
  const server = await chooseServer(dataDir, log);
  const dbName = `ocrl_bench_${Date.now().toString(36)}_${randomBytes(2).toString("hex")}`;
  await ensureDatabase(server.adminUrl, dbName);
  const redisChoice = await chooseRedis(dataDir, log);
  // Before anything reads the settings (env() reads them once).
  Object.assign(process.env, {
    DATABASE_URL: withDatabase(server.adminUrl, dbName),
    REDIS_URL: redisChoice.url,
    REDIS_PREFIX: `bench:episodes:${randomBytes(3).toString("hex")}:`,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "bench-episodes-")),
    LOG_LEVEL: "warn",
  });
  const { runToolCallTraining } = await import("./loop");
  const { closeQueues } = await import("../../server/platform/bus/queues");
  const { db } = await import("../../server/platform/db/client");
  const t0 = Date.now();
  const results: { seed: number; lr: number; r: ToolCallTrainingResult; wallS: number }[] = [];
  try {
    await migrate(process.env.DATABASE_URL!, path.join(root, "prisma/migrations"));
    const evalAfter = [
      0,
      ...Array.from({ length: args.rounds }, (_, i) => i + 1).filter((r) => r % args.evalEvery === 0),
    ];
    for (const seed of args.seeds) {
      for (const lr of [args.lr, 0]) {
        const t = Date.now();
        const r = await runToolCallTraining({
          checkpoint: args.checkpoint,
          lr,
          rounds: args.rounds,
          tasksPerRound: args.tasksPerRound,
          n: args.n,
          batchSize: args.batch,
          evalN: args.evalN,
          evalAfter,
          seed,
          principal: BENCH,
          log: (line) => log(`seed ${seed} lr ${lr}: ${line}`),
        });
        results.push({ seed, lr, r, wallS: (Date.now() - t) / 1000 });
      }
    }
  } finally {
    await closeQueues();
    await db().$disconnect();
    await dropDatabase(server.adminUrl, dbName).catch(() => null);
    rmSync(process.env.DATA_DIR!, { recursive: true, force: true });
    await redisChoice.stop?.();
    await server.stop?.();
  }
  report(args, results, (Date.now() - t0) / 1000);
}

function report(
  args: z.infer<typeof ArgsSchema>,
  results: { seed: number; lr: number; r: ToolCallTrainingResult; wallS: number }[],
  wallS: number,
) {
  const fmt = (x: number) => x.toFixed(2);
  console.log("\nheld-out pass@1 (95% interval over tasks) by round: seed, lr, then round(steps)=pass@1 [low, high]");
  for (const { seed, lr, r, wallS: w } of results)
    console.log(
      `seed ${seed} lr ${lr}: ${r.heldOut.map((p) => `r${p.round}(${p.steps})=${fmt(p.passAt1)} [${fmt(p.low)}, ${fmt(p.high)}]`).join("  ")}  (${w.toFixed(0)} s)`,
    );
  const learned = results.filter((x) => x.lr > 0);
  const base = learned.map((x) => x.r.heldOut[0].passAt1);
  const reached = learned.map((x) => x.r.heldOut.find((p) => p.round > 0 && p.steps <= 30 && p.passAt1 >= 0.6) ?? null);
  console.log(
    `base ≤ 0.2 on every seed: ${base.every((b) => b <= 0.2) ? "met" : "NOT met"} (${base.map(fmt).join(", ")})`,
  );
  console.log(
    `≥ 0.6 within 30 steps on every seed: ${reached.every(Boolean) ? "met" : "NOT met"} (${reached.map((p) => (p ? `${p.steps} steps` : "no")).join(", ")})`,
  );
  console.log(`total wall time ${wallS.toFixed(0)} s`);
  const rounds = [...new Set(results.flatMap((x) => x.r.heldOut.map((p) => p.round)))].sort((a, b) => a - b);
  const series = (lr0: boolean, label: string, color: string) => {
    const runs = results.filter((x) => (x.lr === 0) === lr0);
    return {
      label,
      color,
      points: rounds.map((round) => {
        const pts = runs.map((x) => x.r.heldOut.find((p) => p.round === round)!).filter(Boolean);
        const xs = pts.map((p) => p.passAt1);
        const steps = pts.map((p) => p.steps);
        return {
          x: Math.round(steps.reduce((a, b) => a + b, 0) / Math.max(steps.length, 1)),
          mean: xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1),
          min: Math.min(...xs),
          max: Math.max(...xs),
        };
      }),
    };
  };
  const png = renderBandPng({
    title: `Tool-call demo: held-out pass@1 (band = range over seeds ${args.seeds.join(", ")})`,
    xLabel: "optimizer steps (mean over seeds at each evaluation)",
    yLabel: "held-out pass@1",
    yMin: 0,
    yMax: 1,
    target: { y: 0.6, label: "target 0.6" },
    series: [series(false, `GRPO lr ${args.lr}`, "#2563eb"), series(true, "lr-0 control", "#9ca3af")],
  });
  writeFileSync(path.resolve(root, args.out), png);
  writeFileSync(
    path.resolve(root, args.out.replace(/\.png$/, ".json")),
    `${JSON.stringify({ args, results: results.map(({ seed, lr, r, wallS: w }) => ({ seed, lr, wallS: w, heldOut: r.heldOut, trainOutcome: r.trainOutcome })) }, null, 2)}\n`,
  );
  console.log(`wrote ${args.out}`);
}

main()
  // Open handles (the shared Redis connection, BullMQ's) must not keep a finished bench alive.
  .then(() => process.exit(0))
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
