// Proxy benchmark (issues 3, 10 and 17). Not a test: it prints tables, each number next to a same-run
// baseline, with the machine's core count and load average.
//   npx tsx bench/proxy/run.ts [--seconds 3] [--repeats 2] [--conversations 2] [--turns 8] [--replicas 1,2,3] [--stream] [--only json|openclaw|replicas]
// Processes, as in production: this one generates load; the fake upstreams, a bare Node pass-through (the
// baseline), the proxy replicas (recording into a throwaway database), a round-robin balancer per replica
// count, and a private redis-server (so its CPU time is the benchmark's own) each run on their own.
// Rate limits are lifted with the proxy's own setting (PROXY_RATE_LIMIT_PER_MIN), and only 2xx answers count.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import pg from "pg";
import { chooseServer, dropDatabase, ensureDatabase, withDatabase } from "../../scripts/lib/database";
import { pingRedis } from "../../scripts/lib/redis";
import { migrate } from "../../server/platform/db/migrator";
import { mergeDelta, OpenClawAgent, type Body, type Reply, type ReplyDelta } from "../lib/openclawShapes";
import { failures, is2xx, pct, request, runLoad, throughput, type LoadResult, type Target } from "./load";

const root = path.resolve(import.meta.dirname, "../..");
const argv = process.argv;
const arg = (name: string, dflt: number) =>
  argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : dflt;
const SECONDS = arg("seconds", 3);
const REPEATS = arg("repeats", 2);
const CONVERSATIONS = arg("conversations", 2);
const TURNS = arg("turns", 8);
const REPLICAS = (argv.includes("--replicas") ? argv[argv.indexOf("--replicas") + 1]! : "1,2,3").split(",").map(Number);
const STREAM = argv.includes("--stream");
const ONLY = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : null;
const part = (p: string) => !ONLY || ONLY === p;
const log = (s: string) => console.error(`[bench] ${s}`);

interface Child {
  proc: ChildProcess;
  url: string;
  lines: Interface;
}

function child(script: string, args: string[], env: NodeJS.ProcessEnv, profileDir?: string): Promise<Child> {
  // node itself (not the tsx launcher, which would run it in a grandchild): its pid is the one whose CPU is read.
  const prof = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const proc = spawn(process.execPath, [...prof, "--import", "tsx", path.join(root, script), ...args], {
    cwd: root,
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout! });
  return new Promise((resolve, reject) => {
    lines.once("line", (line) => resolve({ proc, url: (JSON.parse(line) as { url: string }).url, lines }));
    proc.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

const stop = (p: ChildProcess) =>
  new Promise<void>((r) => (p.exitCode !== null ? r() : (p.once("exit", () => r()), p.kill("SIGTERM"))));

/** Asks a proxy to write everything it recorded so far; resolves with its answer. */
type WriterStats = Record<string, number>;
function drain(p: Child): Promise<{ drained: boolean; depth: number; stats: WriterStats }> {
  return new Promise((resolve) => {
    p.lines.once("line", (l) => resolve(JSON.parse(l) as { drained: boolean; depth: number; stats: WriterStats }));
    p.proc.stdin!.write("drain\n");
  });
}

/** User + system CPU time of a process so far, in ms (Linux /proc; 0 where unreadable). */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in USER_HZ (100/s on Linux)
  } catch {
    return 0;
  }
}

const freePort = () =>
  new Promise<number>((r) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => r(port));
    });
  });

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "-");
const median = (xs: number[]) => pct(xs, 50);
const table = (head: string[], body: string[][]) => {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padStart(w[i]!)).join("  ");
  return [line(head), line(w.map((n) => "-".repeat(n))), ...body.map(line)].join("\n");
};

