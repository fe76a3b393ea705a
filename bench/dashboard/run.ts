// Dashboard benchmark (issue 6). Not a test: it prints tables.
//   npx tsx bench/dashboard/run.ts [--turns 1000000] [--points 1000000] [--reps 40] [--keep] [--db <kept database>]
// Seeds a throwaway database with `--turns` turns (sessions of 50 main turns, judged with 3 votes, some
// split, reviewer and user labels, English-like text for full-text search) and a `--points`-point metric
// series, then times the trajectory list / filter / search API and the bucketed metrics API over real HTTP
// (the same handler production serves). Targets: list p95 ≤ 50 ms, search p95 ≤ 200 ms, a 1M-point chart
// payload ≤ 100 ms.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { Redis } from "ioredis";
import { chooseServer, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { chooseRedis } from "../../scripts/lib/redis";
import { migrate } from "../../server/platform/db/migrator";

const root = path.resolve(import.meta.dirname, "../..");
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const TURNS = arg("turns", 1_000_000);
const POINTS = arg("points", 1_000_000);
const REPS = arg("reps", 40);
const KEEP = process.argv.includes("--keep");
/** --db <name>: time the queries again on a database kept by an earlier --keep run (no seeding). */
const REUSE = process.argv.includes("--db") ? process.argv[process.argv.indexOf("--db") + 1]! : null;
const log = (s: string) => console.error(`[bench] ${new Date().toISOString().slice(11, 19)} ${s}`);

/** ~400 words, drawn with a skew toward the first ones (as natural text is), so terms range from common to rare. */
const WORDS = (
  "the a to of and in is it you that for on with this be are have not can will do at your from or as by an what " +
  "please thanks help need want make find book flight hotel rome paris berlin date time price budget meeting email " +
  "report draft send check update plan schedule tomorrow today week month year morning evening call note list task " +
  "file folder code python javascript error fix bug test build deploy server database query table column index row " +
  "search result answer question reply message user assistant tool weather forecast rain sun temperature city trip " +
  "train bus ticket seat window aisle dinner lunch restaurant reservation table menu wine coffee tea order delivery " +
  "address phone number contact name family friend birthday gift party invite calendar reminder alarm timer music " +
  "song playlist movie show episode book chapter page summary translate language french german spanish italian " +
  "english word sentence paragraph grammar spelling correct wrong again instead sorry mistake meant actually exactly " +
  "good great perfect nice fine okay sure yes no maybe later now soon first second third last next previous before " +
  "after during between about around near far left right up down open close start stop pause resume cancel confirm " +
  "account password login logout profile settings privacy security backup restore sync upload download share link " +
  "image photo video camera screen battery charge network wifi bluetooth printer scanner keyboard mouse monitor " +
  "invoice payment card bank transfer balance expense receipt tax refund discount coupon sale store shop cart " +
  "recipe ingredient cook bake oven boil fry salad soup pasta pizza bread cheese fruit apple banana orange lemon " +
  "doctor appointment medicine pharmacy symptom fever cough sleep exercise run walk yoga gym weight diet water " +
  "garden plant flower tree grass seed soil sunlight water fertilizer pot balcony kitchen bedroom bathroom garage"
).split(" ");
const RARE = "zanzibar";

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function seed(pool: pg.Pool, experimentId: string, runId: string) {
  const c = await pool.connect();
  try {
    // A sentence of n words, skewed toward common ones (power 3 on a uniform draw).
    const vocab = `ARRAY[${WORDS.map((w) => `'${w}'`).join(",")}]`;
    await c.query(`CREATE FUNCTION pg_temp.sentence(n int) RETURNS text LANGUAGE sql VOLATILE AS $$
      SELECT string_agg((${vocab})[1 + floor(power(random(), 3) * ${WORDS.length})::int], ' ') FROM generate_series(1, n) $$`);
    const sessions = Math.ceil(TURNS / 50);
    log(`seeding ${sessions} sessions`);
    await c.query(
      `INSERT INTO agent_sessions (id, "experimentId", "externalId", "turnCount", "createdAt", "lastTurnAt")
       SELECT 'bs' || g, $1, 'bench-session-' || g, 50, now() - interval '30 days' + g * interval '2 second', now() - interval '30 days' + g * interval '2 second' + interval '50 minutes'
       FROM generate_series(1, $2::int) g`,
      [experimentId, sessions],
    );
    const batch = 100_000;
    for (let from = 0; from < TURNS; from += batch) {
      const t0 = Date.now();
      // Turn k of session s: new messages = the echoed reply and a user message; 1 in 1000 mentions a rare word.
      await c.query(
        `INSERT INTO turns (id, "requestId", "experimentId", "sessionId", "runId", index, "turnType", "messagesOffset", "messagesDelta",
                            content, "policyVersion", "nextState", "nextStateRole", "nextStateAt", "createdAt", "tokenIds", logprobs)
         SELECT 'bt' || g, 'req-' || g, $1, 'bs' || (g / 50 + 1), CASE WHEN g % 3 = 0 THEN $2 ELSE NULL END, g % 50,
                CASE WHEN g % 25 = 24 THEN 'SIDE'::"TurnType" ELSE 'MAIN'::"TurnType" END, (g % 50) * 2,
                jsonb_build_array(jsonb_build_object('role', 'user', 'content', pg_temp.sentence(12) || CASE WHEN g % 1000 = 7 THEN ' ${RARE}' ELSE '' END)),
                pg_temp.sentence(20), g / 20000,
                jsonb_build_object('role', 'user', 'content', pg_temp.sentence(8)), 'user', now() - interval '30 days' + g * interval '2 second',
                now() - interval '30 days' + g * interval '2 second', '{}', '{}'
         FROM generate_series($3::int, $4::int) g`,
        [experimentId, runId, from, Math.min(TURNS, from + batch) - 1],
      );
      log(`turns ${Math.min(TURNS, from + batch)}/${TURNS} (${Date.now() - t0} ms)`);
    }
    log("judgments (85 % of main turns), 3 eval votes each, 20 % split");
    await c.query(
      `INSERT INTO judgments (id, "turnId", "judgeVersion", "judgeKind", model, "promptVersion", score, "evalScore", dispatch, excluded)
       SELECT 'bj' || substr(t.id, 3), t.id, 'bench', 'heuristic', 'heuristic', 'v1', s.score, s.score, CASE WHEN s.score = 0 THEN NULL ELSE 'RL' END, s.score = 0
       FROM turns t CROSS JOIN LATERAL (SELECT (ARRAY[1, 1, 1, -1, -1, 0])[1 + (hashtext(t.id) & 1023) % 6] AS score) s
       WHERE t."turnType" = 'MAIN' AND (hashtext(t.id) & 1023) % 100 < 85`,
    );
    await c.query(
      `INSERT INTO judge_votes (id, "judgmentId", kind, index, raw, value)
       SELECT j.id || '-' || v, j.id, 'eval', v, 'reasoning … \\boxed{' || CASE WHEN v = 2 AND (hashtext(j.id) & 1023) % 5 = 0 THEN -j.score ELSE j.score END || '}',
              CASE WHEN v = 2 AND (hashtext(j.id) & 1023) % 5 = 0 THEN -j.score ELSE j.score END
       FROM judgments j CROSS JOIN generate_series(0, 2) v`,
    );
    log("labels: 1 % reviewer, 3 % user feedback");
    await c.query(
      `INSERT INTO labels (id, "turnId", source, value, "createdAt")
       SELECT 'bl' || t.id, t.id, CASE WHEN (hashtext(t.id) & 1023) % 100 = 0 THEN 'REVIEWER'::"LabelSource" ELSE 'USER'::"LabelSource" END,
              CASE WHEN (hashtext(t.id) & 1023) % 2 = 0 THEN 1 ELSE -1 END, t."createdAt" + interval '1 minute'
       FROM turns t WHERE (hashtext(t.id) & 1023) % 100 < 4`,
    );
    log("VACUUM ANALYZE");
    for (const t of ["agent_sessions", "turns", "turn_facets", "judgments", "judge_votes", "labels"])
      await c.query(`VACUUM ANALYZE ${t}`);
  } finally {
    c.release();
  }
}

async function main() {
  const id = `${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const dataDir = path.join(root, ".data", "bench", id);
  const server = await chooseServer(path.join(root, ".data", "bench"), log);
  const dbName = REUSE ?? `ocrl_bench_dash_${id}`;
  const databaseUrl = withDatabase(server.adminUrl, dbName);
  if (!REUSE) {
    await ensureDatabase(server.adminUrl, dbName);
    await migrate(databaseUrl, path.join(root, "prisma/migrations"));
  }
  const redisChoice = await chooseRedis(dataDir, log);
  const prefix = `bench:${id}:`;
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisChoice.url,
    REDIS_PREFIX: prefix,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    API_RATE_LIMIT_PER_MIN: "1000000",
  });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const results: Record<string, unknown> = { turns: TURNS, points: POINTS, reps: REPS };
  try {
    // Imported only now: server modules read the environment set above.
    const { createApiKey } = await import("../../server/apiKeys/service");
    const { ExperimentConfigSchema } = await import("../../server/config/experimentConfig");
    const { serveFetch } = await import("../lib/httpAdapter");
    const { handleApi } = await import("../../server/gateway/handler");
    const experimentId = "bench-exp";
    if (!REUSE) {
      await pool.query(
        `INSERT INTO experiments (id, slug, name, config, "updatedAt") VALUES ($1, $1, 'Bench', $2, now())`,
        [experimentId, JSON.stringify(ExperimentConfigSchema.parse({ method: "grpo" }))],
      );
      await pool.query(
        `INSERT INTO runs (id, "experimentId", number, config, status, "trainerBackend") VALUES ('bench-run', $1, 1, '{}', 'RUNNING', 'embedded')`,
        [experimentId],
      );
      const t0 = Date.now();
      await seed(pool, experimentId, "bench-run");
      results.seedTurnsS = (Date.now() - t0) / 1000;

      log(`metric series of ${POINTS} points (trigger-maintained rollups)`);
      const m0 = Date.now();
      for (let from = 1; from <= POINTS; from += 200_000) {
        await pool.query(
          `INSERT INTO metric_points ("experimentId", "runId", name, step, value, ts)
           SELECT $1, 'bench-run', 'train/loss', g, 1.0 / (1 + g * 0.001) + random() * 0.05, now() - ($3::int - g) * interval '1 second'
           FROM generate_series($2::int, $4::int) g`,
          [experimentId, from, POINTS, Math.min(POINTS, from + 199_999)],
        );
      }
      results.ingestPointsPerS = Math.round(POINTS / ((Date.now() - m0) / 1000));
      await pool.query("VACUUM ANALYZE metric_points");
      await pool.query("VACUUM ANALYZE metric_rollups");
    }
    const key = (await createApiKey(null, { name: "bench", scopes: ["read"] })).key;
    const http = await serveFetch(handleApi);
    const get = async (p: string) => {
      const start = performance.now();
      const res = await fetch(`${http.url}${p}`, { headers: { authorization: `Bearer ${key}` } });
      const body = await res.text();
      const ms = performance.now() - start;
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${body.slice(0, 300)}`);
      return { ms, bytes: body.length, body };
    };
    const time = async (label: string, p: string | (() => Promise<string>)) => {
      const url = async () => (typeof p === "string" ? p : p());
      const first = await get(await url()); // warm-up (plans, caches)
      const ms: number[] = [];
      for (let i = 0; i < REPS; i++) ms.push((await get(await url())).ms);
      const items = (() => {
        try {
          const j = JSON.parse(first.body) as { items?: unknown[]; series?: { points: unknown[] }[] };
          return j.items?.length ?? j.series?.reduce((n, s) => n + s.points.length, 0) ?? null;
        } catch {
          return null;
        }
      })();
      const row = {
        label,
        p50: +pct(ms, 50).toFixed(1),
        p95: +pct(ms, 95).toFixed(1),
        items,
        kb: +(first.bytes / 1024).toFixed(1),
      };
      log(`${label}: p50 ${row.p50} ms, p95 ${row.p95} ms (${items} rows, ${row.kb} KB)`);
      return row;
    };
    const turns = (q: Record<string, string>) =>
      `/api/v1/turns?${new URLSearchParams({ experimentId, limit: "50", ...q })}`;
    // A cursor 200 pages deep.
    let deep = "";
    {
      let cursor: string | null = null;
      for (let i = 0; i < 200; i++) {
        const page = JSON.parse((await get(turns(cursor ? { cursor } : {}))).body) as { nextCursor: string | null };
        cursor = page.nextCursor;
      }
      deep = cursor ?? "";
    }
    const list = [
      await time("list, newest 50", turns({})),
      await time("list, page 201 (keyset cursor)", turns({ cursor: deep })),
      await time("filter score = -1", turns({ score: "-1" })),
      await time("filter split votes", turns({ agreement: "split" })),
      await time("filter disputed", turns({ disputed: "true" })),
      await time("filter relabeled", turns({ relabeled: "true" })),
      await time("filter side turns", turns({ turnType: "SIDE" })),
      await time("filter run + policy version", turns({ runId: "bench-run", policyVersion: "25" })),
      await time("filter session id", turns({ sessionId: "bench-session-12345" })),
      await time(
        "filter time range (1 day)",
        turns({
          from: new Date(Date.now() - 20 * 86400_000).toISOString(),
          to: new Date(Date.now() - 19 * 86400_000).toISOString(),
        }),
      ),
      await time("filter unjudged", turns({ score: "unjudged", turnType: "MAIN" })),
      await time("filter relabeled + score 0", turns({ relabeled: "true", score: "0" })),
    ];
    const search = [
      await time("search common word (please)", turns({ q: "please" })),
      await time("search medium word (invoice)", turns({ q: "invoice" })),
      await time(`search rare word (${RARE})`, turns({ q: RARE })),
      await time("search two words (flight rome)", turns({ q: "flight rome" })),
      await time('search phrase ("book flight")', turns({ q: '"book flight"' })),
      await time("search + filter (refund, score -1)", turns({ q: "refund", score: "-1" })),
    ];
    const series = (q: Record<string, string>) =>
      `/api/v1/metrics/series?${new URLSearchParams({ experimentId, runIds: "bench-run", names: "train/loss", ...q })}`;
    const charts = [
      await time(`${POINTS} points by step → ≤1000`, series({ axis: "step" })),
      await time(`${POINTS} points by time → ≤1000`, series({ axis: "time" })),
      await time(
        "zoom 1/10 of the range by step",
        series({ axis: "step", from: String(Math.floor(POINTS * 0.4)), to: String(Math.floor(POINTS * 0.5)) }),
      ),
      await time("zoom 900 steps (raw points)", series({ axis: "step", from: "5000", to: "5899" })),
    ];
    await http.close();
    Object.assign(results, { list, search, charts });
    const table = (
      title: string,
      rows: { label: string; p50: number; p95: number; items: number | null; kb: number }[],
    ) => {
      console.log(`\n${title}\n${"".padEnd(44)}   p50 ms   p95 ms   rows      KB`);
      for (const r of rows)
        console.log(
          `${r.label.padEnd(44)} ${String(r.p50).padStart(8)} ${String(r.p95).padStart(8)} ${String(r.items ?? "-").padStart(6)} ${String(r.kb).padStart(7)}`,
        );
    };
    console.log(
      `\nDashboard benchmark: ${TURNS} turns, ${POINTS}-point series, ${REPS} timed requests each (after one warm-up), over HTTP.`,
    );
    if (!REUSE)
      console.log(
        `Seeding took ${results.seedTurnsS} s; metric ingest with rollups: ${results.ingestPointsPerS} points/s.`,
      );
    table("Trajectory list and filters (target p95 ≤ 50 ms)", list);
    table("Full-text search (target p95 ≤ 200 ms)", search);
    table("Metrics bucketing (target ≤ 100 ms for a 1M-point chart)", charts);
    mkdirSync(path.join(root, "bench/out"), { recursive: true });
    writeFileSync(path.join(root, "bench/out/dashboard.json"), JSON.stringify(results, null, 2));
  } finally {
    await pool.end();
    const { db } = await import("../../server/platform/db/client");
    await db().$disconnect();
    const { redis } = await import("../../server/platform/redis");
    redis().disconnect();
    if (!KEEP && !REUSE) {
      const c = new pg.Client({ connectionString: server.adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await c.end();
    } else log(`kept database ${dbName}`);
    const r = new Redis(redisChoice.url);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
    await server.stop?.();
    await redisChoice.stop?.();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
