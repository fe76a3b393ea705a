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

/** The mean of the latest judgment's parsed votes on each turn (the judge worker is the step PRM). */
async function prmScores(turnIds: string[]) {
  const judgments = await db().judgment.findMany({
    where: { turnId: { in: turnIds } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { turnId: true, score: true, votes: { select: { value: true }, orderBy: { index: "asc" } } },
  });
  const out = new Map<string, { score: number; votes: number[] }>();
  for (const j of judgments) {
    if (out.has(j.turnId)) continue;
    const votes = j.votes.flatMap((v) => (v.value === null ? [] : [v.value]));
    out.set(j.turnId, { score: votes.length ? votes.reduce((a, b) => a + b, 0) / votes.length : j.score, votes });
  }
  return out;
}

/**
 * Writes the group's step advantages once no member is QUEUED or RUNNING; null while some still are, or
 * while a PRM group still waits for step judgments (up to `prmWaitMs` after its last member ended).
 * Idempotent: a second call rewrites the same values.
 */
export async function computeGroupAdvantages(
  groupKey: string,
  opts: { prmWaitMs?: number; now?: number } = {},
): Promise<GroupResult | null> {
  const episodes = await db().episode.findMany({
    where: { groupKey },
    orderBy: [{ sampleIndex: "asc" }, { id: "asc" }],
    include: {
      steps: { orderBy: { index: "asc" }, select: { id: true, turnId: true, prmScore: true } },
    },
  });
  if (episodes.length === 0 || episodes.some((e) => e.status === "QUEUED" || e.status === "RUNNING")) return null;
  const done = episodes.filter((e) => e.status === "DONE" && e.outcome !== null);
  if (episodes[0].prm) {
    const turnIds = done.flatMap((e) => e.steps.flatMap((s) => (s.turnId ? [s.turnId] : [])));
    const scores = await prmScores(turnIds);
    const lastEnd = Math.max(...episodes.map((e) => e.finishedAt?.getTime() ?? 0));
    const waiting = (opts.now ?? Date.now()) - lastEnd < (opts.prmWaitMs ?? 0);
    if (waiting && turnIds.some((t) => !scores.has(t))) return null;
    await db().$transaction(
      done.flatMap((e) =>
        e.steps.flatMap((s) => {
          const p = s.turnId ? scores.get(s.turnId) : undefined;
          if (!p) return [];
          s.prmScore = p.score;
          return [db().episodeStep.update({ where: { id: s.id }, data: { prmScore: p.score, prmVotes: p.votes } })];
        }),
      ),
    );
  }
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
