// Fixed-window rate limits in Redis, keyed by the caller's credential (never the secret itself), and a
// per-account failure backoff for sign-in. When Redis cannot decide in time, both fall back to a count in this
// process's memory: throttling stays on (per process) instead of failing open.
import { readCookie, SESSION_COOKIE } from "./cookies";
import { clientAddress } from "./clientAddress";
import { env } from "./env";
import { KEYS } from "./bus/contracts";
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { redis, rkey } from "./redis";

/**
 * A limiter never holds a request up for long: past this, the answer is "allowed" (the shared client queues
 * commands while Redis is down). Generous, so a busy but healthy Redis still gets to decide.
 */
const DECISION_TIMEOUT_MS = 1000;

/** Process-local state used while Redis is unreachable; bounded, oldest entries dropped first. */
const LOCAL_MAX = 10_000;
class LocalCounts<V> {
  private readonly map = new Map<string, V>();
  get(k: string): V | undefined {
    return this.map.get(k);
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > LOCAL_MAX) this.map.delete(this.map.keys().next().value!);
  }
  delete(k: string): void {
    this.map.delete(k);
  }
}
const localWindows = new LocalCounts<number>();

/** Races a Redis call against DECISION_TIMEOUT_MS; null when Redis did not answer (or failed). */
async function decide<T>(call: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<null>((r) => (timer = setTimeout(() => r(null), DECISION_TIMEOUT_MS)));
    const result = await Promise.race([call, timedOut]);
    if (result === null) call.catch(() => {});
    return result;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The clock the limiters read (ms since the epoch); tests pin it so a window cannot roll over mid-test. */
let clock: () => number = Date.now;

/** Pins the limiters' clock (null restores the real one). For tests: production never calls it. */
export function setRateLimitClock(now: (() => number) | null): void {
  clock = now ?? Date.now;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export async function hitRateLimit(
  bucket: string,
  identity: string,
  limit: number,
  windowSeconds = 60,
  client: Redis = redis(),
): Promise<RateDecision> {
  const now = Math.floor(clock() / 1000);
  const window = Math.floor(now / windowSeconds);
  const resetSeconds = (window + 1) * windowSeconds - now;
  const id = createHash("sha256").update(identity).digest("hex").slice(0, 24);
  const key = rkey(KEYS.rateLimit.key(bucket, id, window));
  const result = await decide(
    client
      .multi()
      .incr(key)
      .expire(key, windowSeconds + 1)
      .exec() as Promise<[[Error | null, number]] | null>,
  );
  let count: number;
  if (result && !result[0][0]) count = result[0][1];
  else {
    count = (localWindows.get(key) ?? 0) + 1;
    localWindows.set(key, count);
  }
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
}

/**
 * Failure backoff per identity (a sign-in account): the first `free` failures cost nothing, then each further
 * attempt must wait 2^(failures − free) seconds, up to `maxSeconds`, whatever address or header it comes with.
 * A success clears it. Only failures count, so a busy legitimate user is never slowed down.
 */
export class FailureBackoff {
  private readonly local = new LocalCounts<{ failures: number; until: number }>();

  constructor(private readonly opts: { bucket: string; free: number; maxSeconds: number; client?: () => Redis }) {}

  private key(identity: string): string {
    return rkey(
      KEYS.failureBackoff.key(this.opts.bucket, createHash("sha256").update(identity).digest("hex").slice(0, 32)),
    );
  }

  private get client(): Redis {
    return (this.opts.client ?? redis)();
  }

  /** Seconds this identity must still wait before its next attempt (0: go ahead). */
  async waitSeconds(identity: string): Promise<number> {
    const key = this.key(identity);
    const got = await decide(this.client.hget(key, "until"));
    const until = got !== null ? Number(got) || 0 : (this.local.get(key)?.until ?? 0);
    return Math.max(0, Math.ceil((until - clock()) / 1000));
  }

  /** Counts a failure; returns the wait it imposes on the next attempt, in seconds. */
  async failed(identity: string): Promise<number> {
    const key = this.key(identity);
    const ttl = this.opts.maxSeconds * 4;
    const counted = await decide(this.client.multi().hincrby(key, "failures", 1).expire(key, ttl).exec());
    const prior = this.local.get(key);
    const failures = counted && !counted[0]![0] ? (counted[0]![1] as number) : (prior?.failures ?? 0) + 1;
    const wait = failures < this.opts.free ? 0 : Math.min(this.opts.maxSeconds, 2 ** (failures - this.opts.free));
    const until = clock() + wait * 1000;
    this.local.set(key, { failures, until });
    if (counted) await decide(this.client.hset(key, "until", String(until)));
    return wait;
  }

  async succeeded(identity: string): Promise<void> {
    const key = this.key(identity);
    this.local.delete(key);
    await decide(this.client.del(key));
  }
}

/**
 * The same fixed-window limit for a hot path (the proxy), without a Redis round trip per request: each
 * process reserves a chunk of the window's budget at a time (one INCRBY, atomic across replicas) and spends
 * it locally, topping up in the background when half is spent. The shared count never exceeds the limit, so
 * all replicas together admit at most `limit` per window; tokens reserved but unspent by one replica when
 * another runs out are lost to that window, so at least `limit - replicas × 2 × chunk` are admitted
 * (chunk = limit / 200, at most 1000: 0.5 % of the limit per replica, doubled by the top-up).
 * Below 400 per window the chunk is 1: a round trip per request, exact.
 */
export class ReservingRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  readonly chunk: number;

  constructor(
    private readonly opts: {
      bucket: string;
      limit: number;
      windowSeconds?: number;
      client: Redis;
      chunk?: number;
      now?: () => number;
    },
  ) {
    this.chunk = opts.chunk ?? Math.max(1, Math.min(1000, Math.floor(opts.limit / 200)));
  }

  private get windowSeconds() {
    return this.opts.windowSeconds ?? 60;
  }

  async hit(identity: string): Promise<RateDecision> {
    const now = Math.floor((this.opts.now ?? clock)() / 1000);
    const window = Math.floor(now / this.windowSeconds);
    const resetSeconds = (window + 1) * this.windowSeconds - now;
    let b = this.buckets.get(identity);
    if (!b || b.window !== window) {
      if (this.buckets.size > 10_000)
        for (const [k, v] of this.buckets) if (v.window !== window) this.buckets.delete(k);
      const id = createHash("sha256").update(identity).digest("hex").slice(0, 24);
      b = {
        window,
        key: rkey(KEYS.rateLimit.key(this.opts.bucket, id, window)),
        tokens: 0,
        counted: 0,
        exhausted: false,
        refill: null,
      };
      this.buckets.set(identity, b);
    }
    while (b.tokens <= 0 && !b.exhausted) await this.refill(b);
    const limit = this.opts.limit;
    if (b.tokens <= 0) return { allowed: false, limit, remaining: 0, resetSeconds };
    b.tokens--;
    // Top up ahead of need (chunked limits only: a chunk of 1 stays exact).
    if (this.chunk > 1 && b.tokens < this.chunk / 2 && !b.exhausted && !b.refill) void this.refill(b);
    return { allowed: true, limit, remaining: Math.max(0, limit - b.counted) + b.tokens, resetSeconds };
  }

  private refill(b: Bucket): Promise<void> {
    b.refill ??= (async () => {
      const chunk = this.chunk;
      let timer: NodeJS.Timeout | undefined;
      try {
        const call = this.opts.client
          .multi()
          .incrby(b.key, chunk)
          .expire(b.key, this.windowSeconds + 1)
          .exec() as Promise<[[Error | null, number]]>;
        const result = await Promise.race([
          call,
          new Promise<null>((r) => (timer = setTimeout(() => r(null), DECISION_TIMEOUT_MS))),
        ]);
        if (!result || result[0][0]) throw new Error("no decision");
        const after = result[0][1];
        b.counted = after;
        b.tokens += Math.max(0, Math.min(chunk, this.opts.limit - (after - chunk)));
        if (after >= this.opts.limit) b.exhausted = true;
      } catch {
        b.tokens += chunk; // fails open, like hitRateLimit
      } finally {
        clearTimeout(timer);
        b.refill = null;
      }
    })();
    return b.refill;
  }
}

interface Bucket {
  window: number;
  key: string;
  /** Reserved in Redis, not spent yet. */
  tokens: number;
  /** The shared count after this process's last reservation. */
  counted: number;
  exhausted: boolean;
  refill: Promise<void> | null;
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.resetSeconds),
    ...(d.allowed ? {} : { "Retry-After": String(d.resetSeconds) }),
  };
}

/** Who is calling, for throttling: the API key's public prefix, the session cookie, or the client address. */
export function callerIdentity(req: Request): string {
  const auth = req.headers.get("authorization");
  if (auth) return `auth:${auth.split("_").slice(0, 2).join("_")}`;
  const session = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
  if (session) return `session:${session}`;
  return `ip:${clientAddress(req.headers.get("x-forwarded-for"), null, env().TRUSTED_PROXY_HOPS)}`;
}
