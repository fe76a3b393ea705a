// The one list of every Redis queue, channel and key family, each with its payload schema.
// Producers call `encode`, consumers `decode`: a malformed payload fails loudly at the boundary.
import { z } from "zod";

export const QUEUES = {
  /** A main turn whose next state arrived (or whose session ended); the judge worker consumes it. */
  judgeTurn: {
    name: "judge-turn",
    payload: z.object({ turnId: z.string(), experimentId: z.string() }),
    // Job ids are turn ids (re-enqueueing is a no-op while the job exists); a judge endpoint that is down
    // gets retried with backoff for ~4 minutes before the sweeper takes over.
    jobOptions: {
      attempts: 8,
      backoff: { type: "exponential", delay: 1000 },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 24 * 3600 },
    },
  },
  /**
   * A policy version to evaluate on an eval set version, or (target `tasks`) on a task set version's held-out
   * split as episodes (setVersionId is then the TaskSetVersion's); workers/evaluate consumes it.
   */
  evaluate: {
    name: "evaluate",
    payload: z.object({
      experimentId: z.string(),
      version: z.number().int().nonnegative(),
      setVersionId: z.string(),
      target: z.enum(["evalSet", "tasks"]).default("evalSet"),
      /** evalSet only: the draw of seeds (0, the default: the common seeds; ≥ 1: the gate's fresh ones, serving.gate.confirm) */
      draw: z.number().int().min(0).max(100_000).optional(),
    }),
    // Job ids are experiment_version_setVersion (_d<draw> for a fresh draw); an evaluation resumes where a failed attempt stopped.
    jobOptions: {
      attempts: 3,
      backoff: { type: "exponential", delay: 5000 },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600 },
    },
  },
  /** A queued episode (server/environments); workers/episodes claims and runs it. */
  episode: {
    name: "episode",
    payload: z.object({ episodeId: z.string(), experimentId: z.string() }),
    // Job ids are <episodeId>_a<attempt>. One delivery per attempt: a claim is atomic (QUEUED → RUNNING), and the
    // worker's sweeper re-queues an episode whose worker stopped heartbeating, up to EPISODE_MAX_ATTEMPTS.
    jobOptions: {
      attempts: 1,
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 24 * 3600 },
    },
  },
} as const;

export const CHANNELS = {
  /** A new policy version is live (or was promoted / rolled back); servers switch to it. */
  policyVersion: {
    name: "policy-version",
    payload: z.object({
      experimentId: z.string(),
      version: z.number().int().nonnegative(),
      checkpointPath: z.string().nullable(),
    }),
  },
  /**
   * A user's served adapter changed (registered, rolled back, deleted): proxies drop their held route for that user
   * and load a promoted PEFT folder into their multi-LoRA engine before the user's next request.
   */
  userAdapter: {
    name: "user-adapter",
    payload: z.object({ experimentId: z.string(), endUserId: z.string() }),
  },
  /** An evaluation finished (or the gate decided): the Evaluation page refreshes. */
  evaluation: {
    name: "evaluation",
    payload: z.object({
      experimentId: z.string(),
      version: z.number().int().nonnegative(),
      status: z.string(),
      mean: z.number().nullable(),
      promoted: z.number().int().nullable(),
    }),
  },
  /** Metric points, fanned out to open dashboards (persisted separately in Postgres). */
  metrics: {
    name: "metrics",
    payload: z.object({
      experimentId: z.string(),
      runId: z.string().nullable(),
      points: z.array(
        z.object({ name: z.string(), value: z.number(), step: z.number().int().nullable(), ts: z.number() }),
      ),
    }),
  },
  /** API-key revocation, so processes drop cached verifications at once. */
  apiKeyRevoked: {
    name: "api-key-revoked",
    payload: z.object({ prefix: z.string() }),
  },
  /** Simulated-user settings changed (an experiment's, or "*" for the global switch): workers/simulate reloads at once. */
  simulationControl: {
    name: "simulation-control",
    payload: z.object({ experimentId: z.string() }),
  },
} as const;

/** What an experiment's simulated users have done (workers/simulate, every couple of seconds; TTL'd). */
export const SimulationStatsSchema = z.object({
  experimentId: z.string(),
  at: z.number(),
  /** conversations in progress */
  active: z.number().int(),
  /** conversations started since the worker started this experiment's simulation */
  sessions: z.number().int(),
  /** requests answered by the proxy */
  turns: z.number().int(),
  turnsPerS: z.number(),
  /** replies the persona approved / corrected */
  approvals: z.number().int(),
  corrections: z.number().int(),
  toolCalls: z.number().int(),
  errors: z.number().int(),
  lastError: z.string().nullable(),
});

/** One second of a proxy's serving metrics for one experiment (latest snapshot, TTL'd). */
export const ProxyMetricsSchema = z.object({
  experimentId: z.string(),
  runId: z.string().nullable(),
  at: z.number(),
  requestsPerS: z.number(),
  errorsPerS: z.number(),
  latencyP50Ms: z.number().nullable(),
  latencyP99Ms: z.number().nullable(),
  ttftP50Ms: z.number().nullable(),
  tokensPerS: z.number(),
  activeSessions: z.number().int(),
  bufferDepth: z.number().int(),
  policyVersion: z.number().int(),
});

