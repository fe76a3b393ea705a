// Serving metrics per experiment: every second a snapshot goes to Redis (a TTL'd key per experiment, and
// the `metrics` channel for open dashboards); every `persistEvery` seconds coarse points over that window
// are stored as MetricPoint rows so the dashboard can chart history. Redis and Postgres failures are
// swallowed: metrics never hold up serving.
import type { Redis } from "ioredis";
import { CHANNELS, encodeChannel, KEYS, type ProxyMetrics } from "../platform/bus/contracts";
import { rkey } from "../platform/redis";

export interface Observation {
  latencyMs: number;
  ttftMs: number | null;
  completionTokens: number;
  error: boolean;
}

interface Window {
  requests: number;
  errors: number;
  tokens: number;
  latencies: number[];
  ttfts: number[];
}

const emptyWindow = (): Window => ({ requests: 0, errors: 0, tokens: 0, latencies: [], ttfts: [] });
const SAMPLE_CAP = 20_000;

export function percentile(sorted: readonly number[], p: number): number | null {
  if (!sorted.length) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function summarize(w: Window, seconds: number) {
  const lat = [...w.latencies].sort((a, b) => a - b);
  const ttft = [...w.ttfts].sort((a, b) => a - b);
  return {
    requestsPerS: w.requests / seconds,
    errorsPerS: w.errors / seconds,
    latencyP50Ms: percentile(lat, 50),
    latencyP99Ms: percentile(lat, 99),
    ttftP50Ms: percentile(ttft, 50),
    tokensPerS: w.tokens / seconds,
  };
}

function add(w: Window, o: Observation) {
  w.requests++;
  if (o.error) w.errors++;
  w.tokens += o.completionTokens;
  if (w.latencies.length < SAMPLE_CAP) w.latencies.push(o.latencyMs);
  if (o.ttftMs !== null && w.ttfts.length < SAMPLE_CAP) w.ttfts.push(o.ttftMs);
}

export interface MetricsSources {
  activeSessions(experimentId: string): number;
  bufferDepth(): number;
  experimentState(experimentId: string): { runId: string | null; policyVersion: number } | null;
}

export interface MetricPointRow {
  experimentId: string;
  runId: string | null;
  name: string;
  value: number;
  ts: number;
}

export class ServingMetrics {
  private second = new Map<string, Window>();
  private coarse = new Map<string, Window>();
  /** Experiments seen in the last minute keep reporting (zeros included), so charts stay continuous. */
  private readonly lastSeen = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private ticks = 0;
  readonly latest = new Map<string, ProxyMetrics>();

  constructor(
    private readonly deps: {
      redis: Redis | null;
      sources: MetricsSources;
      persist: (rows: MetricPointRow[]) => Promise<void>;
      intervalMs?: number;
      persistEvery?: number;
    },
  ) {}

  observe(experimentId: string, o: Observation): void {
    let w = this.second.get(experimentId);
    if (!w) this.second.set(experimentId, (w = emptyWindow()));
    add(w, o);
    let c = this.coarse.get(experimentId);
    if (!c) this.coarse.set(experimentId, (c = emptyWindow()));
    add(c, o);
    this.lastSeen.set(experimentId, Date.now());
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One reporting period; public so tests can drive it. */
  async tick(now = Date.now()): Promise<void> {
    const seconds = (this.deps.intervalMs ?? 1000) / 1000;
    const windows = this.second;
    this.second = new Map();
    const snapshots: ProxyMetrics[] = [];
    for (const [experimentId, seen] of this.lastSeen) {
      if (now - seen > 60_000) {
        this.lastSeen.delete(experimentId);
        continue;
      }
      const state = this.deps.sources.experimentState(experimentId);
      const snap: ProxyMetrics = {
        experimentId,
        runId: state?.runId ?? null,
        at: now,
        ...summarize(windows.get(experimentId) ?? emptyWindow(), seconds),
        activeSessions: this.deps.sources.activeSessions(experimentId),
        bufferDepth: this.deps.sources.bufferDepth(),
        policyVersion: state?.policyVersion ?? 0,
      };
      this.latest.set(experimentId, snap);
      snapshots.push(snap);
    }
    const r = this.deps.redis;
    if (r && snapshots.length) {
      const multi = r.multi();
      for (const s of snapshots) {
        multi.set(rkey(KEYS.proxyMetrics.key(s.experimentId)), JSON.stringify(s), "EX", 10);
        multi.publish(
          rkey(CHANNELS.metrics.name),
          encodeChannel("metrics", {
            experimentId: s.experimentId,
            runId: s.runId,
            points: toPoints(s).map((p) => ({ ...p, step: null })),
          }),
        );
      }
      await multi.exec().catch(() => {});
    }
    if (++this.ticks % (this.deps.persistEvery ?? 10) === 0)
      await this.persistCoarse(now, seconds * (this.deps.persistEvery ?? 10));
  }

  private async persistCoarse(now: number, seconds: number): Promise<void> {
    const windows = this.coarse;
    this.coarse = new Map();
    const rows: MetricPointRow[] = [];
    for (const [experimentId, w] of windows) {
      const state = this.deps.sources.experimentState(experimentId);
      const snap: ProxyMetrics = {
        experimentId,
        runId: state?.runId ?? null,
        at: now,
        ...summarize(w, seconds),
        activeSessions: this.deps.sources.activeSessions(experimentId),
        bufferDepth: this.deps.sources.bufferDepth(),
        policyVersion: state?.policyVersion ?? 0,
      };
      for (const p of toPoints(snap))
        rows.push({ experimentId, runId: snap.runId, name: p.name, value: p.value, ts: now });
    }
    if (rows.length) await this.deps.persist(rows).catch(() => {});
  }
}

export function toPoints(s: ProxyMetrics): { name: string; value: number; ts: number }[] {
  const pts: [string, number | null][] = [
    ["proxy.requests_per_s", s.requestsPerS],
    ["proxy.errors_per_s", s.errorsPerS],
    ["proxy.latency_p50_ms", s.latencyP50Ms],
    ["proxy.latency_p99_ms", s.latencyP99Ms],
    ["proxy.ttft_p50_ms", s.ttftP50Ms],
    ["proxy.tokens_per_s", s.tokensPerS],
    ["proxy.active_sessions", s.activeSessions],
    ["proxy.buffer_depth", s.bufferDepth],
  ];
  return pts.filter((p): p is [string, number] => p[1] !== null).map(([name, value]) => ({ name, value, ts: s.at }));
}
