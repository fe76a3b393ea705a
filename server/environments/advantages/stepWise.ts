// The `step_wise` advantage estimator, with the semantics of the OpenClaw-RL fork of slime
// (toininoi/openclaw-rl @ f48ac358adf9873b5cb2210f1cb234a52ed8a8a3):
// slime/slime/ray/rollout.py::_post_process_step_wise_rewards and the `step_wise` branch of
// slime/slime/backends/megatron_utils/loss.py. Pure: no I/O, numbers in, numbers out.
//
// - A step's reward is `stepScoresWithOutcome` when non-empty, else `stepScores` (Python's `a or b`).
// - Spans that are not two numbers are dropped first, then rewards, spans and indices are trimmed to the
//   shortest of the three (so a bad span shifts the alignment, as upstream's does).
// - With normalisation on (slime's default; --disable-rewards-normalization turns it off), rewards are
//   z-normalised per bucket (task group, step index) across the group's trajectories, with the population
//   variance and std + 1e-6. A bucket of one keeps its raw value. A bucket with more than one member and
//   variance ≤ 1e-12 is dropped — unless every bucket is, then the first one seen is kept. A sample left
//   with no step is removed (its loss mask becomes all zeros).
// - The loss broadcasts each kept step's scalar over its token span [start, end) of the response (spans
//   outside the response are skipped), multiplies by the loss mask, and skips global normalisation.

export interface StepWiseSample {
  /** The task group (GRPO group) the trajectory belongs to; upstream uses -1 when it has none. */
  group: number | null;
  stepScores: number[];
  stepScoresWithOutcome?: number[];
  /** Step numbers, so buckets align steps across trajectories; default 0, 1, 2, … */
  stepIndices?: number[];
  /** [start, end) token offsets of each step within the response. */
  stepTokenSpans: (readonly [number | null, number | null] | readonly number[] | null)[];
}

export interface StepWiseResult {
  /** Per sample, the kept steps' (normalised) rewards, indices and spans, in step order. */
  steps: { rewards: number[]; indices: number[]; spans: [number, number][]; removed: boolean }[];
  /** Buckets dropped as constant, as "group:index". */
  droppedBuckets: string[];
  keptBuckets: string[];
}

const VAR_EPS = 1e-12;
const STD_EPS = 1e-6;

interface Stat {
  sum: number;
  sumSq: number;
  count: number;
}

const keyOf = (group: number, index: number) => `${group}:${index}`;

function variance(s: Stat): number {
  const mean = s.sum / s.count;
  return Math.max(s.sumSq / s.count - mean * mean, 0);
}

export function stepWiseAdvantages(samples: StepWiseSample[], opts: { normalize?: boolean } = {}): StepWiseResult {
  const normalize = opts.normalize ?? true;
  const aligned = samples.map((s) => {
    const rewards = (s.stepScoresWithOutcome?.length ? s.stepScoresWithOutcome : s.stepScores).map(Number);
    const indices = s.stepIndices ? s.stepIndices.map((i) => Math.trunc(i)) : rewards.map((_, i) => i);
    const spans = s.stepTokenSpans
      .filter((sp): sp is readonly number[] => Array.isArray(sp) && sp.length === 2 && sp[0] != null && sp[1] != null)
      .map((sp) => [Math.trunc(sp[0]), Math.trunc(sp[1])] as [number, number]);
    const n = Math.min(rewards.length, indices.length, spans.length);
    return {
      group: s.group ?? -1,
      rewards: rewards.slice(0, n),
      indices: indices.slice(0, n),
      spans: spans.slice(0, n),
    };
  });
  if (!normalize)
    return {
      steps: aligned.map((a) => ({ rewards: a.rewards, indices: a.indices, spans: a.spans, removed: false })),
      droppedBuckets: [],
      keptBuckets: [],
    };

  // Map iteration order is insertion order, like the Python dict upstream, so "the first bucket" matches.
  const stats = new Map<string, Stat>();
  for (const a of aligned)
    a.rewards.forEach((v, pos) => {
      const k = keyOf(a.group, a.indices[pos]);
      const s = stats.get(k) ?? { sum: 0, sumSq: 0, count: 0 };
      stats.set(k, { sum: s.sum + v, sumSq: s.sumSq + v * v, count: s.count + 1 });
    });
  const all = [...stats.keys()];
  let dropped = all.filter((k) => {
    const s = stats.get(k)!;
    return s.count > 1 && variance(s) <= VAR_EPS;
  });
  let kept = all.filter((k) => !dropped.includes(k));
  if (kept.length === 0 && all.length > 0) {
    kept = [all[0]];
    dropped = dropped.filter((k) => k !== all[0]);
  }
  const keep = new Set(kept);

  const steps = aligned.map((a) => {
    const out = { rewards: [] as number[], indices: [] as number[], spans: [] as [number, number][], removed: false };
    a.rewards.forEach((raw, pos) => {
      const k = keyOf(a.group, a.indices[pos]);
      if (!keep.has(k)) return;
      const s = stats.get(k)!;
      const v = s.count > 1 ? (raw - s.sum / s.count) / (Math.sqrt(variance(s)) + STD_EPS) : raw;
      out.rewards.push(v);
      out.indices.push(a.indices[pos]);
      out.spans.push(a.spans[pos]);
    });
    out.removed = out.rewards.length === 0;
    return out;
  });
  return { steps, droppedBuckets: dropped, keptBuckets: kept };
}

/**
 * One sample's per-token advantages: each kept step's scalar over its span, zero elsewhere, times the loss
 * mask; a removed sample trains on nothing.
 */
export function broadcastStepAdvantages(
  step: StepWiseResult["steps"][number],
  responseLength: number,
  lossMask: readonly number[] = new Array<number>(responseLength).fill(1),
): number[] {
  const adv = new Array<number>(responseLength).fill(0);
  if (step.removed) return adv;
  step.rewards.forEach((r, pos) => {
    const [start, end] = step.spans[pos];
    if (!(start >= 0 && start < end && end <= responseLength)) return;
    for (let t = start; t < end; t++) adv[t] = r;
  });
  return adv.map((a, t) => ((lossMask[t] ?? 0) === 0 ? 0 : a * lossMask[t]));
}
