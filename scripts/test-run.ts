// Test orchestration: a throwaway database (migrated with our migrator) and a unique Redis prefix per run,
// so tests never touch a running instance's data. Then Vitest; then browser tests on the system Chromium.
// A run of the `unit` project alone (`--project unit`, or only tests/unit/ paths) starts and needs neither
// Postgres nor Redis: unit tests must not touch them (vitest.config.ts).
import { existsSync, readFileSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { spawn } from "node:child_process";
import { chooseServer, dropDatabase, ensureDatabase, withDatabase } from "./lib/database";
import { chooseRedis, deleteRedisPrefix } from "./lib/redis";
import { ensureWebBuild } from "./lib/build";
import { z } from "zod";
import { Supervisor } from "./lib/supervisor";
import { migrate } from "../server/platform/db/migrator";
import { WORKERS, workerCommand } from "../workers/registry";

const root = path.resolve(import.meta.dirname, "..");
const log = (s: string) => console.log(`[test] ${s}`);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: "inherit" });
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** The projects named with `--project x` / `--project=x`, and the other arguments. */
function splitProjects(args: string[]): { projects: string[]; rest: string[] } {
  const projects: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--project" && i + 1 < args.length) projects.push(args[++i]!);
    else if (a.startsWith("--project=")) projects.push(a.slice("--project=".length));
    else rest.push(a);
  }
  return { projects, rest };
}

/** Only unit tests will run: the `unit` project alone, or only paths under tests/unit/. */
function unitOnly(args: string[]): boolean {
  const { projects, rest } = splitProjects(args);
  if (projects.length) return projects.every((p) => p === "unit");
  const paths = rest.filter((a) => !a.startsWith("-"));
  return paths.length > 0 && paths.every((a) => /^(\.\/)?tests\/unit(\/|$)/.test(a));
}

/** Unit tests without services: process settings they may parse, and addresses nothing answers. */
async function runUnitOnly(args: string[]): Promise<number> {
  log("unit tests only: no Postgres, no Redis");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "test",
    // env() requires a database URL; nothing listens on port 1, so a unit test that connects fails loudly.
    DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://127.0.0.1:1/unit_tests_have_no_database",
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:1",
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATA_DIR: path.join(root, ".data", "test", `unit_${Date.now().toString(36)}`),
    // Fake upstreams in tests listen on loopback, as in the integration run below.
    UPSTREAM_ALLOWLIST: process.env.UPSTREAM_ALLOWLIST ?? "127.0.0.1,localhost",
    // Custom modules load only from the operator's directory: the tests' is the shipped examples.
    EXTENSIONS_DIR: process.env.EXTENSIONS_DIR ?? path.join(root, "examples"),
  };
  return run(path.join(root, "node_modules/.bin/vitest"), ["run", ...args], env);
}