async function main() {
  const id = `${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const dataDir = path.join(root, ".data", "bench", id);
  await mkdir(dataDir, { recursive: true });
  const server = await chooseServer(path.join(root, ".data", "bench"), log);
  const dbName = `ocrl_bench_${id}`;
  await ensureDatabase(server.adminUrl, dbName);
  const databaseUrl = withDatabase(server.adminUrl, dbName);
  await migrate(databaseUrl, path.join(root, "prisma/migrations"));
  // A private Redis: its CPU time is only this benchmark's (the shared one serves every test run here).
  const redisPort = await freePort();
  const redis = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; i < 50 && !(await pingRedis(redisUrl)); i++) await new Promise((r) => setTimeout(r, 100));
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `bench:${id}:`,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    UPSTREAM_ALLOWLIST: "127.0.0.1",
    // The proxy's own setting: the benchmark's key must not be throttled (the limiter still runs).
    PROXY_RATE_LIMIT_PER_MIN: "1000000000",
  });
  const load0 = os.loadavg();
  const procs: ChildProcess[] = [redis];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    const { createExperiment } = await import("../../server/experiments/service");
    const { createApiKey } = await import("../../server/apiKeys/service");
    const { ExperimentConfigSchema } = await import("../../server/config/experimentConfig");
    const { createUser } = await import("../../server/users/service");
    const user = await createUser(null, {
      email: `bench-${id}@example.test`,
      password: randomBytes(8).toString("hex"),
      role: "ADMIN",
    });
    const admin = { kind: "user" as const, userId: user.id, email: user.email, role: "ADMIN" as const };

    const start = async (script: string, args: string[] = [], profile?: string) => {
      const c = await child(script, args, process.env, profile);
      procs.push(c.proc);
      return c;
    };
    const fixed = await start("bench/proxy/upstreamMain.ts", ["fixed"]);
    const openclaw = await start("bench/proxy/upstreamMain.ts", ["openclaw"]);
    const bareFixed = await start("bench/proxy/bareMain.ts", [fixed.url]);
    const bareClaw = await start("bench/proxy/bareMain.ts", [openclaw.url]);
    const experiment = async (upstream: string, name: string) => {
      const e = await createExperiment(admin, {
        name,
        slug: `${name}-${id}`.toLowerCase().replace(/_/g, "-"),
        description: "",
        config: ExperimentConfigSchema.parse({ policy: { kind: "openai", baseUrl: upstream, model: "fake-model" } }),
      });
      const key = (await createApiKey(null, { name, scopes: ["proxy"], experimentId: e.id })).key;
      return { id: e.id, key };
    };
    // BENCH_PROXY_PROFILE=<dir> writes a CPU profile of the first replica there.
    const maxReplicas = Math.max(...REPLICAS);
    const proxies: Child[] = [];
    for (let i = 0; i < maxReplicas; i++)
      proxies.push(await start("bench/proxy/proxyMain.ts", [], i === 0 ? process.env.BENCH_PROXY_PROFILE : undefined));
    let writerStats: WriterStats[] = [];
    const drainAll = async () => {
      const answers = await Promise.all(proxies.map(drain));
      writerStats = answers.map((a) => a.stats);
      return answers.every((d) => d.drained);
    };
    const deadlocks = async () =>
      Number(
        (
          await pool.query<{ n: string }>(
            `SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()`,
          )
        ).rows[0]!.n,
      );
    const count = async (experimentId: string) =>
      Number(
        (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM turns WHERE "experimentId" = $1`, [experimentId]))
          .rows[0]!.n,
      );

    // Ingest cost: CPU of the Postgres backends serving this database (the proxies' writer pools) and of the
    // private redis-server, over the proxy runs only.
    const backends = async () =>
      (
        await pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        )
      ).rows.map((r) => r.pid);
    const ingest = { pgMs: 0, redisMs: 0, proxyMs: 0 };
    const measured = async <T>(run: () => Promise<T>): Promise<T> => {
      const pgBefore = new Map((await backends()).map((p) => [p, cpuMs(p)]));
      const redisBefore = cpuMs(redis.pid!);
      const proxyBefore = cpuMs(proxies[0]!.proc.pid!);
      const out = await run();
      await drainAll();
      for (const p of await backends()) ingest.pgMs += cpuMs(p) - (pgBefore.get(p) ?? 0);
      ingest.redisMs += cpuMs(redis.pid!) - redisBefore;
      ingest.proxyMs += cpuMs(proxies[0]!.proc.pid!) - proxyBefore;
      return out;
    };

    const out: string[] = [];
    const say = (s: string) => (out.push(s), console.log(s));
    const header = () =>
      `${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), load average ${load0.map((x) => x.toFixed(1)).join(" ")} at start`;
    say(
      `\nMachine: ${header()}; ${SECONDS} s per cell after 1 s warm-up, ${REPEATS} repeat(s) interleaved (median, [min–max] of req/s)`,
    );

    // 1. Fixed reply: direct, bare pass-through, proxy (one replica), same load generator, same upstream.
    if (part("json")) {
      const simple = await experiment(fixed.url, "bench-fixed");
      const modes = STREAM ? [false, true] : [false];
      const rows: string[][] = [];
      let proxied = 0;
      for (const stream of modes) {
        const body = () =>
          JSON.stringify({
            model: "m",
            messages: [{ role: "user", content: "Say something short." }],
            stream,
            ...(stream ? { stream_options: { include_usage: true } } : {}),
          });
        for (const concurrency of [1, 16, 64]) {
          const runs: Record<"direct" | "bare" | "proxy", LoadResult[]> = { direct: [], bare: [], proxy: [] };
          for (let rep = 0; rep < REPEATS; rep++) {
            runs.direct.push(
              await runLoad({
                target: { url: `${fixed.url}/chat/completions`, headers: {} },
                concurrency,
                seconds: SECONDS,
                body,
              }),
            );
            runs.bare.push(
              await runLoad({
                target: { url: `${bareFixed.url}/chat/completions`, headers: {} },
                concurrency,
                seconds: SECONDS,
                body,
              }),
            );
            const p = await measured(() =>
              runLoad({
                target: {
                  url: `${proxies[0]!.url}/v1/chat/completions`,
                  headers: { authorization: `Bearer ${simple.key}`, "x-turn-type": "main" },
                },
                concurrency,
                seconds: SECONDS,
                body,
                headers: (w) => ({ "x-session-id": `bench-${stream ? "s" : "j"}-${concurrency}-${rep}-${w}` }),
              }),
            );
            runs.proxy.push(p);
            proxied += p.okAll;
          }
          const rps = (m: keyof typeof runs) => runs[m].map(throughput);
          const lat = (m: keyof typeof runs, q: number) => median(runs[m].map((r) => pct(r.latenciesMs, q)));
          const spread = (xs: number[]) => `${f0(median(xs))} [${f0(Math.min(...xs))}–${f0(Math.max(...xs))}]`;
          rows.push([
            stream ? "stream" : "json",
            String(concurrency),
            spread(rps("direct")),
            spread(rps("bare")),
            spread(rps("proxy")),
            f1(median(rps("proxy")) / median(rps("bare"))),
            f1(lat("bare", 50) - lat("direct", 50)),
            f1(lat("proxy", 50) - lat("direct", 50)),
            f1(lat("bare", 99) - lat("direct", 99)),
            f1(lat("proxy", 99) - lat("direct", 99)),
            (["direct", "bare", "proxy"] as const)
              .map((m) => runs[m].map(failures).filter(Boolean).join(" "))
              .filter(Boolean)
              .join("; ") || "none",
          ]);
          log(`done ${stream ? "stream" : "json"} c=${concurrency}`);
        }
      }
      const stored = await count(simple.id);
      say(`\nFixed reply, closed loop, recording on (2xx only; latency added over direct, ms)\n`);
      say(
        table(
          [
            "mode",
            "conc",
            "direct rps",
            "bare rps",
            "proxy rps",
            "proxy/bare",
            "bare +p50",
            "proxy +p50",
            "bare +p99",
            "proxy +p99",
            "non-2xx",
          ],
          rows,
        ),
      );
      say(
        `\nStored turns = 2xx answers: ${stored} of ${proxied} (${stored === proxied ? "exact" : "MISMATCH"}), checked after every replica reported its writer drained.`,
      );
      say(
        `Ingest cost per recorded turn: Postgres backends ${f1(ingest.pgMs / stored)} ms CPU, redis-server ${f1(ingest.redisMs / stored)} ms CPU; the proxy process ${f1(ingest.proxyMs / stored)} ms CPU per turn.`,
      );
    }

    // 2. OpenClaw-shaped conversations (2026.9.6: ~48k-char prompt, 20 tools, context block), stitched.
    if (part("openclaw")) {
      const claw = await experiment(openclaw.url, "bench-openclaw");
      const agentHttp = new http.Agent({ keepAlive: true, maxSockets: CONVERSATIONS * 2 });
      const lat: Record<string, number[]> = { direct: [], bare: [], proxy: [] };
      const statusOk: Record<string, number> = { direct: 0, bare: 0, proxy: 0 };
      let kb = 0;
      const sendVia =
        (mode: "direct" | "bare" | "proxy", measure = true) =>
        async (b: Body): Promise<Reply> => {
          const target: Target =
            mode === "direct"
              ? { url: `${openclaw.url}/chat/completions`, headers: {} }
              : mode === "bare"
                ? { url: `${bareClaw.url}/chat/completions`, headers: {} }
                : { url: `${proxies[0]!.url}/v1/chat/completions`, headers: { authorization: `Bearer ${claw.key}` } };
          const payload = JSON.stringify(b);
          const t = process.hrtime.bigint();
          const res = await request(agentHttp, target, payload);
          if (is2xx(res.status)) {
            if (measure) lat[mode]!.push(Number(process.hrtime.bigint() - t) / 1e6);
            statusOk[mode]!++;
          }
          if (mode === "proxy" && measure) kb += Buffer.byteLength(payload) / 1024;
          return readSse(res.body);
        };
      let sent = 0;
      for (const mode of ["direct", "bare", "proxy"] as const) {
        // Warm-up (not measured, but stored and counted): the first requests of a process pay for JIT and caches.
        const warm = new OpenClawAgent("2026.9.6", sendVia(mode, false), { systemChars: 48_000, tools: 20 });
        for (let t = 0; t < 3; t++) await warm.say(t === 1 ? "What's the weather?" : `Warm-up step ${t}.`);
        if (mode === "proxy") sent += warm.sent.length;
        const agents = Array.from(
          { length: CONVERSATIONS },
          () => new OpenClawAgent("2026.9.6", sendVia(mode), { systemChars: 48_000, tools: 20 }),
        );
        const go = () =>
          Promise.all(
            agents.map(async (a, k) => {
              for (let t = 0; t < TURNS; t++)
                await a.say(
                  t % 7 === 3
                    ? `What's the weather for stop ${t}?`
                    : `Conversation ${k}, step ${t}: please continue the plan.`,
                );
            }),
          );
        await (mode === "proxy" ? measured(go) : go());
        if (mode === "proxy") sent += agents.reduce((n, a) => n + a.sent.length, 0);
        log(`done OpenClaw ${mode}`);
      }
      agentHttp.destroy();
      const stored = await count(claw.id);
      const sessions = Number(
        (
          await pool.query<{ n: string }>(`SELECT count(*) AS n FROM agent_sessions WHERE "experimentId" = $1`, [
            claw.id,
          ])
        ).rows[0]!.n,
      );
      const d = lat.direct!,
        b = lat.bare!,
        p = lat.proxy!;
      say(
        `\nOpenClaw-shaped traffic (48k-char system prompt, 20 tools, context block; ${CONVERSATIONS} concurrent conversations × ${TURNS} user turns + tool round trips; avg ${(kb / Math.max(1, p.length)).toFixed(1)} KB per request)\n`,
      );
      say(
        table(
          ["requests", "direct p50", "bare +p50", "proxy +p50", "direct p99", "bare +p99", "proxy +p99"],
          [
            [
              String(p.length),
              f1(pct(d, 50)),
              f1(pct(b, 50) - pct(d, 50)),
              f1(pct(p, 50) - pct(d, 50)),
              f1(pct(d, 99)),
              f1(pct(b, 99) - pct(d, 99)),
              f1(pct(p, 99) - pct(d, 99)),
            ],
          ],
        ),
      );
      say(
        `Stored turns = 2xx answers: ${stored} of ${statusOk.proxy} (${stored === statusOk.proxy && stored === sent ? "exact" : "MISMATCH"}, warm-up included), in ${sessions} stitched session(s) for ${CONVERSATIONS} conversation(s) + 1 warm-up.`,
      );
    }

    // 3. Replicas behind the bench's round-robin balancer: throughput 1 → N and the stored sessions compared.
    if (part("replicas")) {
      const rows: string[][] = [];
      const canon: Record<number, string> = {};
      const base: Record<number, number> = {};
      const notes: string[] = [];
      for (const n of REPLICAS) {
        await drainAll();
        const statsBefore = writerStats.map((w) => ({ ...w }));
        const deadlocksBefore = await deadlocks();
        // CPU per stored turn of everything that serves it (replicas, their Postgres backends, Redis): the cost
        // a replica count adds, which the noisy throughput numbers of a shared machine hide.
        const serving = () => proxies.slice(0, n).reduce((t, p) => t + cpuMs(p.proc.pid!), 0) + cpuMs(redis.pid!);
        const pgBefore = new Map((await backends()).map((p) => [p, cpuMs(p)]));
        const cpuBefore = serving();
        const lb = await start(
          "bench/proxy/balancerMain.ts",
          proxies.slice(0, n).map((p) => p.url),
        );
        const hdr = await experiment(fixed.url, `bench-rep${n}-hdr`);
        const cells: string[] = [];
        let okAll = 0;
        for (const concurrency of [16, 64]) {
          const body = () =>
            JSON.stringify({ model: "m", messages: [{ role: "user", content: "Say something short." }] });
          const r = await runLoad({
            target: {
              url: `${lb.url}/v1/chat/completions`,
              headers: { authorization: `Bearer ${hdr.key}`, "x-turn-type": "main" },
            },
            concurrency,
            seconds: SECONDS,
            body,
            headers: (w) => ({ "x-session-id": `rep-${n}-${concurrency}-${w}` }),
          });
          okAll += r.okAll;
          if (n === REPLICAS[0]) base[concurrency] = throughput(r);
          cells.push(f0(throughput(r)), f1(throughput(r) / base[concurrency]!), failures(r) || "none");
        }
        // The same conversations through n replicas: stitched OpenClaw ones and header sessions.
        const claw = await experiment(openclaw.url, `bench-rep${n}-claw`);
        const agentHttp = new http.Agent({ keepAlive: true, maxSockets: 16 });
        let clawOk = 0;
        const send = async (b: Body, extra: Record<string, string> = {}) => {
          const res = await request(
            agentHttp,
            { url: `${lb.url}/v1/chat/completions`, headers: { authorization: `Bearer ${claw.key}`, ...extra } },
            JSON.stringify(b),
          );
          if (is2xx(res.status)) clawOk++;
          return res;
        };
        await Promise.all([
          ...Array.from({ length: 2 }, async (_, k) => {
            const a = new OpenClawAgent("2026.9.6", async (b) => readSse((await send(b)).body), {
              systemChars: 8000,
              tools: 5,
            });
            for (let t = 0; t < 5; t++) await a.say(t === 2 ? "What's the weather?" : `Conversation ${k}, step ${t}.`);
          }),
          ...Array.from({ length: 3 }, async (_, k) => {
            const msgs: { role: string; content: string }[] = [];
            for (let t = 0; t < 6; t++) {
              msgs.push({ role: "user", content: `header conversation ${k}, turn ${t}` });
              const r = await send(
                { model: "m", messages: msgs as Body["messages"] },
                { "x-session-id": `conv-${k}`, "x-turn-type": "main" },
              );
              msgs.push({
                role: "assistant",
                content: (JSON.parse(r.body) as { choices: { message: { content: string } }[] }).choices[0]!.message
                  .content,
              });
            }
          }),
        ]);
        agentHttp.destroy();
        await drainAll();
        const storedHdr = await count(hdr.id);
        const storedClaw = await count(claw.id);
        canon[n] = await canonicalSessions(pool, claw.id);
        const same = n === REPLICAS[0] ? "(reference)" : canon[n] === canon[REPLICAS[0]!] ? "identical" : "DIFFERENT";
        if (same === "DIFFERENT") {
          await writeFile(path.join(dataDir, `sessions-${REPLICAS[0]}.json`), canon[REPLICAS[0]!]!);
          await writeFile(path.join(dataDir, `sessions-${n}.json`), canon[n]!);
          log(`stored sessions differ: compare ${dataDir}/sessions-${REPLICAS[0]}.json and sessions-${n}.json`);
        }
        rows.push([
          String(n),
          ...cells,
          `${storedHdr}/${okAll} ${storedHdr === okAll ? "exact" : "MISMATCH"}`,
          `${storedClaw}/${clawOk} ${storedClaw === clawOk ? "exact" : "MISMATCH"}`,
          same,
        ]);
        await stop(lb.proc);
        let pgMs = 0;
        for (const p of await backends()) pgMs += cpuMs(p) - (pgBefore.get(p) ?? 0);
        const cpuPerTurn = (serving() - cpuBefore + pgMs) / (storedHdr + storedClaw);
        const delta = (k: string) =>
          writerStats.reduce((sum, w, i) => sum + (w[k] ?? 0) - (statsBefore[i]?.[k] ?? 0), 0);
        notes.push(
          `${n} replica(s): ${f1(cpuPerTurn)} ms CPU per stored turn (replicas + Postgres backends + Redis), ${delta("batches")} writer batches, ${delta("deferred")} next states or labels deferred to another replica's commit, ${delta("reindexed")} re-indexed, ${delta("dbErrors")} database errors, ${(await deadlocks()) - deadlocksBefore} deadlocks`,
        );
        log(`done replicas=${n}`);
      }
      say(
        `\nReplicas behind the bench's round-robin balancer (its own process; every count through it, 1 replica included), header sessions, fixed reply\n`,
      );
      say(
        table(
          [
            "replicas",
            "c16 rps",
            "×1",
            "c16 non-2xx",
            "c64 rps",
            "×1",
            "c64 non-2xx",
            "stored = 2xx (load)",
            "stored = 2xx (conv.)",
            "sessions vs 1 replica",
          ],
          rows,
        ),
      );
      for (const note of notes) say(note);
      say(
        `(${os.cpus().length} cores shared by the load generator, upstream, balancer, replicas, Postgres and Redis: with fewer cores than replicas + their dependencies, more replicas cannot add throughput.)`,
      );
    }
    say(
      `\nLoad average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} at the end.`,
    );
  } finally {
    await pool.end().catch(() => {});
    for (const p of procs.reverse()) await stop(p);
    await dropDatabase(server.adminUrl, dbName);
    await server.stop?.();
    if (!argv.includes("--keep")) await rm(dataDir, { recursive: true, force: true });
  }
}

