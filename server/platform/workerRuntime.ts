// Shared life cycle of a worker process: heartbeats in Redis (alive/stale on the Workers page),
// a current-activity string, and graceful shutdown on SIGTERM/SIGINT through an AbortSignal.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { KEYS, type Heartbeat } from "./bus/contracts";
import { redis, rkey } from "./redis";
import { logger } from "./log";

export const HEARTBEAT_INTERVAL_MS = 2000;
export const HEARTBEAT_TTL_S = 10;
/** How long an orphaned worker may take to finish its in-flight work before it exits anyway. */
const ORPHAN_GRACE_MS = 10_000;

export interface WorkerContext {
  kind: string;
  id: string;
  signal: AbortSignal;
  setActivity(activity: string): void;
  setStat(name: string, value: number): void;
  log(...args: unknown[]): void;
}

export async function runWorker(kind: string, body: (ctx: WorkerContext) => Promise<void>): Promise<void> {
  const id = `${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`;
  const log = logger(kind);
  const controller = new AbortController();
  const state: Heartbeat = {
    kind,
    id,
    pid: process.pid,
    host: hostname(),
    startedAt: Date.now(),
    at: Date.now(),
    activity: "starting",
    stats: {},
  };
  const ctx: WorkerContext = {
    kind,
    id,
    signal: controller.signal,
    setActivity: (a) => void (state.activity = a),
    setStat: (k, v) => void (state.stats[k] = v),
    log: (...args) => log.info(...args),
  };
  const beat = async () => {
    state.at = Date.now();
    await redis()
      .set(rkey(KEYS.heartbeat.key(kind, id)), JSON.stringify(state), "EX", HEARTBEAT_TTL_S)
      .catch(() => {}); // Redis down: the worker keeps working; the page shows it stale meanwhile
  };
  await beat();
  const stop = (sig: string) => {
    if (controller.signal.aborted) return;
    ctx.log(`${sig} received: finishing in-flight work`);
    controller.abort();
  };
  // A worker dies with its launcher: when `npm start` itself is killed (SIGKILL, OOM) this process is
  // re-parented, and it stops as on SIGTERM, then exits outright after a grace period if it has not finished,
  // so it never keeps the port (or the queue) from the next start.
  const launcher = process.ppid;
  const timer = setInterval(() => {
    void beat();
    if (process.ppid === launcher) return;
    stop("launcher exited");
    setTimeout(() => process.exit(1), ORPHAN_GRACE_MS).unref();
  }, HEARTBEAT_INTERVAL_MS);
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  try {
    await body(ctx);
  } finally {
    clearInterval(timer);
    await redis()
      .del(rkey(KEYS.heartbeat.key(kind, id)))
      .catch(() => {});
    redis().disconnect();
    // A worker process ends when its body has finished: pooled connections (Prisma, BullMQ, keep-alive
    // sockets) must not keep it alive past a graceful stop and force the supervisor's SIGKILL.
    setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  }
}

/** Resolves after `ms`, or early when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export async function listHeartbeats(): Promise<(Heartbeat & { stale: boolean })[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis().scan(cursor, "MATCH", rkey(KEYS.heartbeat.pattern), "COUNT", 200);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  if (!keys.length) return [];
  const values = await redis().mget(keys);
  const now = Date.now();
  return values
    .flatMap((v) => {
      const parsed = v ? KEYS.heartbeat.payload.safeParse(JSON.parse(v)) : null;
      return parsed?.success ? [{ ...parsed.data, stale: now - parsed.data.at > HEARTBEAT_INTERVAL_MS * 3 }] : [];
    })
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
}
