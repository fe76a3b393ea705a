// Proxy benchmark (issue 3, and issue 10's OpenClaw-shaped traffic). Not a test: it prints tables.
//   npx tsx bench/proxy/run.ts [--seconds 5] [--conversations 4] [--turns 50]
// Processes: this one generates load; the fake upstream and the proxy (recording into a throwaway
// database) run in their own processes, as in production. The same load goes directly to the upstream
// and through the proxy; the overhead is the difference.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { chooseServer, dropDatabase, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { chooseRedis, deleteRedisPrefix } from "../../scripts/lib/redis";
import { migrate } from "../../server/platform/db/migrator";
import { OpenClawAgent, type Body, type Reply } from "../../tests/integration/proxy/openclawShapes";
import { pct, request, runLoad, type LoadResult, type Target } from "./load";

const root = path.resolve(import.meta.dirname, "../..");
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 5);
const CONVERSATIONS = arg("conversations", 4);
const TURNS = arg("turns", 50);
/** --only json|stream|openclaw: one part of the benchmark (profiling). */
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
const log = (s: string) => console.error(`[bench] ${s}`);

function child(script: string, args: string[], env: NodeJS.ProcessEnv, profileDir?: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = profileDir
    ? spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--import", "tsx", path.join(root, script), ...args], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] })
    : spawn(path.join(root, "node_modules/.bin/tsx"), [path.join(root, script), ...args], { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once("line", (line) => resolve({ proc, url: (JSON.parse(line) as { url: string }).url }));
    proc.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

const stop = (p: ChildProcess) => new Promise<void>((r) => (p.exitCode !== null ? r() : (p.once("exit", () => r()), p.kill("SIGTERM"))));
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");

async function main() {
  const id = `${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const dataDir = path.join(root, ".data", "bench", id);
  const server = await chooseServer(path.join(root, ".data", "bench"), log);
  const dbName = `ocrl_bench_${id}`;
  await ensureDatabase(server.adminUrl, dbName);
  const databaseUrl = withDatabase(server.adminUrl, dbName);
  await migrate(databaseUrl, path.join(root, "prisma/migrations"));
  const redisChoice = await chooseRedis(dataDir, log);
  const prefix = `bench:${id}:`;
  Object.assign(process.env, { DATABASE_URL: databaseUrl, REDIS_URL: redisChoice.url, REDIS_PREFIX: prefix, SECRET_KEY: randomBytes(32).toString("base64url"), DATA_DIR: dataDir, NODE_ENV: "production", UPSTREAM_ALLOWLIST: "127.0.0.1" });
  const procs: ChildProcess[] = [];
  try {
    // Imported only now: server modules read the environment set above.
    const { createExperiment } = await import("../../server/experiments/service");
    const { createApiKey } = await import("../../server/apiKeys/service");
    const { ExperimentConfigSchema } = await import("../../server/experiments/config");
    const { createUser } = await import("../../server/users/service");
    const user = await createUser(null, { email: `bench-${id}@example.test`, password: randomBytes(8).toString("hex"), role: "ADMIN" });
    const admin = { kind: "user" as const, userId: user.id, email: user.email, role: "ADMIN" as const };

    const fixed = await child("bench/proxy/upstreamMain.ts", ["fixed"], process.env);
    const openclaw = await child("bench/proxy/upstreamMain.ts", ["openclaw"], process.env);
    procs.push(fixed.proc, openclaw.proc);
    const experiment = async (upstream: string, name: string) => {
      const e = await createExperiment(admin, { name, slug: `${name}-${id}`.toLowerCase().replace(/_/g, "-"), description: "", config: ExperimentConfigSchema.parse({ policy: { kind: "openai", baseUrl: upstream, model: "fake-model" } }) });
      const key = (await createApiKey(null, { name, scopes: ["proxy"], experimentId: e.id })).key;
      return { id: e.id, key };
    };
    const simple = await experiment(fixed.url, "bench-fixed");
    const claw = await experiment(openclaw.url, "bench-openclaw");
    // BENCH_PROXY_PROFILE=<dir> writes a CPU profile of the proxy process there.
    const proxy = await child("bench/proxy/proxyMain.ts", [], process.env, process.env.BENCH_PROXY_PROFILE);
    procs.push(proxy.proc);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const count = async (experimentId: string) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM turns WHERE "experimentId" = $1`, [experimentId])).rows[0]!.n);

    // 1. Fixed reply, non-streaming and streaming, at concurrency 1, 16, 64.
    const body = (stream: boolean) => JSON.stringify({ model: "m", messages: [{ role: "user", content: "Say something short." }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });
    const rows: string[][] = [];
    let proxied = 0;
    for (const stream of [false, true].filter((s) => !ONLY || (ONLY === "stream" && s) || (ONLY === "json" && !s))) {
      for (const concurrency of [1, 16, 64]) {
        const direct: Target = { url: `${fixed.url}/chat/completions`, headers: {} };
        const through: Target = { url: `${proxy.url}/v1/chat/completions`, headers: { authorization: `Bearer ${simple.key}`, "x-turn-type": "main" } };
        const d = await runLoad({ target: direct, concurrency, seconds: SECONDS, body: () => body(stream) });
        const p: LoadResult = await runLoad({ target: through, concurrency, seconds: SECONDS, body: () => body(stream), headers: (w) => ({ "x-session-id": `bench-${stream ? "s" : "j"}-${concurrency}-${w}` }) });
        proxied += p.sent;
        const [dp50, dp99, pp50, pp99] = [pct(d.latenciesMs, 50), pct(d.latenciesMs, 99), pct(p.latenciesMs, 50), pct(p.latenciesMs, 99)];
        rows.push([stream ? "stream" : "json", String(concurrency), (d.requests / d.seconds).toFixed(0), (p.requests / p.seconds).toFixed(0), f1(dp50), f1(pp50), f1(pp50 - dp50), f1(dp99), f1(pp99), f1(pp99 - dp99), String(p.errors)]);
        log(`done ${stream ? "stream" : "json"} c=${concurrency}`);
      }
    }
    const t0 = Date.now();
    while ((await count(simple.id)) < proxied && Date.now() - t0 < 180_000) await new Promise((r) => setTimeout(r, 200));
    const stored = await count(simple.id);
    const drainS = (Date.now() - t0) / 1000;

    // 2. OpenClaw-shaped conversations (2026.9.6: ~48k-char prompt, 23 tools, context block), growing to TURNS turns.
    const agentHttp = new http.Agent({ keepAlive: true, maxSockets: CONVERSATIONS * 2 });
    const clawRuns: Record<"direct" | "proxy", { latencies: number[]; bytes: number[] }> = { direct: { latencies: [], bytes: [] }, proxy: { latencies: [], bytes: [] } };
    const sendVia = (mode: "direct" | "proxy") => async (b: Body): Promise<Reply> => {
      const target: Target = mode === "direct" ? { url: `${openclaw.url}/chat/completions`, headers: {} } : { url: `${proxy.url}/v1/chat/completions`, headers: { authorization: `Bearer ${claw.key}` } };
      const payload = JSON.stringify(b);
      const t = process.hrtime.bigint();
      const res = await request(agentHttp, target, payload);
      clawRuns[mode].latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      clawRuns[mode].bytes.push(Buffer.byteLength(payload));
      return readSse(res.body);
    };
    const agents: Record<"direct" | "proxy", OpenClawAgent[]> = { direct: [], proxy: [] };
    for (const mode of ["direct", "proxy"] as const) {
      if (ONLY && ONLY !== "openclaw") break;
      agents[mode] = Array.from({ length: CONVERSATIONS }, () => new OpenClawAgent("2026.9.6", sendVia(mode), { systemChars: 48_000, tools: 20 }));
      await Promise.all(agents[mode].map(async (a, k) => {
        for (let t = 0; t < TURNS; t++) await a.say(t % 7 === 3 ? `What's the weather for stop ${t}?` : `Conversation ${k}, step ${t}: please continue the plan.`);
      }));
      log(`done OpenClaw ${mode}`);
    }
    agentHttp.destroy();
    const clawSent = agents.proxy.reduce((n, a) => n + a.sent.length, 0);
    const t1 = Date.now();
    while ((await count(claw.id)) < clawSent && Date.now() - t1 < 180_000) await new Promise((r) => setTimeout(r, 200));
    const clawStored = await count(claw.id);

    // Bytes the client added per request (vs its previous request) — what a turn genuinely brings.
    let newBytes = 0;
    for (const a of agents.proxy) {
      let prev: string[] = [];
      for (const req of a.sent) {
        const cur = req.body.messages.map((m) => JSON.stringify(m));
        let k = 0;
        while (k < prev.length && k < cur.length && prev[k] === cur[k]) k++;
        newBytes += cur.slice(k).reduce((n, s) => n + Buffer.byteLength(s), 0);
        prev = cur;
      }
    }
    const st = (
      await pool.query<{ rows: string; blobs: string; sessions: string }>(
        `SELECT (SELECT sum(octet_length("messagesDelta"::text) + octet_length(params::text) + coalesce(octet_length(content), 0) + coalesce(octet_length("toolCalls"::text), 0)
                  + coalesce(octet_length("nextState"::text), 0)) FROM turns WHERE "experimentId" = $1) AS rows,
                (SELECT sum(bytes) FROM blobs WHERE hash IN (SELECT "systemHash" FROM turns WHERE "experimentId" = $1 UNION SELECT "toolsHash" FROM turns WHERE "experimentId" = $1)) AS blobs,
                (SELECT count(*) FROM agent_sessions WHERE "experimentId" = $1) AS sessions`,
        [claw.id],
      )
    ).rows[0]!;
    await pool.end();

    const table = (head: string[], body: string[][]) => {
      const w = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
      const line = (r: string[]) => r.map((c, i) => c.padStart(w[i]!)).join("  ");
      return [line(head), line(w.map((n) => "-".repeat(n))), ...body.map(line)].join("\n");
    };
    console.log(`\nProxy overhead, fixed reply, recording on (${SECONDS}s per cell, closed loop; latency in ms)\n`);
    console.log(table(["mode", "conc", "direct rps", "proxy rps", "direct p50", "proxy p50", "+p50", "direct p99", "proxy p99", "+p99", "errors"], rows));
    console.log(`\nRecorded turns: ${stored} of ${proxied} proxied requests (${stored === proxied ? "all recorded" : "MISMATCH"}); writer caught up ${drainS.toFixed(1)} s after the load ended.`);

    const dl = clawRuns.direct.latencies;
    const pl = clawRuns.proxy.latencies;
    const avgKb = clawRuns.proxy.bytes.reduce((a, b) => a + b, 0) / clawRuns.proxy.bytes.length / 1024;
    console.log(`\nOpenClaw-shaped traffic (2026.9.6 shape: 48k-char system prompt, 20 tools, context block; ${CONVERSATIONS} concurrent conversations × ${TURNS} user turns + tool round trips)\n`);
    console.log(table(["requests", "avg KB", "direct p50", "proxy p50", "+p50", "direct p99", "proxy p99", "+p99"], [[String(pl.length), avgKb.toFixed(1), f1(pct(dl, 50)), f1(pct(pl, 50)), f1(pct(pl, 50) - pct(dl, 50)), f1(pct(dl, 99)), f1(pct(pl, 99)), f1(pct(pl, 99) - pct(dl, 99))]]));
    const rowsPer = Number(st.rows) / clawStored;
    const blobsPer = Number(st.blobs) / clawStored;
    const newPer = newBytes / clawSent;
    const fullPer = clawRuns.proxy.bytes.reduce((a, b) => a + b, 0) / clawSent;
    console.log(`\nStorage per turn: new messages ${newPer.toFixed(0)} B; stored ${rowsPer.toFixed(0)} B in the turn row + ${blobsPer.toFixed(0)} B of shared blobs (amortized)`);
    console.log(`  ratio stored/new: ${(rowsPer / newPer).toFixed(2)}× (row) / ${((rowsPer + blobsPer) / newPer).toFixed(2)}× (with blobs); storing full requests would be ${(fullPer / newPer).toFixed(1)}× (${(fullPer / 1024).toFixed(1)} KB/turn)`);
    console.log(`  ${clawStored} of ${clawSent} OpenClaw turns recorded in ${st.sessions} stitched sessions (${CONVERSATIONS} conversations)`);
  } finally {
    for (const p of procs) await stop(p);
    await dropDatabase(server.adminUrl, dbName);
    await deleteRedisPrefix(redisChoice.url, prefix);
    await server.stop?.();
    await redisChoice.stop?.();
  }
}

/** The reply an SSE body carried (content and merged tool calls). */
function readSse(body: string): Reply {
  let content: string | null = null;
  const calls: Reply["toolCalls"] = [];
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const j = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[] };
    const d = j.choices?.[0]?.delta;
    if (!d) continue;
    if (d.content) content = (content ?? "") + d.content;
    for (const tc of d.tool_calls ?? []) {
      const c = (calls[tc.index] ??= { id: "", name: "", arguments: "" });
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.name += tc.function.name;
      if (tc.function?.arguments) c.arguments += tc.function.arguments;
    }
  }
  return { content, toolCalls: calls };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
