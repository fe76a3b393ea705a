// Fixed-window rate limits in Redis, keyed by the caller's credential (never the secret itself).
// Fails open when Redis is unreachable: availability of the API beats precise throttling.
import { readCookie, SESSION_COOKIE } from "./cookies";
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { redis, rkey } from "./redis";
import { KEYS } from "./bus/contracts";

/**
 * A limiter never holds a request up for long: past this, the answer is "allowed" (the shared client queues
 * commands while Redis is down). Generous, so a busy but healthy Redis still gets to decide.
 */
const DECISION_TIMEOUT_MS = 1000;

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
  const open: RateDecision = { allowed: true, limit, remaining: limit, resetSeconds };
  let timer: NodeJS.Timeout | undefined;
  try {
    const counted = client
      .multi()
      .incr(key)
      .expire(key, windowSeconds + 1)
      .exec() as Promise<[[Error | null, number]]>;
    const timedOut = new Promise<null>((r) => (timer = setTimeout(() => r(null), DECISION_TIMEOUT_MS)));
    const result = await Promise.race([counted, timedOut]);
    if (!result) {
      counted.catch(() => {});
      return open;
    }
    const count = result[0][1];
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
  } catch {
    return open;
  } finally {
    clearTimeout(timer);
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
  return `ip:${req.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "local"}`;
}
