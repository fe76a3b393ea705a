// The promotion gate and the automatic rollback. Pure decisions first (decideGate; decideRollback, shared with the
// per-user rollback, in policyVersions/rollbackRule.ts), then
// their application: promote or roll back through policyVersions' own transactions (audited, announced on
// the policy-version channel like a manual promote/rollback), or record on each held-back candidate why
// (audited as policyVersion.gateHold; the evaluation channel announces every gate pass).
import { db } from "../platform/db/client";
import type { ExperimentConfig } from "../config/experimentConfig";
import { decideRollback, type LiveReward } from "../policyVersions/rollbackRule";
import { systemPromote, systemRollback } from "../policyVersions/service";
import { audit } from "../access/audit";

/** A version's score; `low`/`high` its 95% interval when the score has one (held-out pass@1: Wilson). */
export interface VersionScore {
  version: number;
  mean: number | null;
  low?: number | null;
  high?: number | null;
}

export interface GateInput {
  candidate: VersionScore;
  served: VersionScore;
  tolerance: number;
  floor?: number;
  /** What the score is, in the reason: "eval" (an eval set's mean) or "held-out pass@1" (episodes). */
  label?: string;
}

export type GateDecision = { promote: true; reason: string } | { promote: false; reason: string };

const f = (x: number) => x.toFixed(3);
const withCi = (s: VersionScore) =>
  s.low != null && s.high != null ? `${f(s.mean!)} [${f(s.low)}, ${f(s.high)}]` : f(s.mean!);

/** Promote when the candidate's score ≥ the served one's − tolerance (and ≥ the floor); the reason says both. */
export function decideGate({ candidate, served, tolerance, floor, label = "eval" }: GateInput): GateDecision {
  if (candidate.mean === null) return { promote: false, reason: "awaiting evaluation (gated promotion)" };
  if (served.mean === null)
    return { promote: false, reason: `awaiting the evaluation of served version ${served.version}` };
  if (floor !== undefined && candidate.mean < floor)
    return { promote: false, reason: `${label} ${withCi(candidate)} is below the floor ${f(floor)}` };
  const bar = served.mean - tolerance;
  const versus = `served v${served.version}'s ${withCi(served)} − tolerance ${f(tolerance)}`;
  if (candidate.mean < bar) return { promote: false, reason: `${label} ${withCi(candidate)} < ${versus}` };
  return { promote: true, reason: `${label} ${withCi(candidate)} ≥ ${versus}` };
}

/** Latest finished evaluation mean per version, on one set version. */
async function evalMeans(experimentId: string, setVersionId: string): Promise<Map<number, number | null>> {
  const rows = await db().evaluation.findMany({
    where: { experimentId, setVersionId, status: { in: ["DONE", "PARTIAL"] } },
    select: { policyVersion: true, mean: true },
  });
  return new Map(rows.map((r) => [r.policyVersion, r.mean]));
}

export interface GateOutcome {
  promoted: number | null;
  held: { version: number; reason: string }[];
}

/** The gate on an eval set version's evaluations. */
export async function applyGate(
  experimentId: string,
  config: ExperimentConfig,
  setVersionId: string,
): Promise<GateOutcome> {
  if (config.serving.promotion !== "gated") return { promoted: null, held: [] };
  const means = await evalMeans(experimentId, setVersionId);
  return gateOnScores(experimentId, config, (v) => ({ version: v, mean: means.get(v) ?? null }), "eval");
}

/**
 * Gate every CANDIDATE newer than the served version on `scoreOf` (an eval set's means, or held-out pass@1
 * of episodes): the passing one with the best score (newest on ties) is promoted; the others keep (or get)
 * the reason they are held back.
 */