/** A run's stored sessions without what differs by run (ids, times, latencies, upstream tool-call ids), sorted. */
async function canonicalSessions(pool: pg.Pool, experimentId: string): Promise<string> {
  const { rows } = await pool.query<Record<string, unknown>>(
    `SELECT s.id AS sid, s."idSource", s."turnCount", s."externalId", t.index, t."turnType", t."typeSource", t.status, t."systemHash", t."toolsHash",
            t."messagesOffset", t."messagesDelta"::text AS delta, t."nextState"::text AS next, t."nextStateRole", t.content, t."toolCalls"::text AS calls
     FROM turns t JOIN agent_sessions s ON s.id = t."sessionId" WHERE t."experimentId" = $1 ORDER BY s.id, t.index`,
    [experimentId],
  );
  const bySession = new Map<string, unknown[]>();
  for (const r of rows) {
    const calls = r.calls
      ? (JSON.parse(String(r.calls)) as Record<string, unknown>[]).map(({ id: _id, ...rest }) => rest)
      : null;
    const list = bySession.get(String(r.sid)) ?? [];
    // Stitched sessions get random external ids; header sessions keep the client's.
    list.push([
      r.idSource === "stitched" ? null : r.externalId,
      r.turnCount,
      r.index,
      r.turnType,
      r.typeSource,
      r.status,
      r.systemHash,
      r.toolsHash,
      r.messagesOffset,
      r.delta,
      r.next,
      r.nextStateRole,
      r.content,
      calls,
    ]);
    bySession.set(String(r.sid), list);
  }
  return JSON.stringify([...bySession.values()].map((s) => JSON.stringify(s)).sort());
}

/** The reply an SSE body carried (content and merged tool calls). */
function readSse(body: string): Reply {
  const reply: Reply = { content: null, toolCalls: [] };
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const d = (JSON.parse(line.slice(6)) as { choices?: { delta?: ReplyDelta }[] }).choices?.[0]?.delta;
    if (d) mergeDelta(reply, d);
  }
  return reply;
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
