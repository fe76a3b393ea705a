// The recording proxy as one object: a node:http server (no framework on the hot path) plus the writer,
// judge enqueuer, metrics reporter and subscriptions it owns. workers/serve runs it; tests start it
// in-process on an ephemeral port.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Redis } from "ioredis";
import { db as defaultDb, type Db } from "../platform/db/client";
import { env, settings } from "../platform/env";
import { createRedis } from "../platform/redis";
import { rateLimitHeaders, ReservingRateLimiter } from "../platform/rateLimit";
import { subscribe } from "../platform/bus/pubsub";
import { ProxyAuth } from "./auth";
import { ProxyError } from "./errors";
import { ExperimentDirectory } from "./experiments";
import { handleChat } from "./handlers/chat";
import { KeyInflight } from "./inflight";
import type { ProxyDeps } from "./handlers/deps";
import { AdapterRoutes } from "./adapterRoutes";
import { onUserAdapterChanged } from "./userAdapterEvents";
import { handleFeedback } from "./handlers/feedback";
import { handleHealth, handleModels, handleReady } from "./handlers/misc";
import { sendError, sendJson } from "./http";
import { defaultEnqueueMany, JudgeEnqueuer, SWEEP_SQL, type EnqueueFn } from "./judgeQueue";
import { ServingMetrics, type MetricPointRow } from "./metrics";
import { RecordingWriter } from "./recorder/writer";
import type { JudgeItem } from "./recorder/sql";
import { SessionTable } from "./sessions";
import { redisSessionOrder } from "./sessionOrder";
import { StitchIndex } from "./stitch";
import { redisStitchStore } from "./stitchStore";
import { TurnPlanner } from "./turns";
import type { UpstreamFactory } from "./upstreams/factory";

export interface ProxyOptions {
  /** 0 picks a free port. Default PROXY_PORT. */
  port?: number;
  host?: string;
  /** The writer's database (default DATABASE_URL); reads (keys, experiments) use `db`. */
  databaseUrl?: string;
  db?: () => Db;
  /** The recording buffer lives in `<dataDir>/proxy-buffer`. Default DATA_DIR. */
  dataDir?: string;
  maxBodyBytes?: number;
  upstreamTimeoutMs?: number;
  bufferMaxBytes?: number;
  /** Default PROXY_JOURNAL_FSYNC_MS. */
  journalFsyncMs?: number;
  /** The journal's fsync (a test makes it fail like a dying disk). */
  journalFdatasync?: (fd: number) => Promise<void>;
  /** Redis for metrics, stitch hashes, the judge queue and the policyVersion channel (default true). */
  redis?: boolean;
  enqueueJudge?: EnqueueFn;
  makeUpstream?: UpstreamFactory;
  auth?: ProxyAuth;
  metricsIntervalMs?: number;
  judgeRetryMs?: number;
  sweepEveryMs?: number;
  writerProbeMs?: number;
  log?: (msg: string) => void;
}

export interface ProxyServer {
  url: string;
  port: number;
  server: http.Server;
  writer: RecordingWriter;
  judge: JudgeEnqueuer;
  metrics: ServingMetrics;
  experiments: ExperimentDirectory;
  sessions: SessionTable;
  planner: TurnPlanner;
  close(): Promise<void>;
}

const CHAT_PATHS = new Set(["/v1/chat/completions", "/chat/completions"]);