export const KEYS = {
  /** Hash with TTL (failures, until): the failure backoff of one identity (a sign-in account), by its digest. */
  failureBackoff: { key: (bucket: string, digest: string) => `backoff:${bucket}:${digest}` },
  /** String with TTL: the latest ProxyMetrics snapshot of an experiment (written every second by workers/serve). */
  proxyMetrics: {
    pattern: "metrics:proxy:*",
    key: (experimentId: string) => `metrics:proxy:${experimentId}`,
    payload: ProxyMetricsSchema,
  },
  /** String with TTL: stitch hash → session, so header-less conversations survive a proxy restart. */
  stitch: {
    pattern: "stitch:*",
    key: (hash: string) => `stitch:${hash}`,
    payload: z.object({ sessionKey: z.string(), seq: z.number().int() }),
  },
  /**
   * Hash with TTL: a recorded session's order state shared by every proxy replica (next index, each lane's
   * last turn and its message digests, the main turn awaiting its next state, the live stitch key).
   */
  proxySession: {
    pattern: "psess:*",
    key: (experimentId: string, externalId: string) => `psess:${experimentId}:${externalId}`,
  },
  /**
   * Sorted set (by last activity) and hash with TTL: an API key's recently active sessions of an experiment,
   * with each one's last user text and compaction summaries, so any replica attributes a compaction call
   * and the conversation resumed after it.
   */
  proxyRecent: {
    key: (experimentId: string, keyId: string) => `precent:${experimentId}:${keyId}`,
    data: (experimentId: string, keyId: string) => `precent:d:${experimentId}:${keyId}`,
  },
  /** String with TTL: a recorded turn's experiment, so feedback naming it finds it on any replica before it is in Postgres. */
  proxyTurn: { key: (turnId: string) => `pturn:${turnId}` },
  /** String with TTL: the judge worker that writes the judge/* metric series (one series however many workers run). */
  judgeMetricsLeader: { key: () => "judge:metrics:leader" },
  /** List with TTL: judged samples (JSON) other judge workers hand to the leader, per experiment. */
  judgeMetricsSamples: { key: (experimentId: string) => `judge:metrics:samples:${experimentId}` },
  /** String with TTL: the latest SimulationStats of an experiment. */
  simulationStats: {
    pattern: "sim:stats:*",
    key: (experimentId: string) => `sim:stats:${experimentId}`,
    payload: SimulationStatsSchema,
  },
  /** String with TTL (the holder's random token): one caller's exclusive long operation, e.g. an import (platform/callerLock.ts). */
  callerLock: {
    pattern: "lock:*",
    key: (name: string, identityHash: string) => `lock:${name}:${identityHash}`,
  },
  /** Counter with TTL: a caller's requests in one fixed rate-limit window (platform/rateLimit.ts). */
  rateLimit: {
    pattern: "rl:*",
    key: (bucket: string, identityHash: string, window: number) => `rl:${bucket}:${identityHash}:${window}`,
  },
  /**
   * Sorted set with TTL (member: holder id, score: lease expiry in Redis ms): the episode slots of one
   * environment taken across every episode worker (server/environments/episodes/slots.ts).
   */
  environmentSlots: {
    pattern: "envslots:*",
    key: (environmentId: string) => `envslots:${environmentId}`,
  },
  /** Hash with TTL: one per live worker process. */
  heartbeat: {
    pattern: "hb:*",
    key: (kind: string, id: string) => `hb:${kind}:${id}`,
    payload: z.object({
      kind: z.string(),
      id: z.string(),
      pid: z.number().int(),
      host: z.string(),
      startedAt: z.number(),
      at: z.number(),
      activity: z.string(),
      stats: z.record(z.string(), z.number()).default({}),
    }),
  },
} as const;

export type QueueName = keyof typeof QUEUES;
export type ChannelName = keyof typeof CHANNELS;
export type QueuePayload<Q extends QueueName> = z.infer<(typeof QUEUES)[Q]["payload"]>;
export type ChannelPayload<C extends ChannelName> = z.infer<(typeof CHANNELS)[C]["payload"]>;
export type Heartbeat = z.infer<typeof KEYS.heartbeat.payload>;
export type ProxyMetrics = z.infer<typeof ProxyMetricsSchema>;
export type SimulationStats = z.infer<typeof SimulationStatsSchema>;

export function encodeChannel<C extends ChannelName>(channel: C, payload: ChannelPayload<C>): string {
  return JSON.stringify(CHANNELS[channel].payload.parse(payload));
}

export function decodeChannel<C extends ChannelName>(channel: C, raw: string): ChannelPayload<C> {
  return CHANNELS[channel].payload.parse(JSON.parse(raw)) as ChannelPayload<C>;
}
