// Debiased exponential moving average, as TensorBoard and W&B smooth training curves: the running average
// starts at zero weight, so dividing by (1 − α^n) removes the pull toward 0 at the start of the series.
// Pure, so the chart (client) and the tests share it.

/** `alpha` in [0, 1): 0 = no smoothing. Non-finite values pass through without touching the average. */
export function emaSmooth(values: readonly number[], alpha: number): number[] {
  if (!(alpha > 0)) return [...values];
  const a = Math.min(alpha, 0.999);
  let avg = 0;
  let n = 0;
  return values.map((v) => {
    if (!Number.isFinite(v)) return v;
    avg = avg * a + (1 - a) * v;
    n++;
    return avg / (1 - a ** n);
  });
}
