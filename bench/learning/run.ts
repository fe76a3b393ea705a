/**
 * Learning-efficacy benchmark: does the demo's agent learn its simulated user's hidden preference, and how fast,
 * with each method? For GRPO, OPD and Combine (the demo experiments' configs) on several seeds, plus a control (the
 * Combine demo at lr 0: same users, judge and pipeline, no update), N optimizer steps of the real loop (proxy →
 * judge worker → trainer → new version served), driven in lockstep so each run is reproducible.
 * Reports per method the judged reward per window of policy versions (mean and range over seeds), steps to the
 * target, the minimum of every later window, the KL to the base, the hinted teacher's compliance and the persona
 * grader's on-topic rate, and writes one PNG with a band (min–max over seeds) per method.
 *
 *   npx tsx bench/learning/run.ts [--methods grpo,opd,combine] [--seeds 7,8,9] [--control true] [--steps 150]
 *                                 [--window 10] [--target 0.6] [--parallel 2] [--lr X] [--batch N]
 *                                 [--hyper '{"opdEstimator":"full"}'] [--maxTurns N] [--persona leo] [--maxConversations N] [--checkpoint models/base]
 *                                 [--out bench/learning/learning-curves.png] [--record bench/out/learning-<time>.json]
 *                                 [--until 2026-12-03T14:15:00Z] [--conversationsPerTick 10] [--gradeK 4]
 *                                 [--gateK 2] [--gateConfirm true]
 *
 * Each method runs in a child process with a throwaway database on the local Postgres (as `npm test` does) and a
 * Redis prefix of its own. "Judged reward of version v" is the mean judge score of the main turns v served that
 * have a next state: the user's reaction to the reply, +1 approval, −1 correction, 0 ambiguous.
 * Every step and every graded version is written to the --record JSON as it arrives, so a run that is cut short (or
 * stopped by --until: no conversation starts after that time, and the run ends at its last step) loses nothing.
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
import { HyperparamsSchema } from "../../server/config/experimentConfig";
import { migrate } from "../../server/platform/db/migrator";
import { initBackend } from "../../server/engine/backend";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { DEMO_EXPERIMENTS, demoConfig } from "../../server/simulation/demo";
import { renderBandPng } from "./chart";
import type { ChildResult } from "./child";
import { measureCompliance } from "./compliance";
import { firstReplyScore, interval95, MIN_REPLIES, styleHintOf, type Rates } from "./firstReply";

const root = path.resolve(import.meta.dirname, "../..");

const Method = z.enum(["grpo", "opd", "combine"]);
const ArgsSchema = z
  .object({
    methods: z
      .string()
      .default("grpo,opd,combine")
      .transform((s) => s.split(",").map((m) => Method.parse(m.trim()))),
    seeds: z
      .string()
      .default("7,8,9")
      .transform((s) => s.split(",").map((x) => z.coerce.number().int().min(0).parse(x.trim()))),
    control: z
      .enum(["true", "false"])
      .default("true")
      .transform((v) => v === "true"),
    steps: z.coerce.number().int().min(1).default(150),
    window: z.coerce.number().int().min(1).default(10),
    target: z.coerce.number().default(0.6),
    parallel: z.coerce.number().int().min(1).default(2),
    seed: z.coerce.number().int().min(0).optional(),
    lr: z.coerce.number().min(0).optional(),
    batch: z.coerce.number().int().min(1).optional(),
    /** overrides the demo's other hyperparameters for every run, as JSON: '{"opdEstimator":"full","normalizeAdvantages":true}' */
    hyper: z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (s === undefined) return undefined;
        const r = HyperparamsSchema.partial()
          .strict()
          .safeParse(
            (() => {
              try {
                return JSON.parse(s);
              } catch {
                return null;
              }
            })(),
          );
        if (!r.success) {
          ctx.addIssue({
            code: "custom",
            message: `--hyper: ${r.error.issues.map((i) => `${i.path.join(".") || "(json)"}: ${i.message}`).join("; ")}`,
          });
          return z.NEVER;
        }
        return s;
      }),
    /** a run stops early after this many conversations (OPD trains only on corrected replies, which grow rare) */
    maxConversations: z.coerce.number().int().min(1).optional(),
    /** conversations between two trainer ticks (default 1); 10 is about the live demo's unpaced users (stale batches) */
    conversationsPerTick: z.coerce.number().int().min(1).optional(),
    /** replies sampled per held-out question at each graded version (default: 4, or more for at least 32
     * replies — 16 for Sam's two held-out questions) */
    gradeK: z.coerce.number().int().min(1).max(64).optional(),
    /**
     * gated promotion (serving.promotion "gated"), the gate's eval set the persona's own training questions — the ones
     * its users ask, never the held-out ones graded here: K replies per question (the demo's evaluation settings
     * otherwise). Each step's version is evaluated and gated before the next conversation; the trainer continues
     * from the version served, and the graded versions are the ones served after each fixed step.
     */
    gateK: z.coerce.number().int().min(1).max(16).optional(),
    /** with --gateK: compare each winner and the served version again on fresh seeds before a promotion (serving.gate.confirm) */
    gateConfirm: z
      .enum(["true", "false"])
      .optional()
      .transform((v) => v === "true"),
    /** overrides the simulated users' most replies per conversation */
    maxTurns: z.coerce.number().int().min(1).optional(),
    /** the simulated user of every run (default the demo's, Leo): leo, maya, sam or ava */
    persona: z.string().optional(),
    /** the base checkpoint every run starts from (default models/base) */
    checkpoint: z.string().default("models/base"),
    out: z.string().default("bench/learning/learning-curves.png"),
    /** every run's steps and graded versions, rewritten as they arrive */
    record: z.string().default(`bench/out/learning-${new Date().toISOString().replace(/[:.]/g, "-")}.json`),
    /** no run starts a conversation after this time (ISO 8601); each ends at the step it reached */
    until: z
      .string()
      .optional()
      .refine((s) => s === undefined || !Number.isNaN(Date.parse(s)), "--until: not an ISO 8601 time"),
    child: Method.optional(),
  })
  // the report beside the PNG is written at the end, and would replace the record
  .refine((a) => path.resolve(a.record) !== path.resolve(a.out.replace(/\.png$/, ".json")), {
    message: "--record must not be the JSON written beside --out",
  });
