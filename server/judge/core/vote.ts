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

/** How the accepted hint is chosen: the reference's longest, or upstream's candidate selection (hintCandidates). */
export type HintSelection = "longest" | "shortest" | "token_optimal" | "sequence_optimal";

/**
 * The hint candidates of a turn, as upstream's multi-candidate judge keeps them
 * (openclaw-combine/openclaw_combine_select_api_server.py `_opd_evaluate` @f48ac35): votes that said 1 with a
 * trimmed hint longer than 10 characters, deduplicated by trimmed text, shortest first (a stable sort, so
 * equal lengths keep vote order). Candidate 0 is what `--hint-selection shortest` trains on; token_optimal and
 * sequence_optimal choose among all of them at train time (server/engine/hintSelection.ts). Their number is
 * bounded by the hint calls (hintM), as the launcher passes the same value as `--hint-m` and
 * OPENCLAW_TOPK_MAX_CAND.
 */
export function hintCandidates(
  votes: readonly { value: number | null; hint: string | null }[],
): { index: number; hint: string }[] {
  const seen = new Set<string>();
  const out: { index: number; hint: string }[] = [];
  for (const [index, vote] of votes.entries()) {
    const hint = vote.hint?.trim() ?? "";
    if (vote.value !== 1 || hint.length <= MIN_HINT_CHARS || seen.has(hint)) continue;
    seen.add(hint);
    out.push({ index, hint });
  }
  return out.sort((a, b) => a.hint.length - b.hint.length || a.index - b.index);
}

/**
 * The accepted hint: among votes that said 1 with a trimmed hint longer than 10 characters, the longest (the
 * reference, the first one on equal length) or, for upstream's selection modes, the shortest candidate (the
 * one `shortest` trains on, and the one the judge scores the teacher on for the train-time modes).
 * Null means no OPD sample for this turn.
 */
export function selectBestHint(
  votes: readonly { value: number | null; hint: string | null }[],
  selection: HintSelection = "longest",
): { index: number; hint: string } | null {
  if (selection !== "longest") return hintCandidates(votes)[0] ?? null;
  let best: { index: number; hint: string } | null = null;
  for (const [index, vote] of votes.entries()) {
    const hint = vote.hint?.trim() ?? "";
    if (vote.value !== 1 || hint.length <= MIN_HINT_CHARS) continue;
    if (hint.length > (best?.hint.length ?? -1)) best = { index, hint };
  }
  return best;
}
