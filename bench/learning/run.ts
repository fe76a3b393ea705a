/**
 * Learning-efficacy benchmark: does the demo's agent learn its simulated user's hidden preference, and how fast,
 * with each method? For GRPO, OPD and Combine (the demo experiments' configs), fixed seeds, N optimizer steps of the
 * real loop (proxy → judge worker → trainer → new version served), driven in lockstep so the run is reproducible.
 * Prints the judged reward per window of policy versions and the first step whose window mean reaches the target,
 * and writes a PNG chart of the three curves.
 *
 *   npx tsx bench/learning/run.ts [--methods grpo,opd,combine] [--steps 100] [--window 5] [--target 0.6]
 *                                 [--parallel 2] [--seed 7] [--lr X] [--batch N] [--out bench/learning/learning-curves.png]
 *
 * Each method runs in a child process with a throwaway database on the local Postgres (as `npm test` does) and a
 * Redis prefix of its own. "Judged reward of version v" is the mean judge score of the main turns v served that
 * have a next state: the user's reaction to the reply, +1 approval, −1 correction, 0 ambiguous.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import pg from "pg";
import { z } from "zod";
import { chooseServer, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { chooseRedis } from "../../scripts/lib/redis";
import { migrate } from "../../server/platform/db/migrator";
import { renderLineChart, type Rgb } from "./png";
import type { ChildResult } from "./child";

const root = path.resolve(import.meta.dirname, "../..");

const ArgsSchema = z.object({
  methods: z.string().default("grpo,opd,combine").transform((s) => s.split(",").map((m) => z.enum(["grpo", "opd", "combine"]).parse(m.trim()))),
  steps: z.coerce.number().int().min(1).default(100),
  window: z.coerce.number().int().min(1).default(5),
  target: z.coerce.number().default(0.6),
  parallel: z.coerce.number().int().min(1).default(2),
  seed: z.coerce.number().int().min(0).optional(),
  lr: z.coerce.number().positive().optional(),
  batch: z.coerce.number().int().min(1).optional(),
  out: z.string().default("bench/learning/learning-curves.png"),
  child: z.enum(["grpo", "opd", "combine"]).optional(),
});
type Args = z.output<typeof ArgsSchema>;

const COLORS: Record<string, Rgb> = { grpo: [31, 119, 180], opd: [214, 39, 40], combine: [44, 160, 44] };
const LABELS: Record<string, string> = { grpo: "GRPO", opd: "OPD", combine: "Combine" };

/** Turn-weighted mean reward of the `window` versions ending at each version. */
export function windowed(versions: ChildResult["versions"], window: number): { version: number; reward: number }[] {
  return versions.map((v, i) => {
    const span = versions.slice(Math.max(0, i - window + 1), i + 1);
    const turns = span.reduce((a, s) => a + s.turns, 0);
    return { version: v.version, reward: span.reduce((a, s) => a + s.reward * s.turns, 0) / Math.max(turns, 1) };
  });
}

function childEnv(base: NodeJS.ProcessEnv, databaseUrl: string, redisUrl: string, method: string): NodeJS.ProcessEnv {
  return {
    ...base,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `bench:learning:${randomBytes(3).toString("hex")}:${method}:`,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), `bench-learning-${method}-`)),
  };
}

function runChildProcess(method: string, args: Args, env: NodeJS.ProcessEnv): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const argv = [path.join(root, "bench/learning/run.ts"), "--child", method, "--steps", String(args.steps)];
    if (args.seed !== undefined) argv.push("--seed", String(args.seed));
    if (args.lr !== undefined) argv.push("--lr", String(args.lr));
    if (args.batch !== undefined) argv.push("--batch", String(args.batch));
    const child = spawn(path.join(root, "node_modules/.bin/tsx"), argv, { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
    let result: ChildResult | null = null;
    createInterface({ input: child.stdout }).on("line", (line) => {
      let msg: { type?: string } & Record<string, unknown>;
      try {
        msg = JSON.parse(line);
      } catch {
        return; // a log line
      }
      if (msg.type === "step") console.log(`  ${LABELS[method]} step ${msg.step}: ${msg.conversations} conversations, batch eval score ${Number(msg.evalScore).toFixed(2)}, ${msg.ms} ms`);
      if (msg.type === "result") result = msg as unknown as ChildResult;
    });
    child.on("exit", (code) => {
      rmSync(env.DATA_DIR!, { recursive: true, force: true });
      if (code === 0 && result) resolve(result);
      else reject(new Error(`${method}: child exited with ${code}`));
    });
  });
}

