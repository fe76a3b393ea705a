// The "is it learning?" report of an experiment: the verdict (verdict.ts) and the numbers behind it, per version —
// judged first replies against every reply, the held-out pass rate, the hint acceptance rate — and sessions until
// a stable effect, overall and per simulated user.
import type { z } from "zod";
import type { Principal } from "../access/principal";
import { db } from "../platform/db/client";
import { simulationProgress, turnVersionSql } from "../simulation/service";
import type { LearningReportInput } from "./schemas";
import { firstReplyBySession, sessionsUntilStable } from "../trajectories/stableEffect";
import { learningVerdict, recentFirstReplies } from "./verdict";

export async function learningReport(p: Principal, input: z.output<typeof LearningReportInput>) {
  // Step 1: judged rewards per version (access is checked there).
  const progress = await simulationProgress(p, { experimentId: input.experimentId, versions: 500 });
  const experimentId = progress.experimentId;
  // Step 2: the rest, from the same experiment.
  const [heldOut, hints, sessions] = await Promise.all([
    heldOutScores(experimentId),
    hintAcceptance(experimentId, progress.versionsOf === "adapter"),
    firstReplyBySession(experimentId),
  ]);
  // Step 3: per version, one row a chart can draw.
  const hintsBy = new Map(hints.map((h) => [h.version, h]));
  const heldOutBy = new Map(heldOut.rows.map((h) => [h.version, h.mean]));
  const all = [
    ...(progress.base && !progress.versions.some((v) => v.version === 0) ? [progress.base] : []),
    ...progress.versions,
  ];
  const versions = all.map((v) => ({
    version: v.version,
    turns: v.turns,
    reward: v.reward,
    firstTurns: v.firstTurns,
    firstReward: v.firstReward,
    heldOut: heldOutBy.get(v.version) ?? null,
    hinted: hintsBy.get(v.version)?.hinted ?? 0,
    hintAcceptance: hintsBy.get(v.version)?.acceptance ?? null,
  }));
  // Step 4: the verdict, and sessions until a stable effect.
  const verdict = learningVerdict({
    base: progress.base,
    recent: recentFirstReplies(progress.versions),
    heldOut: heldOut.comparison,
  });
  const byPersona = new Map<string, boolean[]>();
  for (const s of sessions) {
    const key = s.persona ?? "unsimulated";
    byPersona.set(key, [...(byPersona.get(key) ?? []), s.held]);
  }
  return {
    experimentId,
    versionsOf: progress.versionsOf,
    ...verdict,
    versions,
    stableEffect: {
      sessions: sessions.length,
      sessionsUntilStable: sessionsUntilStable(sessions.map((s) => s.held)),
      byUser: [...byPersona].map(([user, held]) => ({
        user,
        sessions: held.length,
        sessionsUntilStable: sessionsUntilStable(held),
      })),
    },
  };
}

/**
 * Held-out pass rate per version on one eval set version (the newest trained version's), so the base and the
 * trained versions are compared on the same items; the comparison needs the base evaluated on it too.
 */
async function heldOutScores(experimentId: string) {
  const evals = await db().evaluation.findMany({
    where: { experimentId, draw: 0, status: { in: ["DONE", "PARTIAL"] }, mean: { not: null } },
    select: { policyVersion: true, setVersionId: true, mean: true },
    orderBy: [{ policyVersion: "desc" }, { createdAt: "desc" }],
  });
  const newest = evals.find((e) => e.policyVersion > 0);
  const set = newest?.setVersionId ?? evals[0]?.setVersionId;
  const rows = evals.filter((e) => e.setVersionId === set).map((e) => ({ version: e.policyVersion, mean: e.mean! }));
  const base = rows.find((r) => r.version === 0);
  return {
    rows,
    comparison: newest && base ? { base: base.mean, latest: newest.mean!, latestVersion: newest.policyVersion } : null,
  };
}

/** Per version: the judgments that asked for a hint, and the share whose hint was accepted. */
async function hintAcceptance(experimentId: string, byAdapter: boolean) {
  const rows = await db().$queryRaw<{ version: number; hinted: number; accepted: number }[]>`
    SELECT ${turnVersionSql(byAdapter)} AS version, count(*)::int AS hinted,
      count(*) FILTER (WHERE j."hintAccepted")::int AS accepted
    FROM judgments j JOIN turns t ON t.id = j."turnId"
    WHERE t."experimentId" = ${experimentId}
      AND EXISTS (SELECT 1 FROM judge_votes v WHERE v."judgmentId" = j.id AND v.kind = 'hint')
    GROUP BY 1`;
  return rows.map((r) => ({ version: r.version, hinted: r.hinted, acceptance: r.accepted / r.hinted }));
}

export type LearningReport = Awaited<ReturnType<typeof learningReport>>;
