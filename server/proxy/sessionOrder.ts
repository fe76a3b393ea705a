// A session's order, shared by every proxy replica: with several replicas behind a round-robin balancer,
// consecutive requests of one conversation land on different processes, so nothing that orders a session
// can live in one process's memory. One Lua script per recorded turn (atomic in Redis, one round trip)
// hands out the turn's index, tells the caller what its lane's previous turn was (and that turn's message
// digests when another replica recorded it, so the delta is always against the true predecessor and the
// stored rows are the same as with one replica), takes the main turn waiting for a next state, and moves the
// session's live stitch registration; it also notes the session's latest answered main turn and the turn's
// experiment, for feedback that reaches another replica. The script runs when the turn is recorded, before its response
// completes, so the client's next request — wherever it lands — sees this turn.
// Without Redis (down, or too slow) the caller falls back to its own memory: exact for one replica.
import type { Redis } from "ioredis";
import { KEYS } from "../platform/bus/contracts";
import { rkey } from "../platform/redis";
import type { Lane } from "./sessions";

const CLAIM = `
local k = KEYS[1]
if redis.call('EXISTS', k) == 0 then
  if ARGV[8] == '' then return {'cold'} end
  redis.call('HSET', k, 'seq', ARGV[8])
end
local idx = redis.call('HINCRBY', k, 'seq', 1)
local lane = ARGV[1]
local laneTurn = redis.call('HGET', k, 'lt:' .. lane)
local state, base = 'none', ''
if laneTurn then
  if laneTurn == ARGV[3] then state = 'same' else state = 'other'; base = redis.call('HGET', k, 'ld:' .. lane) or '' end
end
local pm = redis.call('HGET', k, 'pm') or ''
local target, final = '', ''
if ARGV[5] == '1' and ARGV[7] == '1' and pm ~= '' then target = pm; pm = '' end
if ARGV[5] == '1' and ARGV[6] == '1' then pm = ARGV[2]; redis.call('HSET', k, 'lm', ARGV[2]) end
redis.call('SET', KEYS[3], ARGV[12], 'EX', 3600)
redis.call('HSET', k, 'lt:' .. lane, ARGV[2], 'ld:' .. lane, ARGV[4])
if ARGV[10] ~= '' or ARGV[9] == '1' then
  local old = redis.call('HGET', k, 'sh')
  if old then redis.call('DEL', old); redis.call('HDEL', k, 'sh') end
end
if ARGV[9] == '1' then
  final = pm
  redis.call('HDEL', k, 'pm', 'lt:MAIN', 'lt:SIDE', 'ld:MAIN', 'ld:SIDE')
else
  if pm == '' then redis.call('HDEL', k, 'pm') else redis.call('HSET', k, 'pm', pm) end
  if ARGV[10] ~= '' then
    redis.call('SET', KEYS[2], ARGV[10], 'EX', ARGV[11])
    redis.call('HSET', k, 'sh', KEYS[2])
  end
end
redis.call('EXPIRE', k, ARGV[11])
if KEYS[4] ~= k then
  redis.call('ZADD', KEYS[4], ARGV[16], ARGV[13])
  if ARGV[14] ~= '' then redis.call('HSET', KEYS[5], 'u:' .. ARGV[13], ARGV[14]) end
  if ARGV[15] ~= '' then redis.call('HSET', KEYS[5], 's:' .. ARGV[13], ARGV[15]) end
  local old = redis.call('ZRANGE', KEYS[4], 0, -9)
  for _, m in ipairs(old) do redis.call('HDEL', KEYS[5], 'u:' .. m, 's:' .. m) end
  if #old > 0 then redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -9) end
  redis.call('PEXPIRE', KEYS[4], ARGV[17]); redis.call('PEXPIRE', KEYS[5], ARGV[17])
end
return {'ok', idx, state, base, target, final}
`;

/** An API key's sessions active since ARGV[1] (ms), newest first: externalId, last user text, summaries JSON. */
const RECENT = `
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[1], 'LIMIT', 0, 8)
local out = {}
for _, m in ipairs(ids) do
  table.insert(out, m)
  table.insert(out, redis.call('HGET', KEYS[2], 'u:' .. m) or '')
  table.insert(out, redis.call('HGET', KEYS[2], 's:' .. m) or '')
end
return out
`;

export interface ClaimInput {
  experimentId: string;
  externalId: string;
  lane: Lane;
  turnId: string;
  /** The lane's last turn as this process knows it ("" if none): when it is still the latest, no digests travel back. */
  localLaneTurn: string | null;
  digests: readonly string[];
  main: boolean;
  ok: boolean;
  /** The request carries a next state for the session's pending main turn. */
  wantsLink: boolean;
  done: boolean;
  /** The stitch registration to make live (the hash of this request + its reply) and its payload. */
  stitch: { key: string; payload: string } | null;
  /** Highest stored index when the session is not in Redis yet (-1: brand new); null: unknown. */
  initIndex: number | null;
  /** The API key's recent-sessions entry to refresh (header-less attribution); null without a key. */
  recent: { keyId: string; lastUserText: string | null; summaries: string[] | null; windowMs: number } | null;
}

export interface RecentSession {
  externalId: string;
  lastUserText: string | null;
  summaries: string[];
}

