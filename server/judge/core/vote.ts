// Aggregation of judge votes (OpenClaw-RL `openclaw_api_server.py` `_majority_vote`, `openclaw-opd/openclaw_opd_api_server.py` `_select_best_hint`).
import type { VoteValue } from "./schemas";

/**
 * Majority of the valid votes. Failed votes (null) are dropped; no valid vote gives 0, and a tie for
 * the top count gives 0, so only a clear plurality produces a non-zero reward.
 */
export function majorityVote(values: readonly (VoteValue | null)[]): VoteValue {
  const counts = new Map<VoteValue, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: VoteValue = 0;
  let bestCount = 0;
  let tied = false;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
      tied = false;
    } else if (count === bestCount) {
      tied = true;
    }
  }
  return bestCount === 0 || tied ? 0 : best;
}

/** Mean of the valid votes, or null when there is none (the `rollout/prm_eval_score` metric). */
export function meanVote(values: readonly (VoteValue | null)[]): number | null {
  const valid = values.filter((v): v is VoteValue => v !== null);
  if (valid.length === 0) return null;
  return valid.reduce<number>((sum, v) => sum + v, 0) / valid.length;
}

export const MIN_HINT_CHARS = 10;

/**
 * The accepted hint: among votes that said 1 with a trimmed hint longer than 10 characters, the
 * longest (the reference) or the shortest (upstream's later option), the first one on equal length.
 * Null means no OPD sample for this turn.
 */
export function selectBestHint(
  votes: readonly { value: number | null; hint: string | null }[],
  selection: "longest" | "shortest" = "longest",
): { index: number; hint: string } | null {
  let best: { index: number; hint: string } | null = null;
  for (const [index, vote] of votes.entries()) {
    const hint = vote.hint?.trim() ?? "";
    if (vote.value !== 1 || hint.length <= MIN_HINT_CHARS) continue;
    const better =
      selection === "longest" ? hint.length > (best?.hint.length ?? -1) : hint.length < (best?.hint.length ?? Infinity);
    if (better) best = { index, hint };
  }
  return best;
}
