// Stitch hashes in Redis (TTL'd), so a header-less conversation continues across proxy restarts and
// replicas. Reads are bounded by a short timeout and the connection fails fast while Redis is down:
// stitching then falls back to this process's memory. Live registrations are moved by the session order
// script (sessionOrder.ts); set/delete serve the fallback path.
import type { Redis } from "ioredis";
import { KEYS } from "../platform/bus/contracts";
import { rkey } from "../platform/redis";
import type { StitchStore, StitchTarget } from "./stitch";

export function redisStitchStore(redis: Redis, opts: { ttlS?: number; timeoutMs?: number } = {}): StitchStore {
  const ttl = opts.ttlS ?? 24 * 3600;
  const timeoutMs = opts.timeoutMs ?? 50;
  const key = (h: string) => rkey(KEYS.stitch.key(h));
  return {
    async getMany(hashes) {
      let timer: NodeJS.Timeout | undefined;
      const values = await Promise.race([
        redis.mget(hashes.map(key)),
        new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs))),
      ]).finally(() => clearTimeout(timer));
      if (!values) return null;
      return values.map((v): StitchTarget | null => {
        if (!v) return null;
        const parsed = KEYS.stitch.payload.safeParse(JSON.parse(v));
        return parsed.success ? parsed.data : null;
      });
    },
    keyOf: key,
    set(hash, target) {
      redis.set(key(hash), JSON.stringify(target), "EX", ttl).catch(() => {});
    },
    delete(hash) {
      redis.del(key(hash)).catch(() => {});
    },
  };
}
