// The automatic rollback's rule, one definition for the shared policy (evaluation/gate.ts checkAutoRollback) and for
// each user's adapter (personalization/autoRollback.ts): roll back when the served version's live judged reward fell
// below the previous version's by more than the margin, with at least `minTurns` judged turns each.

export interface LiveReward {
  version: number;
  turns: number;
  /** mean judge score (−1…1) */
  reward: number;
}

const f = (x: number) => x.toFixed(3);

export function decideRollback(p: { served: LiveReward; previous: LiveReward; margin: number; minTurns: number }): {
  rollback: boolean;
  reason: string;
} {
  const { served, previous, margin, minTurns } = p;
  if (served.turns < minTurns || previous.turns < minTurns) {
    return {
      rollback: false,
      reason: `not enough judged turns (v${served.version}: ${served.turns}, v${previous.version}: ${previous.turns}; need ${minTurns} each)`,
    };
  }
  const drop = previous.reward - served.reward;
  const what = `live reward of v${served.version} ${f(served.reward)} vs v${previous.version} ${f(previous.reward)} over ≥ ${minTurns} turns each`;
  return drop > margin
    ? { rollback: true, reason: `${what}: dropped ${f(drop)} > margin ${f(margin)}` }
    : { rollback: false, reason: `${what}: within margin ${f(margin)}` };
}
