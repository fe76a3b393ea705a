// One caller, one long operation at a time, across every web process: a lease in Redis (SET NX PX with a
// random token) taken before the operation, renewed while it runs, and released only by its holder
// (compare-and-delete). The expiry frees the slot of a process that died mid-operation. While Redis does not
// answer within DECISION_TIMEOUT_MS, this process's memory decides (the limit then holds per process only).
import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { KEYS } from "./bus/contracts";
import { redis, rkey } from "./redis";
import { logger } from "./log";

const DECISION_TIMEOUT_MS = 1000;
/** The lease outlives a dead holder by at most this long; a live one renews it every third of it. */
export const CALLER_LOCK_TTL_MS = 60_000;

const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

const log = logger("callerLock");
/** Locks held in this process while Redis could not decide (name + identity hash). */
const local = new Set<string>();

/** The Redis call's answer, or undefined when Redis failed or did not answer in time. */
async function decide<T>(call: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), DECISION_TIMEOUT_MS)));
    const result = await Promise.race([call, timedOut]);
    if (result === undefined) call.catch(() => {});
    return result;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

export interface CallerLock {
  release(): Promise<void>;
}

/** The Redis key of a caller's lock (the identity is hashed: it never appears in Redis). */
export function callerLockKey(name: string, identity: string): string {
  return rkey(KEYS.callerLock.key(name, createHash("sha256").update(identity).digest("hex").slice(0, 32)));
}

/** Takes `identity`'s lock on `name`, or answers null when another holder (in any process) has it. */
export async function acquireCallerLock(
  name: string,
  identity: string,
  opts: { ttlMs?: number; client?: Redis } = {},
): Promise<CallerLock | null> {
  const client = opts.client ?? redis();
  const ttlMs = opts.ttlMs ?? CALLER_LOCK_TTL_MS;
  const key = callerLockKey(name, identity);
  const token = randomBytes(16).toString("hex");
  const answer = await decide(client.set(key, token, "PX", ttlMs, "NX"));
  if (answer === undefined) {
    if (local.has(key)) return null;
    log.warn(`Redis did not answer: the ${name} lock holds in this process only`);
    local.add(key);
    return { release: async () => void local.delete(key) };
  }
  if (answer !== "OK") return null;
  const renew = setInterval(
    () => void decide(client.eval(RENEW, 1, key, token, String(ttlMs))),
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  return {
    release: async () => {
      clearInterval(renew);
      // If Redis is away now, the lease expires on its own within ttlMs.
      await decide(client.eval(RELEASE, 1, key, token));
    },
  };
}
