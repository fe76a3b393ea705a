// `npm start` on a machine with no Postgres and no Redis answering: the launcher must start an embedded
// Postgres and a redis-server of its own, migrate, seed, serve the dashboard, let the printed admin log in
// and create an experiment — and Ctrl-C must leave no process behind.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { api } from "../helpers/fixtures";
import { freePorts } from "../helpers/freePorts";
import { processesWithDataDir } from "../helpers/processes";

const dataDir = mkdtempSync(path.join(tmpdir(), "ocrl-start-"));
// World-traversable, so as root the cluster stays in DATA_DIR/pg (startupAsRoot.test.ts covers a mode-700 folder).
chmodSync(dataDir, 0o755);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("npm start on a fresh machine", () => {
  it("brings everything up on embedded Postgres + spawned Redis, admin logs in and creates an experiment, Ctrl-C stops all", async () => {
    const [webPort, pgPort, redisPort, proxyPort] = await freePorts(4);
    // A clean environment: nothing of the test runner's database, Redis or secret leaks in.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PROBE_POSTGRES_URL: "postgresql://postgres@127.0.0.1:1/postgres",
      PROBE_REDIS_URL: "redis://127.0.0.1:1",
      EMBEDDED_PG_PORT: String(pgPort),
      SPAWNED_REDIS_PORT: String(redisPort),
      WEB_PORT: String(webPort),
      PROXY_PORT: String(proxyPort),
    };
    for (const k of ["DATABASE_URL", "REDIS_URL", "SECRET_KEY", "NODE_ENV", "REDIS_PREFIX"]) delete env[k];
    const child = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    try {
      const deadline = Date.now() + 240_000;
      while (!/Admin:\s+\S+ \/ \S+/.test(output) && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 250));
      expect(output, output).toMatch(/database: embedded/);
      expect(output).toMatch(/redis: spawned/);
      const [, email, password] = /Admin:\s+(\S+) \/ (\S+)/.exec(output)!;
      expect(output).toMatch(/Proxy key:\s+ocrl_[0-9a-f]{8}_/);

      const base = `http://127.0.0.1:${webPort}`;
      let health: Response | null = null;
      while (Date.now() < deadline) {
        health = await fetch(`${base}/api/health`).catch(() => null);
        if (health?.ok) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(await health!.json()).toMatchObject({ ok: true, database: "ok", redis: "ok" });
      const login = await fetch(`${base}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const asAdmin = api(base, { cookie });
      const demo = await asAdmin("GET", "/api/v1/experiments/demo");
      expect(demo.status).toBe(200);
      const created = await asAdmin("POST", "/api/v1/experiments", { name: "Created after first start" });
      expect(created.status).toBe(201);
      expect(processesWithDataDir(dataDir).length).toBeGreaterThan(3);
    } finally {
      if (child.exitCode === null) {
        child.kill("SIGINT");
        await new Promise((r) => child.once("exit", r));
      }
    }
    expect(output).toMatch(/\[start\] SIGINT: stopping all processes…/);
    expect(output).toMatch(/\[start\] stopped/);
    expect(child.exitCode, output.slice(-4000)).toBe(0);
    // Give the kernel a moment to reap, then nothing of ours may remain.
    const until = Date.now() + 15_000;
    while (processesWithDataDir(dataDir).length && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    expect(processesWithDataDir(dataDir)).toEqual([]);
  }, 300_000);
});
