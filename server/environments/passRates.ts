// pass@k over tasks, the unbiased estimator of Chen et al. (2021, "Evaluating Large Language Models Trained
// on Code"): with n attempts of a task of which c passed, pass@k = 1 − C(n−c, k) / C(n, k); a set's pass@k is
// the mean over its tasks, with a 95% normal interval from the spread across tasks (clipped to [0, 1]). The
// promotion gate's pass@1 is passes over attempts with a Wilson interval (wilson), which stays inside [0, 1]
// and is not degenerate at 0 or k passes. Pure.

export interface TaskAttempts {
  n: number;
  c: number;
}

/** One task's pass@k; null when it has fewer than k attempts. */
export function taskPassAtK({ n, c }: TaskAttempts, k: number): number | null {
  if (n < k || k < 1) return null;
  if (n - c < k) return 1;
  // C(n−c, k) / C(n, k) = Π_{i=n−c+1}^{n} (1 − k/i), computed as a product to stay exact enough.
  let ratio = 1;
  for (let i = n - c + 1; i <= n; i++) ratio *= 1 - k / i;
  return 1 - ratio;
}

export interface PassRate {
  k: number;
  /** tasks with at least k attempts */
  tasks: number;
  mean: number | null;
  low: number | null;
  high: number | null;
}

export function passAtK(tasks: TaskAttempts[], k: number): PassRate {
  const values = tasks.map((t) => taskPassAtK(t, k)).filter((v): v is number => v !== null);
  if (values.length === 0) return { k, tasks: 0, mean: null, low: null, high: null };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.length > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1) : 0;
  const half = 1.96 * Math.sqrt(variance / values.length);
  return { k, tasks: values.length, mean, low: Math.max(0, mean - half), high: Math.min(1, mean + half) };
}

export interface Proportion {
  n: number;
  c: number;
  mean: number | null;
  low: number | null;
  high: number | null;
}

/** c successes in n attempts with the 95% Wilson score interval; nulls when n = 0. */
export function wilson(c: number, n: number, z = 1.96): Proportion {
  if (n === 0) return { n, c, mean: null, low: null, high: null };
  const p = c / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { n, c, mean: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