async function parent(args: Args): Promise<void> {
  const log = (s: string) => console.log(`[bench] ${s}`);
  const dataDir = path.join(root, ".data", "bench");
  mkdirSync(dataDir, { recursive: true });
  const server = await chooseServer(dataDir, log);
  const dbName = `ocrl_bench_${Date.now().toString(36)}_${randomBytes(2).toString("hex")}`;
  await ensureDatabase(server.adminUrl, dbName);
  const databaseUrl = withDatabase(server.adminUrl, dbName);
  const redisChoice = await chooseRedis(dataDir, log);
  try {
    await migrate(databaseUrl, path.join(root, "prisma/migrations"));
    log(`database ${dbName}; ${args.methods.length} method(s), ${args.steps} steps each, ${args.parallel} at a time`);
    const t0 = Date.now();
    const results: ChildResult[] = [];
    const queue = [...args.methods];
    await Promise.all(
      Array.from({ length: Math.min(args.parallel, queue.length) }, async () => {
        for (let m = queue.shift(); m; m = queue.shift()) results.push(await runChildProcess(m, args, childEnv(process.env, databaseUrl, redisChoice.url, m)));
      }),
    );
    report(args, results, (Date.now() - t0) / 1000);
  } finally {
    const c = new pg.Client({ connectionString: server.adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await c.end();
    await redisChoice.stop?.();
    await server.stop?.();
  }
}

function report(args: Args, results: ChildResult[], wallS: number): void {
  results.sort((a, b) => args.methods.indexOf(a.method as never) - args.methods.indexOf(b.method as never));
  console.log(`\nJudged reward per window of ${args.window} policy versions (turn-weighted mean; version v = served after step v)`);
  const curves = results.map((r) => ({ r, w: windowed(r.versions, args.window) }));
  const maxV = Math.max(...results.map((r) => r.versions.at(-1)?.version ?? 0));
  const header = ["steps", ...results.map((r) => LABELS[r.method].padStart(8))].join(" | ");
  console.log(header);
  for (let end = args.window - 1; end <= maxV; end += args.window) {
    const cells = curves.map(({ w }) => {
      const p = w.find((x) => x.version === end);
      return (p ? p.reward.toFixed(2) : "").padStart(8);
    });
    console.log([`${String(end - args.window + 1).padStart(3)}–${String(end).padEnd(3)}`, ...cells].join(" | "));
  }
  console.log("");
  for (const { r, w } of curves) {
    const hit = w.find((x) => x.reward >= args.target);
    const medianStep = [...r.stepMs].sort((a, b) => a - b)[Math.floor(r.stepMs.length / 2)] ?? NaN;
    console.log(
      `${LABELS[r.method].padEnd(8)} first window mean ≥ ${args.target}: ${hit ? `after step ${hit.version}` : `not within ${r.steps} steps`}` +
        ` | ${r.conversations} conversations, ${r.versions.reduce((a, v) => a + v.turns, 0)} judged turns, ${r.wallS.toFixed(0)} s (median ${(medianStep / 1000).toFixed(1)} s/step)`,
    );
  }
  console.log(`total wall time ${wallS.toFixed(0)} s`);
  const png = renderLineChart({
    title: `Judged reward while learning Leo's preference (window of ${args.window} versions)`,
    xLabel: "training step (policy version served)",
    yLabel: "judged reward",
    xMax: maxV,
    yMin: -1,
    yMax: 1,
    target: { y: args.target, label: `target +${args.target}` },
    series: curves.map(({ r, w }) => ({ label: LABELS[r.method], color: COLORS[r.method], points: w.map((p) => ({ x: p.version, y: p.reward })) })),
  });
  writeFileSync(path.resolve(root, args.out), png);
  writeFileSync(path.resolve(root, args.out.replace(/\.png$/, ".json")), `${JSON.stringify({ args, results }, null, 1)}\n`);
  console.log(`chart: ${args.out}`);
}

async function main() {
  const { values } = parseArgs({ options: Object.fromEntries(Object.keys(ArgsSchema.shape).map((k) => [k, { type: "string" as const }])) });
  const args = ArgsSchema.parse(values);
  if (args.child) {
    const { runChild } = await import("./child");
    const { DEMO_SIMULATION } = await import("../../server/simulation/demo");
    await runChild(args.child, args.steps, { ...DEMO_SIMULATION, seed: args.seed ?? DEMO_SIMULATION.seed }, { lr: args.lr, batchSize: args.batch });
    return;
  }
  await parent(args);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  },
);
