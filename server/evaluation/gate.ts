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
  /** scored on a confirmation draw (fresh seeds, serving.gate.confirm), not the draw it was selected on */
  confirmed?: boolean;
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
  (s.confirmed ? "on fresh seeds " : "") +
  (s.low != null && s.high != null ? `${f(s.mean!)} [${f(s.low)}, ${f(s.high)}]` : f(s.mean!));

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

export interface GateCandidate {
  version: number;
  /** false when its checkpoint was pruned before it was evaluated */
  hasCheckpoint: boolean;
}

export interface GateVerdict {
  promote: number | null;
  /** the promotion's reason */
  reason: string | null;
  /** the winner on the selection draw, awaiting its confirmation draw (serving.gate.confirm) */
  confirming: number | null;
  held: { version: number; reason: string; scored: boolean }[];
}

/**
 * The gate over every candidate: each is decided on `scoreOf` (the selection draw); the passing one with the best
 * score (newest on ties) wins. With `confirmOf` (serving.gate.confirm) the winner is promoted only once its score on
 * fresh seeds passes too (else the next passing one is tried), and the served version is held to its own fresh-seed
 * score when it has one: the draw a version was selected on is its luckiest, so a bar set by it would freeze promotion.
 */
export function decideCandidates(o: {
  candidates: readonly GateCandidate[];
  served: number;
  scoreOf: (version: number) => VersionScore;
  confirmOf?: (version: number) => VersionScore;
  tolerance: number;
  floor?: number;
  label: string;
}): GateVerdict {
  const fresh = o.confirmOf?.(o.served);
  const served = fresh && fresh.mean !== null ? { ...fresh, confirmed: true } : o.scoreOf(o.served);
  const decide = (candidate: VersionScore) =>
    decideGate({ candidate, served, tolerance: o.tolerance, floor: o.floor, label: o.label });
  const decided = o.candidates.map((c) => ({
    c,
    score: o.scoreOf(c.version),
    d: c.hasCheckpoint
      ? decide(o.scoreOf(c.version))
      : ({ promote: false, reason: "checkpoint pruned before it was evaluated" } as GateDecision),
  }));
  const passing = decided
    .filter((x) => x.d.promote)
    .sort((a, b) => b.score.mean! - a.score.mean! || b.c.version - a.c.version);
  const verdict: GateVerdict = { promote: null, reason: null, confirming: null, held: [] };
  const reasons = new Map(decided.map((x) => [x.c.version, x.d.reason]));
  for (const x of passing) {
    if (verdict.promote !== null)
      reasons.set(x.c.version, `passed (${x.d.reason}) but v${verdict.promote} scored higher`);
    else if (verdict.confirming !== null)
      reasons.set(x.c.version, `passed (${x.d.reason}); v${verdict.confirming} is confirmed first`);
    else if (!o.confirmOf) [verdict.promote, verdict.reason] = [x.c.version, x.d.reason];
    else {
      const c = { ...o.confirmOf(x.c.version), confirmed: true };
      if (c.mean === null) {
        verdict.confirming = x.c.version;
        reasons.set(x.c.version, `passed (${x.d.reason}); awaiting its confirmation on fresh seeds`);
        continue;
      }
      const dc = decide(c);
      if (dc.promote) [verdict.promote, verdict.reason] = [x.c.version, `${dc.reason} (selected on ${x.d.reason})`];
      else
        reasons.set(x.c.version, `passed on its selection draw (${x.d.reason}) but not on fresh seeds: ${dc.reason}`);
    }
  }
  for (const x of decided)
    if (x.c.version !== verdict.promote)
      verdict.held.push({ version: x.c.version, reason: reasons.get(x.c.version)!, scored: x.score.mean !== null });
  return verdict;
}

/** Latest finished evaluation mean per version, on one set version: the selection draw's and the confirmation's. */
async function evalMeans(experimentId: string, setVersionId: string) {
  const rows = await db().evaluation.findMany({
    where: { experimentId, setVersionId, status: { in: ["DONE", "PARTIAL"] } },
    select: { policyVersion: true, draw: true, mean: true },
  });
  const of = (draw: number) => new Map(rows.filter((r) => r.draw === draw).map((r) => [r.policyVersion, r.mean]));
  return { selection: of(0), confirmation: of(1) };
}

export interface GateOutcome {
  promoted: number | null;
  /** a version awaiting its confirmation draw: the scheduler queues it (draw 1) */
  confirming: number | null;
  held: { version: number; reason: string }[];
}

/** The gate on an eval set version's evaluations. */
export async function applyGate(
  experimentId: string,
  config: ExperimentConfig,
  setVersionId: string,
): Promise<GateOutcome> {
  if (config.serving.promotion !== "gated") return { promoted: null, confirming: null, held: [] };
  const { selection, confirmation } = await evalMeans(experimentId, setVersionId);
  const scores = (means: Map<number, number | null>) => (v: number) => ({ version: v, mean: means.get(v) ?? null });
  return gateOnScores(
    experimentId,
    config,
    scores(selection),
    "eval",
    config.serving.gate.confirm ? scores(confirmation) : undefined,
  );
}

/**
 * Gate every CANDIDATE newer than the served version (decideCandidates) on `scoreOf` (an eval set's means, or held-out
 * pass@1 of episodes) and, under serving.gate.confirm, `confirmOf`: promote the winner; the others keep (or get) the
 * reason they are held back.
 */
export async function gateOnScores(
  experimentId: string,
  config: ExperimentConfig,
  scoreOf: (version: number) => VersionScore,
  label: string,
  confirmOf?: (version: number) => VersionScore,
): Promise<GateOutcome> {
  if (config.serving.promotion !== "gated") return { promoted: null, confirming: null, held: [] };
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
  if (!candidates.length) return { promoted: null, confirming: null, held: [] };
  const verdict = decideCandidates({
    candidates: candidates.map((c) => ({ version: c.version, hasCheckpoint: c.checkpointPath !== null })),
    served: servedVersion,
    scoreOf,
    confirmOf,
    tolerance: config.serving.gate.tolerance,
    floor: config.serving.gate.floor,
    label,
  });
  for (const h of verdict.held) {
    const c = candidates.find((x) => x.version === h.version)!;
    if (c.gateReason === h.reason) continue;
    // A changed verdict is a decision: audited like a promotion (waiting for an evaluation is not one).
    await db().$transaction(async (tx) => {
      await tx.policyVersion.update({ where: { id: c.id }, data: { gateReason: h.reason } });
      if (h.scored)
        await audit(
          tx,
          null,
          "policyVersion.gateHold",
          "experiment",
          experimentId,
          { version: c.version, gateReason: c.gateReason },
          { version: c.version, gateReason: h.reason, servedVersion },
        );
    });
  }
  if (verdict.promote !== null) await systemPromote(experimentId, verdict.promote, verdict.reason!);
  return {
    promoted: verdict.promote,
    confirming: verdict.confirming,
    held: verdict.held.map(({ version, reason }) => ({ version, reason })),
  };
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