type Args = z.output<typeof ArgsSchema>;
/** The flags a child takes from the parent as they are (lr and the seed are per job). */
const CHILD_FLAGS = [
  "batch",
  "hyper",
  "maxTurns",
  "persona",
  "checkpoint",
  "maxConversations",
  "conversationsPerTick",
  "gradeK",
  "gateK",
  "gateConfirm",
  "until",
] as const satisfies readonly (keyof Args)[];

/** One run: a method (or the control) on one seed. */
interface Job {
  name: string;
  method: z.output<typeof Method>;
  seed: number;
  lr?: number;
}

const CONTROL = "control";
const COLORS: Record<string, string> = { grpo: "#1f77b4", opd: "#d62728", combine: "#2ca02c", [CONTROL]: "#7f7f7f" };
const LABELS: Record<string, string> = {
  grpo: "GRPO",
  opd: "OPD",
  combine: "Combine",
  [CONTROL]: "Control (Combine, lr 0)",
};

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

/** What each run has reached so far, as the --record JSON holds it. */
export interface LiveRun {
  name: string;
  method: string;
  seed: number;
  lr?: number;
  status: "running" | "done" | "failed";
  steps: Record<string, unknown>[];
  firstReply: ChildResult["firstReply"];
}

/** The --record file, rewritten whole on every change (small: one line per step and graded version). */
class LiveRecord {
  private readonly runs: LiveRun[] = [];
  constructor(
    private readonly file: string,
    private readonly args: Args,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
  }
  start(job: Job): LiveRun {
    const r: LiveRun = { ...job, status: "running", steps: [], firstReply: [] };
    this.runs.push(r);
    this.write();
    return r;
  }
  write(): void {
    writeFileSync(this.file, `${JSON.stringify({ args: this.args, runs: this.runs }, null, 1)}\n`);
  }
}

