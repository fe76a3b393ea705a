// Summary of one evaluation: the mean over items of each item's mean score over its k replies, with a
// normal-approximation 95% confidence interval over items (prompts are the unit that varies; the k replies
// of one prompt are not independent evidence about the policy). Clamped to the 0…1 score range.

export interface Summary {
  items: number;
  mean: number | null;
  ciLow: number | null;
  ciHigh: number | null;
}

export function summarize(scoresByItem: ReadonlyMap<string, readonly number[]>): Summary {
  const means = [...scoresByItem.values()]
    .filter((s) => s.length > 0)
    .map((s) => s.reduce((a, b) => a + b, 0) / s.length);
  const n = means.length;
  if (n === 0) return { items: 0, mean: null, ciLow: null, ciHigh: null };
  const mean = means.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { items: n, mean, ciLow: null, ciHigh: null };
  const variance = means.reduce((a, m) => a + (m - mean) ** 2, 0) / (n - 1);
  const half = 1.96 * Math.sqrt(variance / n);
  return { items: n, mean, ciLow: Math.max(0, mean - half), ciHigh: Math.min(1, mean + half) };
}
