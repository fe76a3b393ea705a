// Redis carries work, live metrics and heartbeats only; Postgres stays the source of truth.
// Every key/channel goes through `rkey()` so a test run's REDIS_PREFIX isolates it completely.
import { Redis, type RedisOptions } from "ioredis";
import { env } from "./env";

export function rkey(name: string): string {
  return `${env().REDIS_PREFIX}${name}`;
}

export function createRedis(opts: RedisOptions = {}): Redis {
  return new Redis(env().REDIS_URL, {
    // BullMQ requires this for blocking connections; harmless elsewhere.
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: false,
    ...opts,
  });
}

const globalForRedis = globalThis as unknown as { redis?: Redis };

/** Shared command connection (not for SUBSCRIBE or blocking reads). */
export function redis(): Redis {
  globalForRedis.redis ??= createRedis();
  return globalForRedis.redis;
}
