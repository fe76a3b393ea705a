// Picks Redis: REDIS_URL, else 127.0.0.1:6379, else a redis-server from PATH with data under .data/redis.
// No npm package ships Redis, so when none of these works we stop with install instructions.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";

export interface RedisChoice {
  url: string;
  source: "env" | "local" | "spawned";
  stop?: () => Promise<void>;
}

const SPAWNED_PORT = Number(process.env.SPAWNED_REDIS_PORT ?? 63790);

export async function pingRedis(url: string, timeoutMs = 2000): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: timeoutMs, retryStrategy: () => null });
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

export async function chooseRedis(dataDir: string, log: (s: string) => void): Promise<RedisChoice> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, source: "env" };
  const local = process.env.PROBE_REDIS_URL ?? "redis://127.0.0.1:6379";
  if (await pingRedis(local)) return { url: local, source: "local" };
  if (spawnSync("redis-server", ["--version"]).status !== 0) throw new Error(REDIS_INSTALL_HELP);
  log(`no Redis on 127.0.0.1:6379: starting redis-server on port ${SPAWNED_PORT} with its data in ${path.resolve(dataDir, "redis")}`);
  return spawnRedis(path.resolve(dataDir, "redis"), SPAWNED_PORT);
}

export async function spawnRedis(dir: string, port: number): Promise<RedisChoice> {
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--save", ""], { stdio: "ignore" });
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
