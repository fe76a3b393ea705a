// Trainer metrics: persisted as MetricPoint rows (Postgres is the source of truth) and fanned out on the
// `metrics` channel for open dashboards. Names follow slime where it has one (slime `rollout/*` and `train/*` metric names).
import { db, type Prisma } from "../platform/db/client";
import { publish } from "../platform/bus/pubsub";

export interface Point {
  name: string;
  value: number;
  step: number | null;
}

const finite = (p: Point) => Number.isFinite(p.value);

export function metricRows(
  experimentId: string,
  runId: string,
  points: readonly Point[],
  ts = new Date(),
): Prisma.MetricPointCreateManyInput[] {
  return points.filter(finite).map((p) => ({ experimentId, runId, name: p.name, step: p.step, value: p.value, ts }));
}

/** Best-effort fan-out: a Redis outage delays dashboards, never training. */
export async function publishMetrics(
  experimentId: string,
  runId: string,
  points: readonly Point[],
  ts = Date.now(),
): Promise<void> {
  const ok = points.filter(finite);
  if (!ok.length) return;
  await publish("metrics", { experimentId, runId, points: ok.map((p) => ({ ...p, ts })) }).catch(() => {});
}

export async function recordMetrics(experimentId: string, runId: string, points: readonly Point[]): Promise<void> {
  const ts = new Date();
  const rows = metricRows(experimentId, runId, points, ts);
  if (rows.length) await db().metricPoint.createMany({ data: rows });
  await publishMetrics(experimentId, runId, points, ts.getTime());
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

export interface StepAccounting {
  trainMetrics: Record<string, number>;
  rewards: number[];
  evalScores: number[];
  responseLens: number[];
  kinds: ("RL" | "OPD" | "BOTH")[];
  staleness: number[];
  /** excluded samples recorded since the previous step */
  excludedSinceLast: number;
  staleDroppedSinceLast: number;
  importanceWeighted: number;
  trainStepMs: number;
  tokens: number;
  checkpointMs: number;
  /** per trained sample (same order as `rewards`): where in the conversation its reply was served */
  contexts?: readonly (string | undefined)[];
  /** hindsight demonstrations trained beside the samples */
  demos?: number;
}

/** Mean reward of the samples served in `context` (NaN, so not recorded, when there are none). */
function rewardIn(a: StepAccounting, context: string): number {
  return mean(a.rewards.filter((_, i) => (a.contexts?.[i] ?? "first") === context));
}

/** Every per-step metric, by name. */
export function stepMetrics(a: StepAccounting): Record<string, number> {
  const count = (k: string) => a.kinds.filter((x) => x === k).length;
  const out: Record<string, number> = {
    ...a.trainMetrics,
    "rollout/reward_mean": mean(a.rewards),
    // Is it learning? The vote mix of the batch, and the reward of the replies nobody instructed (a conversation's
    // first) beside those that followed a correction or an approval: the first reply is where a preference is learnt.
    ...(a.contexts
      ? {
          "rollout/approved_frac": mean(a.rewards.map((r) => (r > 0 ? 1 : 0))),
          "rollout/corrected_frac": mean(a.rewards.map((r) => (r < 0 ? 1 : 0))),
          "rollout/reward_first": rewardIn(a, "first"),
          "rollout/reward_after_correction": rewardIn(a, "afterCorrection"),
          "rollout/reward_after_approval": rewardIn(a, "afterApproval"),
        }
      : {}),
    ...(a.demos !== undefined ? { "samples/hindsight_demos": a.demos } : {}),
    "rollout/prm_eval_score": mean(a.evalScores),
    "rollout/response_len/mean": mean(a.responseLens),
    "samples/accepted": a.kinds.length,
    "samples/excluded": a.excludedSinceLast,
    "samples/stale_dropped": a.staleDroppedSinceLast,
    "samples/importance_weighted": a.importanceWeighted,
    "samples/opd_only": count("OPD"),
    "samples/rl_only": count("RL"),
    "samples/both": count("BOTH"),
    "staleness/mean": mean(a.staleness),
    "staleness/max": a.staleness.length ? Math.max(...a.staleness) : NaN,
    "perf/train_step_ms": a.trainStepMs,
    "perf/tokens_per_s": a.trainStepMs > 0 ? (a.tokens * 1000) / a.trainStepMs : NaN,
    "perf/checkpoint_ms": a.checkpointMs,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => Number.isFinite(v)));
}
