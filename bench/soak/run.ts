/**
 * Soak bench: the whole pipeline — recording proxy, judge, trainer and the simulated-users worker, plus a
 * steady client loop through the official `openai` client — for `--minutes`, on a throwaway database and a
 * private redis-server. Reports throughput, p50/p99 latency (client-side and as the proxy recorded it),
 * judge and training lag, and RSS per process (VmRSS at start, middle and end: a leak shows as growth),
 * then checks the fault suite's invariants on what was recorded. A bench, not a test: numbers depend on the
 * machine.
 *
 *   npx tsx bench/soak/run.ts [--minutes 2] [--users 2] [--think-ms 500] [--batch 8] [--sim-per-minute 30]
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { z } from "zod";
import { chooseServer, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { migrate } from "../../server/platform/db/migrator";

const args = z
  .object({
    minutes: z.coerce.number().positive().default(2),
    users: z.coerce.number().int().min(0).default(2),
    "think-ms": z.coerce.number().int().min(0).default(500),
    batch: z.coerce.number().int().positive().default(8),
    "sim-per-minute": z.coerce.number().min(0).default(30),
  })
  .parse(
    parseArgs({
      options: {
        minutes: { type: "string" },
        users: { type: "string" },
        "think-ms": { type: "string" },
        batch: { type: "string" },
        "sim-per-minute": { type: "string" },
      },
    }).values,
  );

const root = path.resolve(import.meta.dirname, "../..");
const log = (s: string) => console.log(`[soak] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rssKb(pid: number | undefined): Promise<number | null> {
  if (!pid) return null;
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) : null;
}

function pct(xs: number[], p: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

const ms = (v: number | null) => (v === null ? "-" : `${Math.round(v)} ms`);
const mb = (kb: number | null) => (kb === null ? "-" : `${(kb / 1024).toFixed(0)} MB`);

async function main() {
  // A throwaway database (as `npm test` makes one); everything else comes from bench/lib/system.
  const server = await chooseServer(path.join(root, ".data", "soak"), log);
  const dbName = `ocrl_soak_${Date.now().toString(36)}`;
  await ensureDatabase(server.adminUrl, dbName);
  process.env.DATABASE_URL = withDatabase(server.adminUrl, dbName);
  process.env.SECRET_KEY ??= randomBytes(32).toString("base64url");
  process.env.UPSTREAM_ALLOWLIST ??= "127.0.0.1,localhost";
  await migrate(process.env.DATABASE_URL, path.join(root, "prisma/migrations"));
  const { startSystem } = await import("../lib/system");
  const { Cluster } = await import("../lib/cluster");
  const { Traffic } = await import("../lib/traffic");
  const { checkInvariants } = await import("../lib/invariants");
  const { table } = await import("../lib/report");
  const { db } = await import("../../server/platform/db/client");
  const { DEFAULT_SETTINGS } = await import("../../server/simulation/schemas");

  const sys = await startSystem({ batchSize: args.batch });
  const cluster = new Cluster(sys.workerEnv);
  const workers = ["serve", "judge", "train", "simulate"] as const;
  try {
    if (args["sim-per-minute"] > 0) {
      await db().simulationControl.upsert({
        where: { experimentId: sys.experiment.id },
        create: {
          experimentId: sys.experiment.id,
          enabled: true,
          perMinute: args["sim-per-minute"],
          concurrency: 4,
          personas: DEFAULT_SETTINGS.personas,
          seed: 1,
          maxTurns: 4,
        },
        update: { enabled: true, perMinute: args["sim-per-minute"] },
      });
    }
    for (const w of workers)
      cluster.start(w, w === "simulate" ? { SIMULATE_PROXY_URL: `${sys.proxyUrl}/v1`, SIMULATE_POLL_MS: "1000" } : {});
    for (let i = 0; !(await fetch(`${sys.proxyUrl}/healthz`).catch(() => null))?.ok; i++) {
      if (i > 600) throw new Error(`the proxy did not come up:\n${cluster.tail("serve")}`);
      await sleep(100);
    }
    const traffic = new Traffic({
      proxyUrl: sys.proxyUrl,
      apiKey: sys.key,
      model: sys.experiment.slug,
      users: args.users,
      turnsPerSession: 4,
      maxTokens: 16,
      thinkMs: args["think-ms"],
      tag: "soak",
    });
    const t0 = Date.now();
    traffic.start();
    log(
      `running ${args.minutes} min: ${args.users} client loop(s), simulated users at ${args["sim-per-minute"]}/min, batch ${args.batch}`,
    );

    const total = args.minutes * 60_000;
    const rss: Record<string, (number | null)[]> = Object.fromEntries(workers.map((w) => [w, []]));
    const sample = async () => {
      for (const w of workers) rss[w]!.push(await rssKb(cluster.get(w).child.pid));
    };
    await sleep(Math.min(15_000, total * 0.1)); // past start-up and the first model loads
    await sample();
    await sleep(total / 2 - Math.min(15_000, total * 0.1));
    await sample();
    await sleep(total / 2);
    await sample();
    await traffic.stop();
    const t1 = Date.now();
    const secs = (t1 - t0) / 1000;

    const exp = sys.experiment.id;
    const turns = await db().turn.findMany({
      where: { experimentId: exp, createdAt: { gte: new Date(t0), lte: new Date(t1) } },
      select: { latencyMs: true, simulated: true },
    });
    const lags = await db().$queryRaw<{ judge_ms: number }[]>`
      SELECT EXTRACT(EPOCH FROM (j."createdAt" - GREATEST(t."nextStateAt", s."doneAt"))) * 1000 AS judge_ms
      FROM judgments j JOIN turns t ON t.id = j."turnId" JOIN agent_sessions s ON s.id = t."sessionId"
      WHERE t."experimentId" = ${exp} AND j."createdAt" BETWEEN ${new Date(t0)} AND ${new Date(t1)}`;
    const trainLags = await db().$queryRaw<{ train_ms: number }[]>`
      SELECT EXTRACT(EPOCH FROM (st."createdAt" - sa."createdAt")) * 1000 AS train_ms
      FROM samples sa JOIN training_steps st ON st.id = sa."stepId" WHERE sa."runId" = ${sys.runId}`;
    const steps = await db().trainingStep.count({ where: { runId: sys.runId } });
    const backlog = await db().$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM turns t JOIN agent_sessions s ON s.id = t."sessionId"
      WHERE t."experimentId" = ${exp} AND t."turnType" = 'MAIN' AND t.status = 'OK' AND (t."nextStateAt" IS NOT NULL OR s.done)
        AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j."turnId" = t.id)`;
    const untrained = await db().sample.count({ where: { runId: sys.runId, stepId: null, excluded: false } });
    const client = traffic.records.filter((r) => r.ok && r.endedAt <= t1).map((r) => r.endedAt - r.startedAt);
    const recorded = turns.map((t) => t.latencyMs).filter((v): v is number => v !== null);

    console.log(`\nsoak: ${secs.toFixed(0)} s\n`);
    console.log(
      table(
        ["metric", "value"],
        [
          ["client requests (2xx / sent)", `${client.length} / ${traffic.records.length}`],
          ["turns recorded (simulated users)", `${turns.length} (${turns.filter((t) => t.simulated).length})`],
          ["throughput", `${(turns.length / secs).toFixed(2)} turns/s`],
          ["client latency p50 / p99", `${ms(pct(client, 50))} / ${ms(pct(client, 99))}`],
          ["proxy-recorded latency p50 / p99", `${ms(pct(recorded, 50))} / ${ms(pct(recorded, 99))}`],
          [
            "judge lag (ready → judged) p50 / p99",
            `${ms(
              pct(
                lags.map((l) => Number(l.judge_ms)),
                50,
              ),
            )} / ${ms(
              pct(
                lags.map((l) => Number(l.judge_ms)),
                99,
              ),
            )}`,
          ],
          ["judge backlog at end (ready, unjudged)", String(Number(backlog[0]?.n ?? 0))],
          ["training steps", `${steps} (${(steps / (secs / 60)).toFixed(1)}/min)`],
          [
            "train lag (sample → step) p50 / p99",
            `${ms(
              pct(
                trainLags.map((l) => Number(l.train_ms)),
                50,
              ),
            )} / ${ms(
              pct(
                trainLags.map((l) => Number(l.train_ms)),
                99,
              ),
            )}`,
          ],
          ["untrained samples at end", String(untrained)],
        ],
      ),
    );
    console.log("\nRSS per process (VmRSS)\n");
    console.log(
      table(
        ["process", "start", "middle", "end", "growth"],
        workers.map((w) => {
          const [a, b, c] = rss[w]!;
          return [
            w,
            mb(a ?? null),
            mb(b ?? null),
            mb(c ?? null),
            a && c ? `${(((c - a) / a) * 100).toFixed(0)}%` : "-",
          ];
        }),
      ),
    );
    const inv = await checkInvariants({ experimentId: exp, runId: sys.runId, okTurnIds: traffic.okTurnIds() });
    console.log(
      `\ninvariants: ${inv.violations.length ? inv.violations.join("; ") : "all hold"} (judge/train still catching up count as violations only while backlog remains)`,
    );
  } finally {
    await cluster.stopAll(10_000);
    await sys.close();
    const { db } = await import("../../server/platform/db/client");
    await db().$disconnect();
    const c = new pg.Client({ connectionString: server.adminUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await c.end();
    await server.stop?.();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err.stack ?? err.message);
    process.exit(1);
  },
);