export type Claim =
  | { kind: "cold" }
  | {
      kind: "ok";
      index: number;
      /** The lane's previous turn: none, the one this process knows, or another replica's (with its digests). */
      lane: "none" | "same" | "other";
      baseDigests: string[];
      /** The main turn this request's next state belongs to. */
      target: string | null;
      /** done: the main turn to judge without a next state. */
      final: string | null;
    };

export interface SessionOrder {
  claim(input: ClaimInput): Promise<Claim>;
  /** The writer refused this turn: the lane's next turn must store its whole body. */
  forgetLane(experimentId: string, externalId: string, lane: Lane): void;
  /** The session's latest answered main turn, whichever replica recorded it (null: unknown here). */
  latestMain(experimentId: string, externalId: string): Promise<string | null>;
  /** A turn's experiment, for an hour after any replica recorded it (null: unknown here). */
  experimentOfTurn(turnId: string): Promise<string | null>;
  /** The key's sessions active within `withinMs`, newest first, whichever replica served them; null: Redis did not answer. */
  recentForKey(keyId: string, experimentId: string, withinMs: number): Promise<RecentSession[] | null>;
}

export function redisSessionOrder(redis: Redis, opts: { ttlS?: number; timeoutMs?: number } = {}): SessionOrder {
  const ttl = String(opts.ttlS ?? 24 * 3600);
  const timeoutMs = opts.timeoutMs ?? 250;
  const key = (e: string, x: string) => rkey(KEYS.proxySession.key(e, x));
  // EVALSHA: the script's text crosses the wire once, not with every turn (it was 9 % of the proxy's CPU).
  if (!("proxyClaimTurn" in redis)) redis.defineCommand("proxyClaimTurn", { numberOfKeys: 5, lua: CLAIM });
  if (!("proxyRecent" in redis)) redis.defineCommand("proxyRecent", { numberOfKeys: 2, lua: RECENT });
  const recent = (redis as unknown as { proxyRecent(...args: string[]): Promise<string[]> }).proxyRecent.bind(redis);
  const claimTurn = (
    redis as unknown as { proxyClaimTurn(...args: string[]): Promise<(string | number)[]> }
  ).proxyClaimTurn.bind(redis);
  return {
    async claim(i) {
      const k = key(i.experimentId, i.externalId);
      let timer: NodeJS.Timeout | undefined;
      const r0 = i.recent;
      const call = claimTurn(
        k,
        i.stitch?.key ?? k,
        rkey(KEYS.proxyTurn.key(i.turnId)),
        r0 ? rkey(KEYS.proxyRecent.key(i.experimentId, r0.keyId)) : k,
        r0 ? rkey(KEYS.proxyRecent.data(i.experimentId, r0.keyId)) : k,
        i.lane,
        i.turnId,
        i.localLaneTurn ?? "",
        i.digests.join(","),
        i.main ? "1" : "0",
        i.ok ? "1" : "0",
        i.wantsLink ? "1" : "0",
        i.initIndex === null ? "" : String(i.initIndex),
        i.done ? "1" : "0",
        i.stitch?.payload ?? "",
        ttl,
        i.experimentId,
        i.externalId,
        r0?.lastUserText ?? "",
        r0?.summaries ? JSON.stringify(r0.summaries) : "",
        String(Date.now()),
        String(r0?.windowMs ?? 0),
      );
      const r = await Promise.race([
        call,
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error("session order timed out")), timeoutMs)),
        ),
      ]).finally(() => clearTimeout(timer));
      if (r[0] === "cold") return { kind: "cold" };
      const base = String(r[3]);
      return {
        kind: "ok",
        index: Number(r[1]),
        lane: r[2] as "none" | "same" | "other",
        baseDigests: base === "" ? [] : base.split(","),
        target: r[4] ? String(r[4]) : null,
        final: r[5] ? String(r[5]) : null,
      };
    },
    forgetLane(experimentId, externalId, lane) {
      redis.hdel(key(experimentId, externalId), `lt:${lane}`, `ld:${lane}`).catch(() => {});
    },
    latestMain: (experimentId, externalId) => bounded(redis.hget(key(experimentId, externalId), "lm"), timeoutMs),
    experimentOfTurn: (turnId) => bounded(redis.get(rkey(KEYS.proxyTurn.key(turnId))), timeoutMs),
    async recentForKey(keyId, experimentId, withinMs) {
      let timer: NodeJS.Timeout | undefined;
      const flat = await Promise.race([
        recent(
          rkey(KEYS.proxyRecent.key(experimentId, keyId)),
          rkey(KEYS.proxyRecent.data(experimentId, keyId)),
          String(Date.now() - withinMs),
        ).catch(() => null),
        new Promise<null>((r) => (timer = setTimeout(() => r(null), timeoutMs))),
      ]).finally(() => clearTimeout(timer));
      if (!flat) return null;
      const out: RecentSession[] = [];
      for (let j = 0; j + 2 < flat.length; j += 3) {
        const summaries = flat[j + 2] ? (JSON.parse(flat[j + 2]!) as unknown) : [];
        out.push({
          externalId: flat[j]!,
          lastUserText: flat[j + 1] || null,
          summaries: Array.isArray(summaries) ? summaries.filter((x): x is string => typeof x === "string") : [],
        });
      }
      return out;
    },
  };
}

/** The answer, or null when Redis fails or is slower than `ms` (the caller falls back to Postgres). */
async function bounded(call: Promise<string | null>, ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    call.catch(() => null),
    new Promise<null>((r) => (timer = setTimeout(() => r(null), ms))),
  ]).finally(() => clearTimeout(timer));
}
