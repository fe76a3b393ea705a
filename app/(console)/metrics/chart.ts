// Shared by the metrics page's charts and the cross-experiment comparison.
export type Axis = "step" | "time";

export const COLORS = [
  "#5b9cff",
  "#3ecf8e",
  "#f5b942",
  "#ff6b6b",
  "#7c5cff",
  "#4dd0e1",
  "#ff8a65",
  "#aed581",
  "#f06292",
  "#90a4ae",
];

export const fmtX = (axis: Axis) => (x: number) => (axis === "time" ? new Date(x).toLocaleTimeString() : String(x));

/** Four significant digits: a tooltip or tick reads 0.3127, not 0.31270451843738556. */
export const round = (v: number): number => Number(v.toPrecision(4));

/** Tooltip values: a number, or a band's [min, max]. */
export const fmtValue = (v: unknown): string =>
  typeof v === "number"
    ? String(round(v))
    : Array.isArray(v) && v.length === 2
      ? `${fmtValue(v[0])} – ${fmtValue(v[1])}`
      : String(v ?? "—");

/** The unit a metric's name declares (…_ms, …per_s); "" for counts, ratios and losses. */
export function unitOf(name: string): "ms" | "/s" | "" {
  if (/_ms$|_ms_|latency|ttft/.test(name)) return "ms";
  if (/per_s$/.test(name)) return "/s";
  return "";
}

export const fmtTick = (unit: string) => (v: number) => `${round(v)}${unit === "ms" ? " ms" : unit}`;

/**
 * The y range, padded a little; a series that never goes below zero (a learning rate, a count) does not get
 * an axis below zero, which recharts' "auto" drew for a flat positive line.
 */
export function yDomain([min, max]: readonly [number, number]): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  const pad = max > min ? (max - min) * 0.08 : Math.abs(min) * 0.1 || 1;
  const lo = min - pad;
  return [min >= 0 ? Math.max(0, lo) : lo, max + pad];
}

/**
 * A null point in every gap much wider than the series' usual spacing (5× the median), so lines break there
 * instead of bridging hours without data (or a run of missing steps) with a straight segment.
 */
export function withGaps<T extends { x: number }>(data: readonly T[], blank: (x: number) => T): T[] {
  if (data.length < 3) return [...data];
  const diffs = data
    .slice(1)
    .map((p, i) => p.x - data[i]!.x)
    .sort((a, b) => a - b);
  const median = diffs[Math.floor(diffs.length / 2)]!;
  if (!(median > 0)) return [...data];
  const out: T[] = [data[0]!];
  for (let i = 1; i < data.length; i++) {
    const prev = data[i - 1]!;
    if (data[i]!.x - prev.x > 5 * median) out.push(blank((prev.x + data[i]!.x) / 2));
    out.push(data[i]!);
  }
  return out;
}
