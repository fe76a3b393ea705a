// Fixed-window rate limits in Redis, keyed by the caller's credential (never the secret itself).
// Fails open when Redis is unreachable: availability of the API beats precise throttling.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { redis, rkey } from "./redis";

/**
 * A limiter never holds a request up for long: past this, the answer is "allowed" (the shared client queues
 * commands while Redis is down). Generous, so a busy but healthy Redis still gets to decide.
 */
const DECISION_TIMEOUT_MS = 1000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export async function hitRateLimit(bucket: string, identity: string, limit: number, windowSeconds = 60, client: Redis = redis()): Promise<RateDecision> {
  const now = Math.floor(Date.now() / 1000);
  const window = Math.floor(now / windowSeconds);
  const resetSeconds = (window + 1) * windowSeconds - now;
  const id = createHash("sha256").update(identity).digest("hex").slice(0, 24);
  const key = rkey(`rl:${bucket}:${id}:${window}`);
  const open: RateDecision = { allowed: true, limit, remaining: limit, resetSeconds };
  let timer: NodeJS.Timeout | undefined;
  try {
    const counted = client.multi().incr(key).expire(key, windowSeconds + 1).exec() as Promise<[[Error | null, number]]>;
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
  const cookie = req.headers.get("cookie");
  const session = cookie && /ocrl_session=([^;]+)/.exec(cookie)?.[1];
  if (session) return `session:${session}`;
  return `ip:${req.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "local"}`;
}
