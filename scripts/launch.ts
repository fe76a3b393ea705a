// The product in one command: database, Redis, migrations, first-start seed, web build, then the web
// app and every worker as supervised processes. Ctrl-C stops them all.
import path from "node:path";
import { chooseDatabase } from "./lib/database";
import { chooseRedis } from "./lib/redis";
import { ensureBubblewrap } from "./lib/bubblewrap";
import { ensureSecretKey } from "./lib/secret";
import { ensureWebBuild } from "./lib/build";
import { Supervisor, type ProcessSpec } from "./lib/supervisor";
import { migrate } from "../server/platform/db/migrator";
import { WORKERS, workerCommand } from "../workers/registry";

const root = path.resolve(import.meta.dirname, "..");
const log = (s: string) => console.log(`[start] ${s}`);

// What to stop on Ctrl-C or a startup error, in reverse order of starting: the supervised processes
// first, then Redis and the embedded Postgres they were using.
const stops: (() => Promise<void>)[] = [];
let shuttingDown = false;
let started: Promise<void> = Promise.resolve();
async function stopAll(): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => {});
}
// Installed before anything starts, so a Ctrl-C during startup also stops what already runs. The startup
// step under way finishes first (main checks `shuttingDown` between steps): stopping Postgres under a
// migration in flight would crash the launcher on its broken connection instead of stopping cleanly.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`${sig}: stopping all processes…`);
    void started.then(stopAll).then(() => {
      log("stopped");
      process.exit(0);
    });
  });
}

async function main() {
  const dataDir = path.resolve(root, process.env.DATA_DIR ?? ".data");

  const database = await chooseDatabase(dataDir, log);
  if (database.stop) stops.push(database.stop);
  log(`database: ${database.source} (${redactUrl(database.url)})`);
  if (shuttingDown) return;
  const redisChoice = await chooseRedis(dataDir, log);
  if (redisChoice.stop) stops.push(redisChoice.stop);
  log(`redis: ${redisChoice.source} (${redisChoice.url})`);
  if (shuttingDown) return;
  ensureBubblewrap(log);

  Object.assign(process.env, {
    DATABASE_URL: database.url,
    REDIS_URL: redisChoice.url,
    SECRET_KEY: ensureSecretKey(dataDir),
    DATA_DIR: dataDir,
    NODE_ENV: process.env.NODE_ENV ?? "production",
    NEXT_TELEMETRY_DISABLED: "1",
  });

  const migrated = await migrate(database.url, path.join(root, "prisma/migrations"), log);
  log(`migrations: ${migrated.applied.length} applied, ${migrated.skipped.length} already up to date`);
  if (shuttingDown) return;

  const { seedFirstStart } = await import("../server/bootstrap/seed");
  const seeded = await seedFirstStart();
  if (shuttingDown) return; // and no build either: it blocks, so it would delay the shutdown by minutes
  ensureWebBuild(root, log);

  const webPort = process.env.WEB_PORT ?? "3000";
  const specs: ProcessSpec[] = [
    {
      name: "web",
      command: path.join(root, "node_modules/.bin/next"),
      args: ["start", "-p", webPort],
      env: process.env,
      cwd: root,
    },
    ...WORKERS.filter((w) => w.enabled(process.env)).map((w) => ({
      name: w.name,
      ...workerCommand(root, w),
      env: process.env,
      cwd: root,
    })),
  ];
  const supervisor = new Supervisor(specs);
  stops.push(() => supervisor.stop());
  supervisor.start();

  const proxyPort = process.env.PROXY_PORT ?? "30000";
  const banner = [
    "",
    "  OpenClaw-RL Console is up",
    `  Dashboard:  http://localhost:${webPort}`,
    `  Proxy:      http://localhost:${proxyPort}/v1   (OpenAI-compatible; model = experiment slug, e.g. "demo")`,
    `  API docs:   http://localhost:${webPort}/api/openapi.json`,
  ];
  if (seeded.admin)
    banner.push(
      `  Admin:      ${seeded.admin.email} / ${seeded.admin.password ?? "(INIT_ADMIN_PASSWORD)"}   ← shown once, save it`,
    );
  if (seeded.proxyKey) banner.push(`  Proxy key:  ${seeded.proxyKey}   ← shown once, save it`);
  if (seeded.demoExperiments?.length) {
    banner.push(
      `  Demo:       ${seeded.demoExperiments.join(", ")} (GRPO, OPD, Combine) with simulated users; watch it learn at http://localhost:${webPort}/simulation`,
    );
    banner.push("              (SIMULATE=0, or the switch on that page, turns the simulated traffic off)");
  }
  banner.push("  Press Ctrl-C to stop everything.", "");
  console.log(banner.join("\n"));
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:****@");
}

started = main().catch(async (err) => {
  if (shuttingDown) return; // the signal's shutdown stops what was started, once this settles
  console.error(`[start] ${err instanceof Error ? err.message : String(err)}`);
  shuttingDown = true;
  await stopAll();
  process.exit(1);
});
