/**
 * The first-start demo, timed: runs `npm start` (scripts/start.mjs) against a throwaway database, a Redis prefix
 * and a data directory of its own, then watches what a newcomer would see — the first simulated trajectory, the
 * first judged turn, the first training step and the first reply from a new policy version in each demo experiment
 * — while sampling the dashboard's latency (the /simulation page's own tRPC query, signed in) and the CPU time each
 * process used. After `--minutes` it grades each single-policy demo's served version (its first replies to Leo's
 * held-out questions, persona-v2), the per-user demo's adapters beside its shared twin (each user's held-out questions,
 * K = 16) and stops everything.
 *
 *   npx tsx bench/learning/demo.ts [--minutes 6]
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { Redis } from "ioredis";
import { chooseServer, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { chooseRedis } from "../../scripts/lib/redis";
import { initBackend } from "../../server/engine/backend";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { EmbeddedEngine } from "../../server/engine/engine";
import {
  DEMO_EXPERIMENTS,
  DEMO_PERSONAL_EXPERIMENTS,
  DEMO_PERSONAL_SIMULATION,
  demoConfig,
} from "../../server/simulation/demo";
import { getPersona } from "../../server/simulation/personas";
import { heldOutGrade, type HeldOutGrade } from "../personal/heldOut";
import { firstReplyScore, interval95 } from "./firstReply";

const root = path.resolve(import.meta.dirname, "../..");
const { values } = parseArgs({ options: { minutes: { type: "string", default: "6" } } });
const minutes = Number(values.minutes);
const log = (s: string) => console.log(`[demo] ${s}`);

const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

/** user+system CPU seconds of every process whose environment carries our DATA_DIR, by command. */
function cpuByProcess(dataDir: string): Map<string, number> {
  const out = new Map<string, number>();
  const tick = 100; // USER_HZ
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`DATA_DIR=${dataDir}`)) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cpu = (Number(fields[11]) + Number(fields[12])) / tick;
      const worker = cmd.find((a) => /workers\/\w+\/main\.ts$/.test(a))?.match(/workers\/(\w+)\//)?.[1];
      const name =
        worker ??
        (cmd.some((a) => a.includes("next"))
          ? "web"
          : cmd.some((a) => a.endsWith("launch.ts") || a.endsWith("start.mjs"))
            ? "launcher"
            : path.basename(cmd[0] ?? "?"));
      out.set(name, (out.get(name) ?? 0) + cpu);
    } catch {
      /* gone */
    }
  }
  return out;
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ocrl-demo-"));
  const server = await chooseServer(path.join(root, ".data", "bench"), log);
  const dbName = `ocrl_demo_${Date.now().toString(36)}_${randomBytes(2).toString("hex")}`;
  await ensureDatabase(server.adminUrl, dbName);
  const databaseUrl = withDatabase(server.adminUrl, dbName);
  const redis = await chooseRedis(path.join(root, ".data", "bench"), log);
  const webPort = 46000 + Math.floor(Math.random() * 1000);
  const email = "demo@example.test";
  const password = randomBytes(9).toString("base64url");
  // A fresh first start: nothing of the caller's secret or mode leaks in.
  const { SECRET_KEY: _secret, NODE_ENV: _mode, ...inherited } = process.env;
  const env: Record<string, string | undefined> = {
    ...inherited,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `demo:${randomBytes(3).toString("hex")}:`,
    DATA_DIR: dataDir,
    WEB_PORT: String(webPort),
    PROXY_PORT: String(webPort + 1000),
    INIT_ADMIN_EMAIL: email,
    INIT_ADMIN_PASSWORD: password,
  };
  const t0 = Date.now();
  const child = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const db = new pg.Client({ connectionString: databaseUrl });
  const events = new Map<string, number>();
  const mark = (what: string) => {
    if (events.has(what)) return;
    events.set(what, (Date.now() - t0) / 1000);
    log(`${events.get(what)!.toFixed(0).padStart(4)} s  ${what}`);
  };
  const latencies: number[] = [];
  try {
    const base = `http://127.0.0.1:${webPort}`;
    while (
      !(await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (Date.now() - t0 > 15 * 60_000) throw new Error(`the dashboard did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    mark("dashboard up");
    await db.connect();
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const deadline = Date.now() + minutes * 60_000;
    const sample = async () => {
      const t = performance.now();
      const r = await fetch(`${base}/api/trpc/simulation.list`, { headers: { cookie, origin: base } });
      await r.text();
      if (r.ok) latencies.push(performance.now() - t);
    };
    while (Date.now() < deadline) {
      await sample();
      const { rows } = await db
        .query<{
          slug: string;
          sessions: number;
          turns: number;
          judged: number;
          steps: number;
          version: number;
          newer: number;
        }>(
          `SELECT e.slug,
           (SELECT count(*)::int FROM agent_sessions s WHERE s."experimentId" = e.id AND s.simulated) AS sessions,
           (SELECT count(*)::int FROM turns t WHERE t."experimentId" = e.id) AS turns,
           (SELECT count(*)::int FROM judgments j JOIN turns t ON t.id = j."turnId" WHERE t."experimentId" = e.id) AS judged,
           (SELECT count(*)::int FROM training_steps ts JOIN runs r ON r.id = ts."runId" WHERE r."experimentId" = e.id) AS steps,
           COALESCE((SELECT max(version) FROM policy_versions p WHERE p."experimentId" = e.id AND p.status = 'ACTIVE'), 0) AS version,
           (SELECT count(*)::int FROM turns t WHERE t."experimentId" = e.id AND t."policyVersion" > 0) AS newer
         FROM experiments e WHERE e.demo ORDER BY e.slug`,
        )
        .catch(() => ({ rows: [] }));
      for (const r of rows) {
        if (r.turns) mark(`${r.slug}: first trajectory`);
        if (r.judged) mark(`${r.slug}: first judged turn`);
        if (r.steps) mark(`${r.slug}: first training step`);
        if (r.newer) mark(`${r.slug}: first reply from a new policy version`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const cpu = cpuByProcess(dataDir);
    const wall = (Date.now() - t0) / 1000;
    // The issue's demo target: each single-policy demo's served version, its first replies to Leo's held-out
    // questions graded by persona-v2 (style and on topic), not by the judged reward it was trained on.
    const served = await db.query<{ slug: string; version: number; checkpointPath: string | null }>(
      `SELECT e.slug, p.version, p."checkpointPath" FROM experiments e
       JOIN policy_versions p ON p."experimentId" = e.id AND p.status = 'ACTIVE'
       WHERE e.demo AND e.slug = ANY($1) ORDER BY e.slug`,
      [DEMO_EXPERIMENTS.map((d) => d.slug)],
    );
    await initBackend();
    const maxTokens = demoConfig(DEMO_EXPERIMENTS[0]!).serving.maxTokens;
    console.log(`\nafter ${(wall / 60).toFixed(1)} min: served versions' first replies to Leo's held-out questions`);
    for (const v of served.rows) {
      const { model } = await loadCheckpoint(v.checkpointPath ?? path.join(root, "models/base"));
      const s = await firstReplyScore(model, "leo", { maxTokens });
      console.log(
        `  ${v.slug.padEnd(13)} v${v.version}: style and on topic ${s.sampled.both.toFixed(2)} [95 % ${interval95(s.sampled)}] (style ${s.sampled.style.toFixed(2)}, on topic ${s.sampled.onTopic.toFixed(2)}; ${s.sampled.replies} replies at T = 1) — target ≥ 0.6`,
      );
    }
    // The per-user demo (issue #31): each user's served adapter on demo-per-user, and the shared twin's served version,
    // graded on that user's held-out questions as bench/personal grades its arms (K = 16, the same seeds for both).
    const [twin] = (
      await db.query<{ version: number; checkpointPath: string | null }>(
        `SELECT p.version, p."checkpointPath" FROM experiments e
         JOIN policy_versions p ON p."experimentId" = e.id AND p.status = 'ACTIVE' WHERE e.slug = $1`,
        [DEMO_PERSONAL_EXPERIMENTS[1]!.slug],
      )
    ).rows;
    const adapters = await db.query<{ endUserId: string; id: string; version: number; weights: Buffer }>(
      `SELECT a."endUserId", a.id, a.version, a.weights FROM user_adapters a JOIN experiments e ON e.id = a."experimentId"
       WHERE e.slug = $1 AND a.state = 'PROMOTED'`,
      [DEMO_PERSONAL_EXPERIMENTS[0]!.slug],
    );
    const perUser = new EmbeddedEngine();
    await perUser.load(path.join(root, "models/base"));
    const shared = new EmbeddedEngine();
    await shared.load(twin?.checkpointPath ?? path.join(root, "models/base"));
    console.log(
      `\nafter ${(wall / 60).toFixed(1)} min: first replies to each user's held-out questions in their preference and on topic (K = 16 at T = 1), per-user adapter / shared twin v${twin?.version ?? 0} / base`,
    );
    for (const user of DEMO_PERSONAL_SIMULATION.personas.map(getPersona)) {
      const a = adapters.rows.find((r) => r.endUserId === user.id);
      const grade = { k: 16, maxTokens };
      const mine = await heldOutGrade(perUser, user, a && { key: a.id, weights: new Uint8Array(a.weights) }, grade);
      const theirs = await heldOutGrade(shared, user, undefined, grade);
      const base = await heldOutGrade(perUser, user, undefined, grade);
      const f = (g: HeldOutGrade) => `${g.both.toFixed(2)} (${g.style.toFixed(2)})`;
      console.log(`  ${user.id.padEnd(5)} adapter v${a?.version ?? 0}: ${f(mine)} / ${f(theirs)} / ${f(base)}`);
    }
    perUser.dispose();
    shared.dispose();
    // What each demo's steps trained on: how stale (versions between the one that served a turn and the one it
    // trained from), and how many judged turns were left untrained (dropped as too stale, or still waiting).
    const fed = await db.query<{
      slug: string;
      trained: number;
      staleness: number | null;
      fresh: number;
      dropped: number;
      waiting: number;
      turns: number;
    }>(
      `SELECT e.slug,
         count(*) FILTER (WHERE s."stepId" IS NOT NULL)::int AS trained,
         avg(s.staleness) FILTER (WHERE s."stepId" IS NOT NULL)::float8 AS staleness,
         count(*) FILTER (WHERE s."stepId" IS NOT NULL AND s.staleness = 0)::int AS fresh,
         count(*) FILTER (WHERE s."stepId" IS NULL AND s."excludeReason" = 'stale')::int AS dropped,
         count(*) FILTER (WHERE s."stepId" IS NULL AND NOT s.excluded)::int AS waiting,
         (SELECT count(*)::int FROM turns t WHERE t."experimentId" = e.id AND t."turnType" = 'MAIN') AS turns
       FROM experiments e JOIN runs r ON r."experimentId" = e.id JOIN samples s ON s."runId" = r.id
       WHERE e.demo AND e.slug = ANY($1) GROUP BY e.id, e.slug ORDER BY e.slug`,
      [DEMO_EXPERIMENTS.map((d) => d.slug)],
    );
    console.log(`\nafter ${(wall / 60).toFixed(1)} min: what the steps trained on`);
    for (const f of fed.rows)
      console.log(
        `  ${f.slug.padEnd(13)} ${f.turns} turns; ${f.trained} samples trained, staleness ${f.staleness?.toFixed(2) ?? "–"} on average (${f.fresh} served by the version they trained from); ${f.dropped} dropped as too stale, ${f.waiting} waiting`,
      );
    const { rows } = await db.query<{ slug: string; version: number; turns: number; reward: number; firstAt: Date }>(
      `SELECT e.slug, t."policyVersion" AS version, count(*)::int AS turns, avg(j.score)::float8 AS reward, min(t."createdAt") AS "firstAt"
       FROM experiments e JOIN turns t ON t."experimentId" = e.id
       JOIN LATERAL (SELECT score FROM judgments WHERE "turnId" = t.id ORDER BY "createdAt" DESC LIMIT 1) j ON true
       WHERE e.demo AND t."turnType" = 'MAIN' AND t."nextStateAt" IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    console.log(`\nafter ${(wall / 60).toFixed(1)} min: judged reward per served policy version`);
    for (const slug of [...new Set(rows.map((r) => r.slug))]) {
      const mine = rows.filter((r) => r.slug === slug);
      console.log(
        `  ${slug.padEnd(13)} ${mine.map((r) => `v${r.version} ${r.reward >= 0 ? "+" : ""}${r.reward.toFixed(2)} (${r.turns})`).join(", ")}`,
      );
      // When the turn-weighted mean of the last 5 versions first reached +0.6, in time since npm start.
      const hit = mine.findIndex((_, i) => {
        const span = mine.slice(Math.max(0, i - 4), i + 1);
        return (
          i >= 4 && span.reduce((a, v) => a + v.reward * v.turns, 0) / span.reduce((a, v) => a + v.turns, 0) >= 0.6
        );
      });
      console.log(
        `  ${"".padEnd(13)} 5-version window ≥ +0.6: ${hit < 0 ? "not yet" : `at version ${mine[hit].version}, ${((mine[hit].firstAt.getTime() - t0) / 1000).toFixed(0)} s after npm start`}`,
      );
    }
    console.log(
      `dashboard /api/trpc/simulation.list while the demo runs: p50 ${pct(latencies, 50).toFixed(0)} ms, p95 ${pct(latencies, 95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (${latencies.length} requests)`,
    );
    console.log(
      `CPU seconds per process over ${wall.toFixed(0)} s of wall time (2 cores = ${(2 * wall).toFixed(0)} s available):`,
    );
    for (const [name, s] of [...cpu].sort((a, b) => b[1] - a[1]))
      console.log(
        `  ${name.padEnd(10)} ${s.toFixed(0).padStart(5)} s  (${((100 * s) / wall).toFixed(0)}% of one core)`,
      );
  } finally {
    child.kill("SIGINT");
    await new Promise((r) => child.once("exit", r));
    await db.end().catch(() => {});
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
    const r = new Redis(redis.url);
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${env.REDIS_PREFIX}*`, "COUNT", 500);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== "0");
    r.disconnect();
    await redis.stop?.();
    await server.stop?.();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(1);
  },
);
