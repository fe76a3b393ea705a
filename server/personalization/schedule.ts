// The per-user scheduler, run by the train worker (workers/train/perUser.ts) every TRAINER_PER_USER_INTERVAL_S.
// Each tick looks at every user of every active per-user experiment (of this worker's shard) and trains one new
// version for each user it picks:
// - a user is due once `minSamples` new trainable samples are waiting (their buffer), and, when the experiment
//   asks to train when idle, once their newest turn is `idleAfterS` old and the hour is inside `windowUtc`;
// - fair share: due users are taken least recently trained first (never trained before all), then longest
//   waiting, over all experiments, one version each, and a version trains on at most `maxSamplesPerVersion`
//   samples: a user with a large backlog goes to the back after their version, so nobody starves behind it;
// - a cap: at most TRAINER_PER_USER_MAX_PER_MINUTE versions in a rolling minute (counted from the adapter rows,
//   so a restarted worker keeps to it); users over the cap keep their place and go first next tick.
// The shared trainer runs in the same process: trainUser yields between adapter steps, so its loop keeps going.
import type { ExperimentConfig } from "../config/experimentConfig";
import { db } from "../platform/db/client";
import { activePerUserExperiments } from "./experiments";
import { adapterOwners } from "./data";
import { baseModel, trainUser, userBacklog, type TrainUserResult } from "./train";

export interface Candidate {
  experimentId: string;
  endUserId: string;
  /** trainable samples not yet in a version */
  pending: number;
  /** when the oldest of them was recorded */
  waitingSince: Date | null;
  lastTrainedAt: Date | null;
  lastTurnAt: Date | null;
  rules: Pick<ExperimentConfig["perUser"], "minSamples" | "idleAfterS" | "windowUtc">;
}

export type SkipReason = "too_few_samples" | "not_idle" | "outside_window" | "rate_capped";

export interface TickPlan {
  train: Candidate[];
  skipped: Array<{ candidate: Candidate; reason: SkipReason }>;
}

/** Whether `hour` (UTC) is in [from, to), the window wrapping past midnight when from > to. */
export function inWindow(hour: number, w: { from: number; to: number }): boolean {
  return w.from < w.to ? hour >= w.from && hour < w.to : hour >= w.from || hour < w.to;
}

const time = (d: Date | null) => (d ? d.getTime() : -Infinity);

/**
 * Which users train this tick, in order. `trainedLastMinute`: versions already trained in the minute before
 * `now`; `maxPerMinute` 0 means no cap.
 */
export function planTick(
  candidates: readonly Candidate[],
  opts: { now: Date; trainedLastMinute: number; maxPerMinute: number },
): TickPlan {
  const skipped: TickPlan["skipped"] = [];
  const due: Candidate[] = [];
  for (const c of candidates) {
    const { minSamples, idleAfterS, windowUtc } = c.rules;
    if (c.pending < minSamples) skipped.push({ candidate: c, reason: "too_few_samples" });
    else if (windowUtc && !inWindow(opts.now.getUTCHours(), windowUtc))
      skipped.push({ candidate: c, reason: "outside_window" });
    else if (idleAfterS > 0 && c.lastTurnAt && opts.now.getTime() - c.lastTurnAt.getTime() < idleAfterS * 1000)
      skipped.push({ candidate: c, reason: "not_idle" });
    else due.push(c);
  }
  due.sort(
    (a, b) =>
      time(a.lastTrainedAt) - time(b.lastTrainedAt) ||
      time(a.waitingSince) - time(b.waitingSince) ||
      a.experimentId.localeCompare(b.experimentId) ||
      a.endUserId.localeCompare(b.endUserId),
  );
  const room = opts.maxPerMinute > 0 ? Math.max(0, opts.maxPerMinute - opts.trainedLastMinute) : due.length;
  for (const c of due.slice(room)) skipped.push({ candidate: c, reason: "rate_capped" });
  return { train: due.slice(0, room), skipped };
}

export type TickResult = TrainUserResult | { trained: false; reason: Exclude<SkipReason, "too_few_samples"> };

/** One tick over the active per-user experiments (all, or those of `experimentIds`); per experiment, per user. */
export async function perUserTick(
  experimentIds: readonly string[] = [],
  opts: { maxPerMinute?: number; now?: Date } = {},
): Promise<Record<string, Record<string, TickResult>>> {
  const now = opts.now ?? new Date();
  // Adapters served by SGLang/vLLM are PEFT folders trained outside this process (registered per user): not ours.
  const configs = new Map(
    (await activePerUserExperiments(experimentIds))
      .map((e) => [e.id, e.config] as const)
      .filter(([, c]) => c.policy.kind === "embedded"),
  );
  const candidates: Candidate[] = [];
  for (const [experimentId, config] of configs)
    for (const endUserId of await adapterOwners(experimentId, config.perUser.newUsers))
      candidates.push({
        experimentId,
        endUserId,
        rules: config.perUser,
        ...(await userBacklog(experimentId, endUserId, config)),
      });
  const trainedLastMinute = await db().userAdapter.count({
    where: { experimentId: { in: [...configs.keys()] }, createdAt: { gt: new Date(now.getTime() - 60_000) } },
  });
  const plan = planTick(candidates, { now, trainedLastMinute, maxPerMinute: opts.maxPerMinute ?? 0 });

  const out: Record<string, Record<string, TickResult>> = Object.fromEntries([...configs.keys()].map((id) => [id, {}]));
  for (const { candidate: c, reason } of plan.skipped)
    out[c.experimentId][c.endUserId] =
      reason === "too_few_samples"
        ? { trained: false, reason, samples: c.pending, needed: c.rules.minSamples }
        : { trained: false, reason };
  for (const c of plan.train) {
    const config = configs.get(c.experimentId)!;
    out[c.experimentId][c.endUserId] = await trainUser(c.experimentId, c.endUserId, await baseModel(config), config);
  }
  return out;
}
