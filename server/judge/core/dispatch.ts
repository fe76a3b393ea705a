// Which training sample a judged turn produces (OpenClaw-RL `openclaw-rl/openclaw_api_server.py` exclusion rules; `openclaw-combine` combine table).
import type { Dispatch, JudgeMethod, VoteValue } from "./schemas";

export type DispatchInput = {
  method: JudgeMethod;
  hasNextState: boolean;
  /** Majority PRM score (grpo) or eval-vote majority (opd/combine). */
  score: VoteValue;
  /** A hint was accepted AND the teacher scored it; OPD needs teacher log-probs. */
  hintUsable: boolean;
};

export const EXCLUDE_REASONS = {
  noNextState: "no_next_state",
  zeroScore: "zero_score",
  noHint: "no_valid_hint",
  nothing: "no_hint_and_zero_eval",
} as const;

/**
 * grpo: an RL sample with reward = score, excluded (kept, loss-masked) without next state or at score 0.
 * opd: an OPD sample (reward 0) when a hint is usable; eval votes are only a metric.
 * combine: hint + eval ±1 → BOTH (reward = eval); hint only → OPD (reward 0); eval only → RL; else none.
 */
export function dispatchTurn({ method, hasNextState, score, hintUsable }: DispatchInput): Dispatch {
  const none = (kind: Dispatch["kind"], reason: string): Dispatch => ({
    kind,
    reward: 0,
    excluded: true,
    excludeReason: reason,
  });
  if (method === "grpo") {
    if (!hasNextState) return none("RL", EXCLUDE_REASONS.noNextState);
    if (score === 0) return none("RL", EXCLUDE_REASONS.zeroScore);
    return { kind: "RL", reward: score, excluded: false, excludeReason: null };
  }
  if (!hasNextState) return none(null, EXCLUDE_REASONS.noNextState);
  if (method === "opd") {
    return hintUsable
      ? { kind: "OPD", reward: 0, excluded: false, excludeReason: null }
      : none(null, EXCLUDE_REASONS.noHint);
  }
  if (hintUsable && score !== 0) return { kind: "BOTH", reward: score, excluded: false, excludeReason: null };
  if (hintUsable) return { kind: "OPD", reward: 0, excluded: false, excludeReason: null };
  if (score !== 0) return { kind: "RL", reward: score, excluded: false, excludeReason: null };
  return none(null, EXCLUDE_REASONS.nothing);
}