async function main(): Promise<number> {
  const wantBrowser = process.argv.includes("--browser");
  const args = process.argv.slice(2).filter((a) => a !== "--browser");
  if (!wantBrowser && unitOnly(args)) return runUnitOnly(args);
  const filtered = args.some((a) => !a.startsWith("-"));
  const id = `${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const dataDir = path.join(root, ".data", "test");
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const server = await chooseServer(dataDir, log);
    if (server.stop) cleanups.push(server.stop);
    const redisChoice = await chooseRedis(dataDir, log);
    if (redisChoice.stop) cleanups.push(redisChoice.stop);
    /** A migrated throwaway database and a Redis prefix of their own, dropped at the end. */
    const scratch = async (name: string) => {
      const dbName = `ocrl_test_${name}`;
      await ensureDatabase(server.adminUrl, dbName);
      cleanups.unshift(() => dropDatabase(server.adminUrl, dbName));
      const databaseUrl = withDatabase(server.adminUrl, dbName);
      await migrate(databaseUrl, path.join(root, "prisma/migrations"));
      const prefix = `test:${name}:`;
      cleanups.unshift(() => deleteRedisPrefix(redisChoice.url, prefix));
      log(`database ${dbName} on ${server.source} Postgres; Redis ${redisChoice.url} with prefix ${prefix}`);
      return { DATABASE_URL: databaseUrl, REDIS_PREFIX: prefix };
    };

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "test",
      ...(await scratch(id)),
      TEST_ADMIN_DATABASE_URL: server.adminUrl,
      REDIS_URL: redisChoice.url,
      SECRET_KEY: randomBytes(32).toString("base64url"),
      DATA_DIR: path.join(dataDir, id),
      // Fake upstreams in tests listen on loopback; every other private range stays refused.
      UPSTREAM_ALLOWLIST: process.env.UPSTREAM_ALLOWLIST ?? "127.0.0.1,localhost",
      EXTENSIONS_DIR: process.env.EXTENSIONS_DIR ?? path.join(root, "examples"),
    };
    if (!filtered) {
      log("type-checking and linting the whole repository");
      if ((await run(path.join(root, "node_modules/.bin/tsc"), ["--noEmit", "-p", "."], env)) !== 0) return 1;
      if ((await run(path.join(root, "node_modules/.bin/eslint"), ["."], env)) !== 0) return 1;
      if (
        (await run(path.join(root, "node_modules/.bin/prettier"), ["--check", "--log-level", "warn", "."], env)) !== 0
      ) {
        log("formatting differs from Prettier's: run `npm run format`");
        return 1;
      }
    }
    // Browser test files named on the command line run in the browser pass only (the unit config excludes them).
    const browserFiles = args.filter((a) => a.startsWith("tests/browser/"));
    const unitArgs = args.filter((a) => !a.startsWith("tests/browser/"));
    const onlyBrowser = wantBrowser && browserFiles.length > 0 && !unitArgs.some((a) => !a.startsWith("-"));
    // The pass's results also go to a JSON report, so a failure is named again after the browser pass's logs
    // (CI keeps only the end of the output: a failed unit test was otherwise out of sight).
    const report = path.join(dataDir, `${id}_unit.json`);
    const unit = onlyBrowser
      ? 0
      : await run(
          path.join(root, "node_modules/.bin/vitest"),
          ["run", ...unitArgs, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`],
          env,
        );
    cleanups.push(async () => {
      if (unit !== 0) failureSummary(report);
      rmSync(report, { force: true });
    });
    if (filtered && !wantBrowser) return unit;

    if (!existsSync(CHROMIUM)) {
      log(`SKIPPED browser tests: ${CHROMIUM} not found (install it with: apt-get install -y chromium)`);
      return unit;
    }
    ensureWebBuild(root, log);
    const webPort = String(41000 + Math.floor(Math.random() * 2000));
    const proxyPort = String(43000 + Math.floor(Math.random() * 2000));
    // A store of its own: runs the unit pass left live would otherwise train beside the browser tests on 2 cores.
    const appEnv: NodeJS.ProcessEnv = {
      ...env,
      ...(await scratch(`${id}_web`)),
      DATA_DIR: path.join(dataDir, `${id}_web`),
      NODE_ENV: "production",
      WEB_PORT: webPort,
      PROXY_PORT: proxyPort,
    };
    const supervisor = new Supervisor([
      {
        name: "web",
        command: path.join(root, "node_modules/.bin/next"),
        args: ["start", "-p", webPort],
        env: appEnv,
        cwd: root,
      },
      ...WORKERS.map((w) => ({ name: w.name, ...workerCommand(root, w), env: appEnv, cwd: root })),
    ]);
    supervisor.start();
    cleanups.unshift(() => supervisor.stop());
    await waitForHttp(`http://127.0.0.1:${webPort}/api/health`, 120_000);
    const browser = await run(
      path.join(root, "node_modules/.bin/vitest"),
      ["run", "--config", "vitest.browser.config.ts", ...browserFiles],
      {
        ...appEnv,
        APP_URL: `http://127.0.0.1:${webPort}`,
        PROXY_URL: `http://127.0.0.1:${proxyPort}`,
        CHROMIUM_PATH: CHROMIUM,
      },
    );
    return unit || browser;
  } finally {
    for (const c of cleanups) await c().catch((e: Error) => log(`cleanup: ${e.message}`));
  }
}

/** What failed in the unit/integration pass, from its JSON report: each failed test and its error's first line. */
function failureSummary(report: string): void {
  const lines = ["the unit/integration pass FAILED:"];
  try {
    const results = VitestReport.parse(JSON.parse(readFileSync(report, "utf8")));
    for (const file of results.testResults) {
      const name = path.relative(root, file.name);
      const failed = file.assertionResults.filter((t) => t.status === "failed");
      for (const t of failed) lines.push(`  ${name} › ${t.fullName}: ${firstLine(t.failureMessages[0])}`);
      // A file that failed outside its tests (an import, a hook, an unhandled error).
      if (file.status === "failed" && !failed.length) lines.push(`  ${name}: ${firstLine(file.message)}`);
    }
    if (lines.length === 1) lines.push(`  no failed test in ${report}: an error outside the tests (see above)`);
  } catch (e) {
    lines.push(`  no readable report at ${report} (${(e as Error).message}): see above`);
  }
  for (const l of lines) log(l);
}

const firstLine = (s: string | undefined) => (s ?? "").trim().split("\n")[0]!.slice(0, 300);

/** The fields of Vitest's JSON reporter read here (Jest's format). */
const VitestReport = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      message: z.string().optional(),
      assertionResults: z.array(
        z.object({ fullName: z.string(), status: z.string(), failureMessages: z.array(z.string()).default([]) }),
      ),
    }),
  ),
});

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`[test] ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
