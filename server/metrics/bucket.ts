// Planning the server-side downsampling of one metric series to at most `maxPoints` points that keep each
// bucket's min, max and last value (the W&B "full fidelity" idea: spikes survive, the line shows the last
// value). Sources are the pre-aggregated rollups (widths 16^k) or raw points; output buckets are whole
// multiples of the source width and aligned to it, so no source row ever straddles two output buckets.
import type { Axis } from "./schemas";

/** Bucket width of each rollup level (index 0 = level 1), as the migration's trigger computes them. */
export const LEVEL_WIDTHS: Record<Axis, readonly number[]> = {
  step: [16, 256, 4096, 65536],
  time: [16_000, 256_000, 4_096_000, 65_536_000],
};

export const TOP_LEVEL: Record<Axis, number> = { step: LEVEL_WIDTHS.step.length, time: LEVEL_WIDTHS.time.length };

export interface BucketPoint {
  /** x of the bucket's last value (step, or epoch ms). */
  x: number;
  last: number;
  min: number;
  max: number;
  mean: number;
  count: number;
  step: number | null;
  ts: number;
}

export interface BucketPlan {
  /** 0 = raw points; otherwise the rollup level read. */
  level: number;
  sourceWidth: number;
  /** Output bucket width, a multiple of sourceWidth. */
  width: number;
  /** Start of the first output bucket (aligned to sourceWidth). */
  origin: number;
}

/** Picks the coarsest source still finer than the buckets the range needs, so at most ~16 × maxPoints rows are read. */
export function planBuckets(axis: Axis, lo: number, hi: number, maxPoints: number): BucketPlan {
  const span = Math.max(1, hi - lo + 1);
  const needed = Math.max(1, Math.ceil(span / maxPoints));
  const widths = LEVEL_WIDTHS[axis];
  let level = 0;
  for (let k = 0; k < widths.length; k++) if (widths[k]! <= needed) level = k + 1;
  const sourceWidth = level === 0 ? 1 : widths[level - 1]!;
  const origin = Math.floor(lo / sourceWidth) * sourceWidth;
  let width = Math.ceil(needed / sourceWidth) * sourceWidth;
  // Aligning the origin down can add one bucket at the end; widen until the count fits.
  while (Math.floor((hi - origin) / width) + 1 > maxPoints) width += sourceWidth;
  return { level, sourceWidth, width, origin };
}
