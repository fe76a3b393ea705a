// Choosing among a turn's hint candidates at train time, as upstream OpenClaw-RL does in its multi-candidate
// top-K OPD (openclaw-combine/hint_opd_select_loss.py `_overlap_count_per_token` / `_select_k_star_per_token`
// and slime/slime/backends/megatron_utils/actor.py `_select_teacher_cand_per_sample` @f48ac35):
//
//   O[k, t] = | S^q_t ∩ S^p_{t,k} |     (the student's top-K tokens at response position t, and candidate k's)
//   token_optimal    : k*(t) = argmax_k O[k, t]
//   sequence_optimal : k*    = argmax_k Σ_t O[k, t], one candidate for the whole response (the openclaw-combine
//                      pipeline ships no step spans, so upstream's per-step rule falls back to the sequence)
//   shortest         : k* = 0 (the judge orders candidates shortest first)
//
// argmax is torch's: the first maximal index wins a tie, so an uninformative overlap keeps the shorter hint.
// Plain arrays: the inputs are tiny ([K, R, topK]) and the choice is data, not part of the gradient.
import { z } from "zod";

export const TRAIN_HINT_SELECTIONS = ["shortest", "token_optimal", "sequence_optimal"] as const;
export const trainHintSelectionSchema = z.enum(TRAIN_HINT_SELECTIONS);
export type TrainHintSelection = z.infer<typeof trainHintSelectionSchema>;

/** Indices of the k largest values, largest first (equal values: the lower index first). */
export function topKIndices(values: ArrayLike<number>, k: number): number[] {
  const idx = Array.from({ length: values.length }, (_, i) => i);
  idx.sort((a, b) => values[b] - values[a] || a - b);
  return idx.slice(0, Math.min(k, values.length));
}

/** O[k][t]: how many of the student's top-K tokens at position t are among candidate k's top-K there. */
export function overlapCounts(
  student: readonly (readonly number[])[],
  teacher: readonly (readonly (readonly number[])[])[],
): number[][] {
  return teacher.map((cand, k) => {
    if (cand.length !== student.length)
      throw new Error(`candidate ${k} has ${cand.length} positions, the student ${student.length}`);
    return cand.map((tTop, t) => {
      const set = new Set(tTop);
      return student[t].reduce((n, id) => n + (set.has(id) ? 1 : 0), 0);
    });
  });
}

function argmaxFirst(values: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** k*(t) for every response position, from the overlap matrix O[K][R]. */
export function selectCandidatePerToken(overlap: readonly (readonly number[])[], mode: TrainHintSelection): number[] {
  const K = overlap.length;
  const R = overlap[0]?.length ?? 0;
  if (mode === "shortest" || K <= 1) return new Array<number>(R).fill(0);
  if (mode === "token_optimal") return Array.from({ length: R }, (_, t) => argmaxFirst(overlap.map((row) => row[t])));
  const k = argmaxFirst(overlap.map((row) => row.reduce((a, b) => a + b, 0)));
  return new Array<number>(R).fill(k);
}
