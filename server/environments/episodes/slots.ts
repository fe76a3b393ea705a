// An environment's episode slots, shared by every episode worker: a counting semaphore in Redis whose holders
// keep leases. A holder is one running episode of one worker; its lease is renewed while the episode runs, so a
// worker that is killed (no release, no renewal) frees its slots when their leases expire instead of holding the
// environment forever. Expiry uses Redis's clock (TIME inside the scripts), so workers on hosts whose clocks
// disagree still agree on which leases are live. The whole set expires with its last lease.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { KEYS } from "../../platform/bus/contracts";
import { redis, rkey } from "../../platform/redis";

// Drops expired holders, then takes a slot when fewer than ARGV[2] remain (a holder already in keeps its slot
// and gets a fresh lease). ARGV: holder, limit, lease ms. Returns 1 when the holder holds a slot.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], lease)
  return 1
end
return 0
`;

// Extends the leases of holders that are still in (ARGV[1] ms, then the holders); returns the ones that were
// not: their lease ran out (this worker stalled for longer than a lease) and the slot may be someone else's.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
local lost = {}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
  else
    table.insert(lost, ARGV[i])
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], lease) end
return lost
`;

export interface EnvironmentSlotsOptions {
  /** Episodes of one environment at once, across every worker. */
  limit: number;
  /** How long a slot outlives its holder's last renewal. Renew well inside it (`renewAll` every lease / 3). */
  leaseMs: number;
  /** How often a waiting episode asks again. */
  pollMs?: number;
  /** Defaults to the shared connection; tests pass their own to act as independent workers. */
  client?: Redis;
}

export interface Slot {
  environmentId: string;
  holder: string;
}

export class EnvironmentSlots {
  /** This instance's holders by environment, renewed together. */
  private readonly held = new Map<string, Set<string>>();
  private readonly worker = randomUUID();

  constructor(private readonly opts: EnvironmentSlotsOptions) {}

  private get client(): Redis {
    return this.opts.client ?? redis();
  }

  /** One attempt: the slot, or null when the environment is at its limit. */
  async tryTake(environmentId: string, episodeId: string): Promise<Slot | null> {
    const holder = `${this.worker}:${episodeId}`;
    const got = await this.client.eval(
      TAKE,
      1,
      rkey(KEYS.environmentSlots.key(environmentId)),
      holder,
      this.opts.limit,
      this.opts.leaseMs,
    );
    if (got !== 1) return null;
    const set = this.held.get(environmentId) ?? new Set<string>();
    set.add(holder);
    this.held.set(environmentId, set);
    return { environmentId, holder };
  }

  /** Waits for a slot; null when `signal` aborts first. */
  async take(environmentId: string, episodeId: string, signal?: AbortSignal): Promise<Slot | null> {
    const pollMs = this.opts.pollMs ?? 250;
    for (;;) {
      if (signal?.aborted) return null;
      const slot = await this.tryTake(environmentId, episodeId);
      if (slot) return slot;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  }

  async give(slot: Slot): Promise<void> {
    this.held.get(slot.environmentId)?.delete(slot.holder);
    await this.client.zrem(rkey(KEYS.environmentSlots.key(slot.environmentId)), slot.holder);
  }

  /** Extends every lease this instance holds; returns the holders whose lease had already run out. */
  async renewAll(): Promise<string[]> {
    const lost: string[] = [];
    for (const [environmentId, holders] of this.held) {
      if (holders.size === 0) {
        this.held.delete(environmentId);
        continue;
      }
      const gone = (await this.client.eval(
        RENEW,
        1,
        rkey(KEYS.environmentSlots.key(environmentId)),
        this.opts.leaseMs,
        ...holders,
      )) as string[];
      for (const h of gone) holders.delete(h);
      lost.push(...gone);
    }
    return lost;
  }

  /** How many slots of an environment are held now (live leases only). */
  async inUse(environmentId: string): Promise<number> {
    const key = rkey(KEYS.environmentSlots.key(environmentId));
    const [seconds, micros] = await this.client.time();
    return this.client.zcount(key, Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) + 1, "+inf");
  }
}