function runChildProcess(job: Job, args: Args, env: NodeJS.ProcessEnv, live: LiveRecord): Promise<ChildResult> {
  const run = live.start(job);
  const method = job.method;
  return new Promise((resolve, reject) => {
    const argv = [
      path.join(root, "bench/learning/run.ts"),
      "--child",
      method,
      "--steps",
      String(args.steps),
      "--seed",
      String(job.seed),
      "--window",
      String(args.window),
    ];
    const lr = job.lr ?? args.lr;
    if (lr !== undefined) argv.push("--lr", String(lr));
    for (const key of CHILD_FLAGS) if (args[key] !== undefined) argv.push(`--${key}`, String(args[key]));
    const child = spawn(path.join(root, "node_modules/.bin/tsx"), argv, {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let result: ChildResult | null = null;
    createInterface({ input: child.stdout }).on("line", (line) => {
      let msg: { type?: string } & Record<string, unknown>;
      try {
        msg = JSON.parse(line);
      } catch {
        return; // a log line
      }
      if (msg.type === "step") {
        run.steps.push(msg);
        live.write();
      }
      if (msg.type === "step" && (Number(msg.step) % 10 === 0 || process.env.BENCH_VERBOSE))
        console.log(
          `  ${LABELS[job.name]} seed ${job.seed} step ${msg.step}: ${msg.conversations} conversations, batch eval score ${Number(msg.evalScore).toFixed(2)}, ${msg.demos ?? 0} demonstrations (nll ${Number(msg.demoNll).toFixed(3)}), grad norm ${Number(msg.gradNorm).toFixed(2)}, KL to the base ${Number(msg.kl).toFixed(3)}${msg.klBase == null ? "" : ` (exact ${Number(msg.klBase).toFixed(3)})`}, ${msg.ms} ms${msg.served === undefined ? "" : `, serving v${msg.served}`}`,
        );
      if (msg.type === "firstReply") {
        const f = msg as unknown as ChildResult["firstReply"][number];
        run.firstReply.push(f);
        live.write();
        console.log(
          `  ${LABELS[job.name]} seed ${job.seed} v${f.version}${f.served === undefined ? "" : ` (serving v${f.served})`}: first replies in style and on topic ${f.sampled.both.toFixed(2)} [95 % ${interval95(f.sampled)}] (style ${f.sampled.style.toFixed(2)}, on topic ${f.sampled.onTopic.toFixed(2)}; greedy ${f.greedy.both.toFixed(2)})`,
        );
      }
      if (msg.type === "result") result = msg as unknown as ChildResult;
    });
    child.on("exit", (code) => {
      rmSync(env.DATA_DIR!, { recursive: true, force: true });
      run.status = code === 0 && result ? "done" : "failed";
      live.write();
      if (code === 0 && result) resolve(result);
      else reject(new Error(`${job.name} seed ${job.seed}: child exited with ${code}`));
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
    const jobs: Job[] = args.seeds.flatMap((seed) => [
      ...args.methods.map((method) => ({ name: method, method, seed })),
      ...(args.control ? [{ name: CONTROL, method: "combine" as const, seed, lr: 0 }] : []),
    ]);
    log(
      `database ${dbName}; ${jobs.length} runs (${args.methods.join(", ")}${args.control ? ", control" : ""} × seeds ${args.seeds.join(", ")}), ${args.steps} steps each, ${args.parallel} at a time`,
    );
    const live = new LiveRecord(path.resolve(root, args.record), args);
    log(`recording every step and graded version to ${args.record}`);
    const t0 = Date.now();
    const results: (ChildResult & { name: string; seed: number })[] = [];
    const queue = [...jobs];
    await Promise.all(
      Array.from({ length: Math.min(args.parallel, queue.length) }, async () => {
        for (let j = queue.shift(); j; j = queue.shift()) {
          // One failed run is reported and left out; the others still count.
          try {
            const r = await runChildProcess(
              j,
              args,
              childEnv(process.env, databaseUrl, redisChoice.url, `${j.name}-${j.seed}`),
              live,
            );
            results.push({ ...r, name: j.name, seed: j.seed });
          } catch (e) {
            log(`FAILED: ${(e as Error).message}`);
          }
        }
      }),
    );
    await initBackend();
    const baseModel = (await loadCheckpoint(path.resolve(root, args.checkpoint))).model;
    const base = await measureCompliance(baseModel, { samples: 32 });
    // The teacher's own first replies to the held-out questions, graded as the versions are: its distillation bound.
    const persona = args.persona ?? "leo";
    const teacher = await firstReplyScore(baseModel, persona, {
      k: args.gradeK,
      maxTokens: demoConfig(DEMO_EXPERIMENTS[0]!).serving.maxTokens,
      hint: styleHintOf(persona),
    });
    report(args, results, base, teacher.sampled, (Date.now() - t0) / 1000);
  } finally {
    const c = new pg.Client({ connectionString: server.adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await c.end();
    await redisChoice.stop?.();
    await server.stop?.();
  }
}

type Result = ChildResult & { name: string; seed: number };

/** The first version whose full window reaches the target (a partial window at the start does not count). */
export function stepsToTarget(w: { version: number; reward: number }[], window: number, target: number): number | null {
  return w.find((x) => x.version >= window - 1 && x.reward >= target)?.version ?? null;
}

const fmt = (x: number | null | undefined, d = 2) =>
  x === null || x === undefined || Number.isNaN(x) ? "–" : x.toFixed(d);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

function report(
  args: Args,
  results: Result[],
  base: Awaited<ReturnType<typeof measureCompliance>>,
  teacher: Rates,
  wallS: number,
): void {
  const names = [...args.methods, ...(args.control ? [CONTROL] : [])];
  const byName = new Map(names.map((n) => [n, results.filter((r) => r.name === n).sort((a, b) => a.seed - b.seed)]));
  const curves = new Map(names.map((n) => [n, byName.get(n)!.map((r) => windowed(r.versions, args.window))]));
  const maxV = Math.max(...results.map((r) => r.versions.at(-1)?.version ?? 0));
  // The base as the run's simulated user sees it (the demo's, Leo, unless --persona names another).
  const persona = args.persona ?? "leo";
  const who = `${persona[0]!.toUpperCase()}${persona.slice(1)}`;
  const seen = base.find((b) => b.persona === persona)!;
  console.log(
    `\nJudged reward per window of ${args.window} policy versions: mean over seeds ${args.seeds.join(", ")} [min, max]`,
  );
  console.log(["steps", ...names.map((n) => LABELS[n]!.padStart(22))].join(" | "));
  const at = (n: string, v: number) =>
    curves
      .get(n)!
      .map((w) => w.find((x) => x.version === v)?.reward)
      .filter((x): x is number => x !== undefined);
  for (let end = args.window - 1; end <= maxV; end += args.window) {
    const cells = names.map((n) => {
      const xs = at(n, end);
      return (xs.length ? `${fmt(mean(xs))} [${fmt(Math.min(...xs))}, ${fmt(Math.max(...xs))}]` : "").padStart(22);
    });
    console.log([`${String(end - args.window + 1).padStart(3)}–${String(end).padEnd(3)}`, ...cells].join(" | "));
  }
  console.log(
    `\nBase: ${who}'s preference unprompted ${fmt(seen.unprompted)}, on-topic ${fmt(seen.onTopic)}; the hinted base (the teacher) complies ${fmt(seen.hinted)} with the judge's hints; on the held-out questions, with ${who}'s style hint, in style and on topic ${fmt(teacher.both)} (style ${fmt(teacher.style)}, on topic ${fmt(teacher.onTopic)}): what distilling the teacher can reach.`,
  );
  console.log(
    "method | steps to +" +
      args.target +
      ` per seed (mean) | min of later windows per seed | KL to base (last 10 steps) | final: ${who}'s preference unprompted / on-topic / hinted compliance | per seed: steps taken, conversations, wall time`,
  );
  for (const n of names) {
    const rs = byName.get(n)!;
    if (rs.length === 0) {
      console.log(`${LABELS[n]} | no run finished`);
      continue;
    }
    const hits = curves.get(n)!.map((w) => stepsToTarget(w, args.window, args.target));
    const mins = curves.get(n)!.map((w, i) => {
      const from = hits[i] ?? null;
      const later = w.filter((x) => from !== null && x.version > from);
      return later.length ? Math.min(...later.map((x) => x.reward)) : null;
    });
    const hitMean = hits.every((h) => h !== null) ? fmt(mean(hits as number[]), 1) : "not all";
    console.log(
      `${LABELS[n]} | ${hits.map((h) => h ?? "–").join(", ")} (${hitMean}) | ${mins.map((m) => fmt(m)).join(", ")} | ${fmt(mean(rs.map((r) => r.klToBase)), 4)}` +
        ` | ${fmt(mean(rs.map((r) => r.final.unprompted)))} / ${fmt(mean(rs.map((r) => r.final.onTopic)))} / ${fmt(mean(rs.map((r) => r.final.hinted)))}` +
        ` | ${rs.map((r) => `${r.steps} steps, ${r.conversations} conversations, ${r.wallS.toFixed(0)} s`).join("; ")}`,
    );
  }
  // Where the reward is earned: later replies follow a correction or an approval, in a longer context.
  console.log(
    `\nJudged reward of the last ${args.window} versions' replies by position in the conversation: first reply / later replies (turns)`,
  );
  for (const n of names) {
    const rs = byName.get(n)!;
    const part = (k: "first" | "later") =>
      rs.map((r) => `${fmt(r.byPosition[k].reward)} (${r.byPosition[k].turns})`).join(", ");
    if (rs.length) console.log(`${LABELS[n]} | ${part("first")} / ${part("later")}`);
  }
  // The headline: first replies to the held-out questions, graded as persona-v2 grades them.
  console.log(
    `\nFirst replies to the persona's held-out questions (persona-v2): in style AND on topic, ${args.gradeK ? `K = ${args.gradeK}` : `K = enough for at least ${MIN_REPLIES} replies`} at T = 1 — mean over seeds [min, max]; on topic; greedy both`,
  );
  const gradedVersions = [...new Set(results.flatMap((r) => (r.firstReply ?? []).map((f) => f.version)))].sort(
    (a, b) => a - b,
  );
  console.log(["version", ...names.map((n) => LABELS[n]!.padStart(34))].join(" | "));
  for (const v of gradedVersions) {
    const cells = names.map((n) => {
      const fs = byName
        .get(n)!
        .map((r) => (r.firstReply ?? []).find((f) => f.version === v))
        .filter((f): f is NonNullable<typeof f> => f !== undefined);
      if (!fs.length) return "".padStart(34);
      const both = fs.map((f) => f.sampled.both);
      return `${fmt(mean(both))} [${fmt(Math.min(...both))}, ${fmt(Math.max(...both))}]; ${fmt(mean(fs.map((f) => f.sampled.onTopic)))}; ${fmt(mean(fs.map((f) => f.greedy.both)))}`.padStart(
        34,
      );
    });
    console.log([String(v).padStart(7), ...cells].join(" | "));
  }
  console.log(`total wall time ${wallS.toFixed(0)} s`);
  const png = renderBandPng({
    title: `Judged reward while learning ${args.persona ? `${args.persona}'s` : "Leo's"} preference (window of ${args.window} versions; band = range over seeds ${args.seeds.join(", ")})`,
    xLabel: "training step (policy version served)",
    yLabel: "judged reward",
    yMin: -1,
    yMax: 1,
    target: { y: args.target, label: `target +${args.target}` },
    series: names.map((n) => {
      const ws = curves.get(n)!;
      const versions = [...new Set(ws.flatMap((w) => w.map((x) => x.version)))]
        .filter((v) => v >= args.window - 1)
        .sort((a, b) => a - b);
      return {
        label: LABELS[n]!,
        color: COLORS[n]!,
        points: versions
          .map((v) => {
            const xs = at(n, v);
            return { x: v, mean: mean(xs), min: Math.min(...xs), max: Math.max(...xs) };
          })
          .filter((p) => Number.isFinite(p.min)),
      };
    }),
  });
  writeFileSync(path.resolve(root, args.out), png);
  writeFileSync(
    path.resolve(root, args.out.replace(/\.png$/, ".json")),
    `${JSON.stringify({ args, base, results }, null, 1)}\n`,
  );
  console.log(`chart: ${args.out}`);
}

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(ArgsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = ArgsSchema.parse(values);
  if (args.child) {
    const { runChild } = await import("./child");
    const { DEMO_SIMULATION } = await import("../../server/simulation/demo");
    await runChild(
      args.child,
      args.steps,
      {
        ...DEMO_SIMULATION,
        seed: args.seed ?? DEMO_SIMULATION.seed,
        maxTurns: args.maxTurns ?? DEMO_SIMULATION.maxTurns,
        personas: args.persona ? [args.persona] : DEMO_SIMULATION.personas,
      },
      {
        lr: args.lr,
        batchSize: args.batch,
        hyper: args.hyper ? JSON.parse(args.hyper) : undefined,
        checkpoint: args.checkpoint,
        conversationsPerTick: args.conversationsPerTick,
        gradeK: args.gradeK,
        gateK: args.gateK,
        gateConfirm: args.gateConfirm,
      },
      args.window,
      args.maxConversations,
      args.until === undefined ? undefined : Date.parse(args.until),
    );
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