export async function gateOnScores(
  experimentId: string,
  config: ExperimentConfig,
  scoreOf: (version: number) => VersionScore,
  label: string,
): Promise<GateOutcome> {
  if (config.serving.promotion !== "gated") return { promoted: null, held: [] };
  const active = await db().policyVersion.findFirst({
    where: { experimentId, status: "ACTIVE" },
    select: { version: true },
  });
  const servedVersion = active?.version ?? 0;
  const candidates = await db().policyVersion.findMany({
    where: { experimentId, status: "CANDIDATE", version: { gt: servedVersion }, runId: { not: null } },
    orderBy: { version: "desc" },
    select: { id: true, version: true, checkpointPath: true, gateReason: true },
  });
  if (!candidates.length) return { promoted: null, held: [] };
  const served = scoreOf(servedVersion);
  const decided = candidates.map((c) => ({
    c,
    mean: scoreOf(c.version).mean,
    d: c.checkpointPath
      ? decideGate({
          candidate: scoreOf(c.version),
          served,
          tolerance: config.serving.gate.tolerance,
          floor: config.serving.gate.floor,
          label,
        })
      : ({ promote: false, reason: "checkpoint pruned before it was evaluated" } as GateDecision),
  }));
  const winner = decided.filter((x) => x.d.promote).sort((a, b) => b.mean! - a.mean! || b.c.version - a.c.version)[0];
  const held: GateOutcome["held"] = [];
  for (const x of decided) {
    if (x === winner) continue;
    const reason = winner && x.d.promote ? `passed (${x.d.reason}) but v${winner.c.version} scored higher` : x.d.reason;
    held.push({ version: x.c.version, reason });
    if (x.c.gateReason === reason) continue;
    // A changed verdict is a decision: audited like a promotion (waiting for an evaluation is not one).
    await db().$transaction(async (tx) => {
      await tx.policyVersion.update({ where: { id: x.c.id }, data: { gateReason: reason } });
      if (x.mean !== null)
        await audit(
          tx,
          null,
          "policyVersion.gateHold",
          "experiment",
          experimentId,
          { version: x.c.version, gateReason: x.c.gateReason },
          { version: x.c.version, gateReason: reason, servedVersion },
        );
    });
  }
  if (winner) await systemPromote(experimentId, winner.c.version, winner.d.reason);
  return { promoted: winner?.c.version ?? null, held };
}

/** Judged reward of the main turns each version served (the latest judgment per turn). */
export async function liveRewards(experimentId: string, versions: readonly number[]): Promise<Map<number, LiveReward>> {
  if (!versions.length) return new Map();
  const rows = await db().$queryRaw<{ version: number; turns: number; reward: number }[]>`
    SELECT t."policyVersion" AS version, count(*)::int AS turns, avg(j.score)::float8 AS reward
    FROM turns t
    JOIN LATERAL (SELECT score FROM judgments WHERE "turnId" = t.id ORDER BY "createdAt" DESC LIMIT 1) j ON true
    WHERE t."experimentId" = ${experimentId} AND t."turnType" = 'MAIN' AND t.status = 'OK' AND t."nextStateAt" IS NOT NULL
      AND t."policyVersion" = ANY(${[...versions]}::int[])
    GROUP BY t."policyVersion"`;
  return new Map(rows.map((r) => [r.version, r]));
}

/** Roll the served version back to its parent when its live reward fell below the parent's by the margin. */
export async function checkAutoRollback(
  experimentId: string,
  config: ExperimentConfig,
): Promise<{ rolledBack: boolean; reason: string } | null> {
  const rb = config.serving.autoRollback;
  if (!rb.enabled) return null;
  const active = await db().policyVersion.findFirst({
    where: { experimentId, status: "ACTIVE" },
    select: { version: true, parentVersion: true },
  });
  if (!active || active.version === 0) return null;
  const previous = active.parentVersion ?? 0;
  const rewards = await liveRewards(experimentId, [active.version, previous]);
  const none = (version: number): LiveReward => ({ version, turns: 0, reward: 0 });
  const d = decideRollback({
    served: rewards.get(active.version) ?? none(active.version),
    previous: rewards.get(previous) ?? none(previous),
    margin: rb.margin,
    minTurns: rb.minTurns,
  });
  if (!d.rollback) return { rolledBack: false, reason: d.reason };
  await systemRollback(experimentId, previous, d.reason);
  return { rolledBack: true, reason: d.reason };
}