export async function startProxy(opts: ProxyOptions = {}): Promise<ProxyServer> {
  const e = env();
  const penv = settings("proxy");
  const log = opts.log ?? ((m: string) => console.log(`[proxy] ${m}`));
  const getDb = opts.db ?? defaultDb;
  const useRedis = opts.redis ?? true;
  // Fails fast while Redis is down instead of queueing commands in memory.
  // Auto-pipelining: the commands of one tick (session order calls of concurrent requests, stitch lookups)
  // leave in one write — a socket write per command was the largest share of recording's CPU in the profile.
  const fastRedis: Redis | null = useRedis
    ? createRedis({ enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true })
    : null;
  fastRedis?.on("error", () => {});

  const sessions = new SessionTable();
  const stitch = new StitchIndex({
    maxEntries: 200_000,
    ttlMs: 24 * 3600_000,
    store: fastRedis ? redisStitchStore(fastRedis, { timeoutMs: penv.PROXY_REDIS_TIMEOUT_MS }) : null,
  });
  let planner: TurnPlanner | null = null;
  let judge: JudgeEnqueuer | null = null;
  const writer = new RecordingWriter({
    databaseUrl: opts.databaseUrl ?? e.DATABASE_URL,
    bufferDir: path.resolve(opts.dataDir ?? e.DATA_DIR, "proxy-buffer"),
    bufferMaxBytes: opts.bufferMaxBytes ?? penv.PROXY_BUFFER_MAX_BYTES,
    journalFsyncMs: opts.journalFsyncMs ?? penv.PROXY_JOURNAL_FSYNC_MS,
    journalFdatasync: opts.journalFdatasync,
    probeIntervalMs: opts.writerProbeMs,
    onJudge: (items: JudgeItem[]) => judge?.submit(items),
    onTurnRejected: (ev) => planner?.resetLane(ev),
    log,
  });
  const order = fastRedis ? redisSessionOrder(fastRedis, { timeoutMs: penv.PROXY_REDIS_TIMEOUT_MS }) : null;
  planner = new TurnPlanner({
    sessions,
    stitch,
    blobs: writer,
    order,
    storedMaxIndex: async (experimentId, externalId) =>
      (
        await writer.query<{ m: number }>(
          `SELECT COALESCE(max(t.index), -1)::int AS m FROM agent_sessions s JOIN turns t ON t."sessionId" = s.id WHERE s."experimentId" = $1 AND s."externalId" = $2`,
          [experimentId, externalId],
        )
      ).rows[0]?.m ?? -1,
  });
  judge = new JudgeEnqueuer({
    enqueue: opts.enqueueJudge ?? (useRedis ? undefined : async () => {}),
    enqueueMany: opts.enqueueJudge || !useRedis ? undefined : defaultEnqueueMany,
    sweepQuery: async (days, limit) => (await writer.query<JudgeItem>(SWEEP_SQL, [days, limit])).rows,
    retryMs: opts.judgeRetryMs,
    sweepEveryMs: opts.sweepEveryMs,
    log,
  });
  const experiments = new ExperimentDirectory({
    db: getDb,
    upstreamTimeoutMs: opts.upstreamTimeoutMs ?? penv.PROXY_UPSTREAM_TIMEOUT_MS,
    makeUpstream: opts.makeUpstream,
    log,
  });
  const metrics = new ServingMetrics({
    redis: fastRedis,
    intervalMs: opts.metricsIntervalMs,
    sources: {
      activeSessions: (id) => sessions.activeCount(id),
      bufferDepth: () => writer.depth,
      experimentState: (id) => {
        const ctx = experiments.get(id);
        return ctx ? { runId: ctx.runId, policyVersion: ctx.policyVersion } : null;
      },
    },
    persist: (rows) => persistMetricPoints(writer, rows),
  });
  const auth = opts.auth ?? new ProxyAuth();

  await writer.start();
  judge.start();
  metrics.start();

  const adapters = new AdapterRoutes(getDb);
  const unsubscribers: Promise<(() => Promise<void>) | null>[] = [];
  if (useRedis) {
    // Not awaited: with Redis down at start the subscriptions complete once it is back.
    unsubscribers.push(
      subscribe("policyVersion", (m) => void experiments.switchTo(m.experimentId, m.version, m.checkpointPath)).catch(
        () => null,
      ),
      subscribe("apiKeyRevoked", (m) => auth.revoke(m.prefix)).catch(() => null),
      subscribe("userAdapter", (m) => void onUserAdapterChanged(m, { experiments, adapters, log })).catch(() => null),
    );
  }

  // Shared across replicas without a Redis round trip per request (budget reserved in chunks).
  const limiter = fastRedis
    ? new ReservingRateLimiter({ bucket: "proxy", limit: penv.PROXY_RATE_LIMIT_PER_MIN, client: fastRedis })
    : null;
  const rateLimit = async (keyId: string) => {
    if (!limiter) return {};
    const d = await limiter.hit(keyId);
    if (!d.allowed)
      throw new ProxyError(
        429,
        "rate_limit_error",
        `Rate limit of ${d.limit} requests per minute for this key exceeded`,
        "rate_limit_exceeded",
        null,
        d.resetSeconds,
      );
    return rateLimitHeaders(d);
  };
  const deps: ProxyDeps = {
    maxBodyBytes: opts.maxBodyBytes ?? penv.PROXY_MAX_BODY_BYTES,
    maxMessages: penv.PROXY_MAX_MESSAGES,
    recordingFailClosed: penv.PROXY_RECORDING_FAIL_CLOSED,
    bodyIdleMs: penv.PROXY_BODY_IDLE_MS,
    inflight: new KeyInflight(penv.PROXY_MAX_INFLIGHT_PER_KEY),
    rateLimit,
    auth,
    experiments,
    planner,
    sessions,
    order,
    writer,
    metrics,
    db: getDb,
    adapters,
  };
  let closing = false;
  let inflight = 0;
  let idle: (() => void) | null = null;

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const p = (req.url ?? "/").split("?")[0]!;
    if (req.method === "POST" && CHAT_PATHS.has(p)) return handleChat(req, res, deps);
    if (req.method === "GET" && (p === "/v1/models" || p === "/models")) return handleModels(req, res, deps);
    if (req.method === "POST" && p === "/v1/feedback") return handleFeedback(req, res, deps);
    if (req.method === "GET" && p === "/healthz") return handleHealth(res);
    if (req.method === "GET" && p === "/readyz") return handleReady(res, deps, closing);
    throw new ProxyError(404, "invalid_request_error", `Unknown route ${req.method} ${p}`, "unknown_route");
  };

  const server = http.createServer({ keepAliveTimeout: 65_000, noDelay: true }, (req, res) => {
    inflight++;
    res.on("close", () => {
      if (--inflight === 0) idle?.();
    });
    route(req, res).catch((err: unknown) => {
      if (err instanceof ProxyError) return sendError(res, err);
      log(`unhandled error on ${req.method} ${req.url}: ${(err as Error)?.stack ?? String(err)}`);
      sendJson(res, 500, {
        error: { message: "Internal proxy error", type: "api_error", param: null, code: "internal_error" },
      });
    });
  });
  server.maxConnections = penv.PROXY_MAX_CONNECTIONS;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // streams may legitimately run for minutes; the upstream timeout bounds silence

  const host = opts.host ?? penv.PROXY_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? e.PROXY_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${port}`;

  return {
    url,
    port,
    server,
    writer,
    judge,
    metrics,
    experiments,
    sessions,
    planner,
    async close() {
      closing = true;
      server.close();
      server.closeIdleConnections();
      if (inflight > 0) await new Promise<void>((r) => ((idle = r), setTimeout(r, 10_000).unref()));
      server.closeAllConnections();
      metrics.stop();
      judge!.stop();
      await writer.close();
      for (const u of await Promise.all(unsubscribers)) await u?.().catch(() => {});
      fastRedis?.disconnect();
      await experiments.close();
    },
  };
}

async function persistMetricPoints(writer: RecordingWriter, rows: MetricPointRow[]): Promise<void> {
  await writer.query(
    `INSERT INTO metric_points ("experimentId", "runId", name, value, ts)
     SELECT v.e, v.r, v.n, v.v, v.ts FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::timestamp[]) AS v(e, r, n, v, ts)
     WHERE EXISTS (SELECT 1 FROM experiments x WHERE x.id = v.e)`,
    [
      rows.map((r) => r.experimentId),
      rows.map((r) => r.runId),
      rows.map((r) => r.name),
      rows.map((r) => r.value),
      rows.map((r) => new Date(r.ts).toISOString()),
    ],
  );
}
