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
  /** scored on a fresh draw of seeds (serving.gate.confirm), not the common one */
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

/** How many of the newest candidates the gate asks to be evaluated on its draw (serving.gate.confirm). */
export const NEWEST_CANDIDATES = 2;

export interface GateCandidate {
  version: number;
  /** false when its checkpoint was pruned before it was evaluated */
  hasCheckpoint: boolean;
}

/** An evaluation the gate needs before it can decide: `version` on draw `draw` of the gate's set. */
export interface DueEvaluation {
  version: number;
  draw: number;
}

export interface GateVerdict {
  promote: number | null;
  /** the promotion's reason */
  reason: string | null;
  /** under serving.gate.confirm: the evaluations the decision waits for (the fresh draw's pair, a candidate's) */
  due: DueEvaluation[];
  held: { version: number; reason: string; scored: boolean }[];
}

/**
 * The gate over every candidate, on draw `draw` of seeds (`scoreOf(version, draw)`): each candidate is decided against
 * the served version on that draw; the passing one with the best score (newest on ties) wins. With `confirm`
 * (serving.gate.confirm) the winner is promoted only if it passes again on the next draw, where both it and the served
 * version are evaluated afresh (else the next passing one is tried there): the draw a version was selected on is its
 * luckiest, and a fresh draw for both keeps the comparison paired. The caller passes as `draw` the one the served
 * version's promotion was confirmed on (its `gateDraw`), so each promotion moves the comparison to a draw nobody was
 * selected on.
 */
export function decideCandidates(o: {
  candidates: readonly GateCandidate[];
  served: number;
  scoreOf: (version: number, draw: number) => VersionScore;
  draw: number;
  confirm: boolean;
  tolerance: number;
  floor?: number;
  label: string;
}): GateVerdict {
  const at = (version: number, draw: number) => ({ ...o.scoreOf(version, draw), confirmed: draw > 0 });
  const decideOn = (draw: number, candidate: VersionScore) =>
    decideGate({
      candidate,
      served: at(o.served, draw),
      tolerance: o.tolerance,
      floor: o.floor,
      label: o.label,
    });
  const verdict: GateVerdict = { promote: null, reason: null, due: [], held: [] };
  const need = (version: number, draw: number) => {
    if (
      o.confirm &&
      at(version, draw).mean === null &&
      !verdict.due.some((d) => d.version === version && d.draw === draw)
    )
      verdict.due.push({ version, draw });
  };
  need(o.served, o.draw);
  // of the candidates the newest two are evaluated on the draw (as the scheduler's common share); older ones are
  // decided once scored
  const newest = o.candidates.filter((c) => c.hasCheckpoint).slice(0, NEWEST_CANDIDATES);
  const decided = o.candidates.map((c) => {
    if (newest.includes(c)) need(c.version, o.draw);
    const score = at(c.version, o.draw);
    return {
      c,
      score,
      d: c.hasCheckpoint
        ? decideOn(o.draw, score)
        : ({ promote: false, reason: "checkpoint pruned before it was evaluated" } as GateDecision),
    };
  });
  const passing = decided
    .filter((x) => x.d.promote)
    .sort((a, b) => b.score.mean! - a.score.mean! || b.c.version - a.c.version);
  const reasons = new Map(decided.map((x) => [x.c.version, x.d.reason]));
  const next = o.draw + 1;
  let waiting: number | null = null;
  for (const x of passing) {
    if (verdict.promote !== null)
      reasons.set(x.c.version, `passed (${x.d.reason}) but v${verdict.promote} scored higher`);
    else if (waiting !== null) reasons.set(x.c.version, `passed (${x.d.reason}); v${waiting} is confirmed first`);
    else if (!o.confirm) [verdict.promote, verdict.reason] = [x.c.version, x.d.reason];
    else if (at(x.c.version, next).mean === null || at(o.served, next).mean === null) {
      waiting = x.c.version;
      need(x.c.version, next);
      need(o.served, next);
      reasons.set(x.c.version, `passed (${x.d.reason}); awaiting its confirmation on fresh seeds`);
    } else {
      const dc = decideOn(next, at(x.c.version, next));
      if (dc.promote) [verdict.promote, verdict.reason] = [x.c.version, `${dc.reason} (selected on ${x.d.reason})`];
      else reasons.set(x.c.version, `passed (${x.d.reason}) but not on fresh seeds: ${dc.reason}`);
    }
  }
  for (const x of decided)
    if (x.c.version !== verdict.promote)
      verdict.held.push({ version: x.c.version, reason: reasons.get(x.c.version)!, scored: x.score.mean !== null });
  return verdict;
}

/** Latest finished evaluation mean per version and draw, on one set version. */
async function evalMeans(experimentId: string, setVersionId: string) {
  const rows = await db().evaluation.findMany({
    where: { experimentId, setVersionId, status: { in: ["DONE", "PARTIAL"] } },
    select: { policyVersion: true, draw: true, mean: true },
  });
  return new Map(rows.map((r) => [`${r.policyVersion}:${r.draw}`, r]));
}

export interface GateOutcome {
  promoted: number | null;
  /** under serving.gate.confirm: the evaluations the gate waits for, which the scheduler queues */
  due: DueEvaluation[];
  held: { version: number; reason: string }[];
}

/** The gate on an eval set version's evaluations. */
export async function applyGate(
  experimentId: string,
  config: ExperimentConfig,
  setVersionId: string,
): Promise<GateOutcome> {
  if (config.serving.promotion !== "gated") return { promoted: null, due: [], held: [] };
  const means = await evalMeans(experimentId, setVersionId);
  return gateOnScores(
    experimentId,
    config,
    (v, draw) => ({ version: v, mean: means.get(`${v}:${draw}`)?.mean ?? null }),
    "eval",
    config.serving.gate.confirm,
  );
}

/**
 * Gate every CANDIDATE newer than the served version (decideCandidates) on `scoreOf` (an eval set's means, or held-out
 * pass@1 of episodes) — with `confirm` (serving.gate.confirm) on the draw the served version's promotion was confirmed
 * on, and a fresh one to confirm a winner — and promote the winner; the others keep (or get) the reason they are held
 * back.
 */
export async function gateOnScores(
  experimentId: string,
  config: ExperimentConfig,
  scoreOf: (version: number, draw: number) => VersionScore,
  label: string,
  confirm = false,
): Promise<GateOutcome> {
  if (config.serving.promotion !== "gated") return { promoted: null, due: [], held: [] };
  const active = await db().policyVersion.findFirst({
    where: { experimentId, status: "ACTIVE" },
    select: { version: true, gateDraw: true },
  });
  const servedVersion = active?.version ?? 0;
  const draw = confirm ? (active?.gateDraw ?? 0) : 0;
  const candidates = await db().policyVersion.findMany({
    where: { experimentId, status: "CANDIDATE", version: { gt: servedVersion }, runId: { not: null } },
    orderBy: { version: "desc" },
    select: { id: true, version: true, checkpointPath: true, gateReason: true },
  });
  if (!candidates.length) return { promoted: null, due: [], held: [] };
  const verdict = decideCandidates({
    candidates: candidates.map((c) => ({ version: c.version, hasCheckpoint: c.checkpointPath !== null })),
    served: servedVersion,
    scoreOf,
    draw,
    confirm,
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
  // confirmed on the next draw: the gate compares the next candidates there while this version is served
  if (verdict.promote !== null)
    await systemPromote(experimentId, verdict.promote, verdict.reason!, confirm ? draw + 1 : 0);
  return {
    promoted: verdict.promote,
    due: verdict.due,
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
