// Advantages of one GRPO group (the n episodes of one task launched together), once every member has
// ended. Only DONE episodes count: a FAILED one (sandbox or policy error, lost worker) has no outcome and is
// left out rather than counted as a loss. Each step is one recorded turn, so a step's token span is its
// turn's whole response and "broadcast over the span" means the turn's sample gets the step's scalar.
//   grpo:      A = (outcome − mean) / (std + 1e-6) over the group, on every step of the episode.
//   step_wise: stepWiseAdvantages with each step's score = its PRM score when judged, else the outcome
//              (upstream's step_scores_with_outcome), buckets per step index; dropped steps get null.
import { db } from "../../platform/db/client";
import { stepWiseAdvantages } from "./stepWise";

export const ESTIMATORS = ["grpo", "step_wise"] as const;
export type Estimator = (typeof ESTIMATORS)[number];

const STD_EPS = 1e-6;

export interface GroupMember {
  outcome: number;
  steps: { prmScore: number | null }[];
}

/** Per member, per step: the advantage, or null when the estimator dropped the step. Pure. */
export function groupAdvantages(members: GroupMember[], estimator: Estimator): (number | null)[][] {
  if (estimator === "grpo") {
    const n = members.length;
    const mean = members.reduce((a, m) => a + m.outcome, 0) / n;
    const std = Math.sqrt(members.reduce((a, m) => a + (m.outcome - mean) ** 2, 0) / n);
    return members.map((m) => m.steps.map(() => (m.outcome - mean) / (std + STD_EPS)));
  }
  const r = stepWiseAdvantages(
    members.map((m) => ({
      group: 0,
      stepScores: m.steps.map((s) => s.prmScore ?? m.outcome),
      stepTokenSpans: m.steps.map((_, i) => [i, i + 1] as const),
    })),
  );
  return r.steps.map((kept, k) => {
    const out: (number | null)[] = members[k].steps.map(() => null);
    kept.indices.forEach((index, pos) => (out[index] = kept.rewards[pos]));
    return out;
  });
}

export interface GroupResult {
  groupKey: string;
  members: number;
  failed: number;
  /** Steps the estimator dropped (step_wise constant buckets, or every step of a removed sample). */
  droppedSteps: number;
}

/**
 * Writes the group's step advantages once no member is QUEUED or RUNNING; null while some still are.
 * Idempotent: a second call rewrites the same values.
 */
export async function computeGroupAdvantages(groupKey: string): Promise<GroupResult | null> {
  const episodes = await db().episode.findMany({
    where: { groupKey },
    orderBy: [{ sampleIndex: "asc" }, { id: "asc" }],
    include: { steps: { orderBy: { index: "asc" }, select: { id: true, prmScore: true } } },
  });
  if (episodes.length === 0 || episodes.some((e) => e.status === "QUEUED" || e.status === "RUNNING")) return null;
  const done = episodes.filter((e) => e.status === "DONE" && e.outcome !== null);
  const estimator = (episodes[0].estimator as Estimator) ?? "grpo";
  const advantages = done.length
    ? groupAdvantages(
        done.map((e) => ({ outcome: e.outcome!, steps: e.steps })),
        estimator,
      )
    : [];
  let droppedSteps = 0;
  await db().$transaction([
    ...done.flatMap((e, k) =>
      e.steps.map((s, i) => {
        const advantage = advantages[k][i];
        if (advantage === null) droppedSteps++;
        return db().episodeStep.update({ where: { id: s.id }, data: { advantage } });
      }),
    ),
    db().episode.updateMany({ where: { groupKey }, data: { advantagesAt: new Date() } }),
  ]);
  return { groupKey, members: done.length, failed: episodes.length - done.length, droppedSteps };
}
