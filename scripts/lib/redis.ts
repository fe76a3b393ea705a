// Picks Redis: REDIS_URL, else 127.0.0.1:6379, else a redis-server from PATH with data under .data/redis.
// No npm package ships Redis, so when redis-server is missing we install it with the OS package manager
// where that needs no password (NO_AUTO_INSTALL=1 opts out), and otherwise stop with install instructions.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { autoInstallDisabled, onPath, redisInstaller, runInstaller } from "./redis-install";

export interface RedisChoice {
  url: string;
  source: "env" | "local" | "spawned";
  stop?: () => Promise<void>;
}

const SPAWNED_PORT = Number(process.env.SPAWNED_REDIS_PORT ?? 63790);

export async function pingRedis(url: string, timeoutMs = 2000): Promise<boolean> {
  const r = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  r.on("error", () => {});
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export const REDIS_INSTALL_HELP = [
  "Redis is required and none was found:",
  "  - set REDIS_URL=redis://host:port to use an existing server, or",
  "  - install it so `redis-server` is on PATH:",
  "      Debian/Ubuntu: sudo apt-get install -y redis-server",
  "      macOS:         brew install redis",
  "      Other:         https://redis.io/docs/latest/operate/oss_and_stack/install/",
  "then run `npm start` again.",
].join("\n");

const hasRedisServer = () => spawnSync("redis-server", ["--version"]).status === 0;

export async function chooseRedis(dataDir: string, log: (s: string) => void): Promise<RedisChoice> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, source: "env" };
  const local = process.env.PROBE_REDIS_URL ?? "redis://127.0.0.1:6379";
  if (await pingRedis(local)) return { url: local, source: "local" };
  if (!hasRedisServer()) {
    installRedis(log);
    // A package manager may start the service it installed (apt under systemd does).
    if (await pingRedis(local)) return { url: local, source: "local" };
  }
  log(
    `no Redis on 127.0.0.1:6379: starting redis-server on port ${SPAWNED_PORT} with its data in ${path.resolve(dataDir, "redis")}`,
  );
  return spawnRedis(path.resolve(dataDir, "redis"), SPAWNED_PORT);
}

/** Installs redis-server where that needs no password (see redis-install.ts), else throws the instructions. */
function installRedis(log: (s: string) => void): void {
  const installer = redisInstaller(process.getuid?.() === 0, (cmd) => onPath(cmd));
  if (!installer) throw new Error(REDIS_INSTALL_HELP);
  if (autoInstallDisabled())
    throw new Error(
      `${REDIS_INSTALL_HELP}\n(NO_AUTO_INSTALL is set, so \`${installer.summary}\` was not run for you.)`,
    );
  log(
    `Redis is not installed: installing it with \`${installer.summary}\` (set NO_AUTO_INSTALL=1 to skip this and install it yourself)`,
  );
  const failed = runInstaller(installer);
  if (failed) throw new Error(`Installing Redis failed: ${failed} (see its output above).\n${REDIS_INSTALL_HELP}`);
  if (!hasRedisServer())
    throw new Error(
      `\`${installer.summary}\` succeeded but no \`redis-server\` is on PATH (PATH=${process.env.PATH}).\n${REDIS_INSTALL_HELP}`,
    );
  log("Redis installed");
}

export async function spawnRedis(dir: string, port: number): Promise<RedisChoice> {
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--save", ""],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  };
  for (let i = 0; i < 50; i++) {
    if (await pingRedis(url, 500)) return { url, source: "spawned", stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server was started but did not answer on port ${port}`);
}

/** Deletes every key under a throwaway prefix (tests, benches). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}
