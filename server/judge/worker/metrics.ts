// Judge metrics, accumulated per experiment over a window and summarised into metric points:
//   judge/judged_per_s        judgments stored per second in the window
//   judge/vote_latency_ms     median latency of the window's votes (failed calls included)
//   judge/vote_agreement      mean share of a judgment's valid eval votes that hold its modal value
//   judge/score_pos|neg|zero  judgments in the window by score
//   judge/hint_acceptance     share of judgments with hint votes whose hint was accepted
//   judge/excluded            judgments in the window excluded from training
//   judge/queue_depth         turns ready to judge with no judgment under the current judge version
//   judge/lag_ms              how long the oldest of those has been waiting (0 when caught up)
// The three "share" metrics are omitted from a window that has nothing to measure them on.
import type { Redis } from "ioredis";
import { z } from "zod";
import { KEYS } from "../../platform/bus/contracts";
import { rkey } from "../../platform/redis";
import type { JudgmentResult } from "../core/schemas";

export type JudgedSample = {
  score: number;
  excluded: boolean;
  hintAccepted: boolean;
  hadHintVotes: boolean;
  voteLatencies: number[];
  /** Share of valid eval votes equal to the most common value; null without a valid eval vote. */
  agreement: number | null;
};

export type Backlog = { depth: number; lagMs: number };

export type MetricValue = { name: string; value: number };

export function sampleOf(r: JudgmentResult): JudgedSample {
  const valid = r.votes.filter((v) => v.kind === "eval" && v.value !== null).map((v) => v.value);
  const counts = new Map<number | null, number>();
  for (const v of valid) counts.set(v, (counts.get(v) ?? 0) + 1);
  const modal = Math.max(0, ...counts.values());
  return {
    score: r.score,
    excluded: r.dispatch.excluded,
    hintAccepted: r.hintAccepted,
    hadHintVotes: r.votes.some((v) => v.kind === "hint"),
    voteLatencies: r.votes.flatMap((v) => (v.latencyMs === null ? [] : [v.latencyMs])),
    agreement: valid.length > 0 ? modal / valid.length : null,
  };
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

export function summarize(samples: readonly JudgedSample[], windowMs: number, backlog: Backlog): MetricValue[] {
  const points: MetricValue[] = [
    { name: "judge/judged_per_s", value: windowMs > 0 ? samples.length / (windowMs / 1000) : 0 },
    { name: "judge/score_pos", value: samples.filter((s) => s.score > 0).length },
    { name: "judge/score_neg", value: samples.filter((s) => s.score < 0).length },
    { name: "judge/score_zero", value: samples.filter((s) => s.score === 0).length },
    { name: "judge/excluded", value: samples.filter((s) => s.excluded).length },
    { name: "judge/queue_depth", value: backlog.depth },
    { name: "judge/lag_ms", value: backlog.lagMs },
  ];
  const latency = median(samples.flatMap((s) => s.voteLatencies));
  if (latency !== null) points.push({ name: "judge/vote_latency_ms", value: latency });
  const agreement = mean(samples.flatMap((s) => (s.agreement === null ? [] : [s.agreement])));
  if (agreement !== null) points.push({ name: "judge/vote_agreement", value: agreement });
  const hinted = samples.filter((s) => s.hadHintVotes);
  if (hinted.length > 0)
    points.push({ name: "judge/hint_acceptance", value: hinted.filter((s) => s.hintAccepted).length / hinted.length });
  return points;
}

/** Samples per experiment since the last drain. */
export class JudgeMetricsWindow {
  private samples = new Map<string, JudgedSample[]>();
  private since = Date.now();

  record(experimentId: string, sample: JudgedSample): void {
    const list = this.samples.get(experimentId) ?? [];
    list.push(sample);
    this.samples.set(experimentId, list);
  }

  drain(now = Date.now()): { windowMs: number; samples: Map<string, JudgedSample[]> } {
    const out = { windowMs: now - this.since, samples: this.samples };
    this.samples = new Map();
    this.since = now;
    return out;
  }
}

const JudgedSampleSchema = z.object({
  score: z.number(),
  excluded: z.boolean(),
  hintAccepted: z.boolean(),
  hadHintVotes: z.boolean(),
  voteLatencies: z.array(z.number()),
  agreement: z.number().nullable(),
});

/** Takes the leadership of the judge metrics, or keeps it (only the holder renews). */
const LEAD = `
local cur = redis.call('GET', KEYS[1])
if cur == false or cur == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]); return 1 end
return 0`;

/** Atomically takes every sample the other workers handed over for an experiment. */
const TAKE = `
local v = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return v`;

/**
 * Several judge workers, one series: each window, one worker (a lease in Redis, renewed by its holder at
 * every flush) writes the judge/* points, over its own samples and those the other workers handed it
 * through Redis; the others write nothing. Without Redis every worker writes its own points (as alone).
 */
export class MetricsAggregation {
  constructor(private readonly opts: { redis: Redis; workerId: string; leaseMs: number }) {}

  /** True: this worker writes the series this window. */
  async lead(): Promise<boolean> {
    return (
      (await this.opts.redis.eval(
        LEAD,
        1,
        rkey(KEYS.judgeMetricsLeader.key()),
        this.opts.workerId,
        String(this.opts.leaseMs),
      )) === 1
    );
  }

  async handOver(samples: ReadonlyMap<string, readonly JudgedSample[]>): Promise<void> {
    const m = this.opts.redis.multi();
    for (const [experimentId, list] of samples) {
      if (!list.length) continue;
      const key = rkey(KEYS.judgeMetricsSamples.key(experimentId));
      m.rpush(key, ...list.map((s) => JSON.stringify(s))).pexpire(key, this.opts.leaseMs * 10);
    }
    await m.exec();
  }

  async take(experimentId: string): Promise<JudgedSample[]> {
    const raw = (await this.opts.redis.eval(TAKE, 1, rkey(KEYS.judgeMetricsSamples.key(experimentId)))) as string[];
    return raw.flatMap((r) => {
      const parsed = JudgedSampleSchema.safeParse(JSON.parse(r));
      return parsed.success ? [parsed.data] : [];
    });
  }
}
