// Judged reward per policy version as an SVG chart. The headline is the sessions' first replies (the preference
// learned unprompted): each version's mean (dots, sized by how many first replies it served) and the
// turn-weighted mean over a window of versions (the solid line). Every reply, including those that follow a
// correction with the instruction in context, is the thin dashed line. Against the target mark.
export interface VersionPoint {
  version: number;
  turns: number;
  reward: number;
  firstTurns: number;
  firstReward: number | null;
}

type Series = "first" | "all";

const pick = (p: VersionPoint, s: Series) =>
  s === "all" ? { turns: p.turns, reward: p.reward } : { turns: p.firstTurns, reward: p.firstReward ?? 0 };

/** Turn-weighted mean of the last `window` versions at each version; versions without turns of the series are skipped. */
export function windowMeans(
  points: readonly VersionPoint[],
  window: number,
  series: Series = "first",
): { version: number; reward: number }[] {
  return points.flatMap((p, i) => {
    const span = points.slice(Math.max(0, i - window + 1), i + 1).map((q) => pick(q, series));
    const turns = span.reduce((a, s) => a + s.turns, 0);
    return turns === 0
      ? []
      : [{ version: p.version, reward: span.reduce((a, s) => a + s.reward * s.turns, 0) / turns }];
  });
}

/**
 * `points` may be only the most recent versions: the x axis spans the versions shown, and `base` (version 0)
 * is drawn as its own dashed level (its first replies), so the learning since the base stays visible.
 */
export function RewardChart({
  points,
  base = null,
  window = 5,
  target = 0.6,
}: {
  points: readonly VersionPoint[];
  base?: VersionPoint | null;
  window?: number;
  target?: number;
}) {
  const W = 560,
    H = 180,
    L = 36,
    R = 8,
    T = 8,
    B = 22;
  const minV = Math.min(...points.map((p) => p.version));
  const maxV = Math.max(minV + 1, ...points.map((p) => p.version));
  const x = (v: number) => L + ((v - minV) / (maxV - minV)) * (W - L - R);
  const y = (r: number) => T + ((1 - r) / 2) * (H - T - B);
  const first = windowMeans(points, window, "first");
  const all = windowMeans(points, window, "all");
  const maxTurns = Math.max(1, ...points.map((p) => p.firstTurns));
  const path = (line: { version: number; reward: number }[]) =>
    line.map((p) => `${x(p.version)},${y(p.reward)}`).join(" ");
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      style={{ maxWidth: W }}
      role="img"
      aria-label="judged reward per policy version"
    >
      {[-1, -0.5, 0, 0.5, 1].map((r) => (
        <g key={r}>
          <line x1={L} x2={W - R} y1={y(r)} y2={y(r)} stroke="var(--border)" />
          <text x={L - 6} y={y(r) + 4} fontSize="10" textAnchor="end" fill="var(--muted)">
            {r > 0 ? `+${r}` : r}
          </text>
        </g>
      ))}
      <line x1={L} x2={W - R} y1={y(target)} y2={y(target)} stroke="var(--warn)" strokeDasharray="4 4" />
      <text x={W - R} y={y(target) - 4} fontSize="10" textAnchor="end" fill="var(--warn)">
        target +{target}
      </text>
      {points
        .filter((p) => p.firstReward !== null)
        .map((p) => (
          <circle
            key={p.version}
            cx={x(p.version)}
            cy={y(p.firstReward!)}
            r={1.5 + (2.5 * p.firstTurns) / maxTurns}
            fill="var(--accent)"
            opacity={0.35}
          />
        ))}
      {all.length > 1 && (
        <polyline
          data-testid="all-replies-line"
          fill="none"
          stroke="var(--muted)"
          strokeWidth={1}
          strokeDasharray="3 3"
          points={path(all)}
        />
      )}
      {first.length > 1 && (
        <polyline
          data-testid="first-replies-line"
          fill="none"
          stroke="var(--accent)"
          strokeWidth={2}
          points={path(first)}
        />
      )}
      {base?.firstReward != null && (
        <g data-testid="base-line">
          <line
            x1={L}
            x2={W - R}
            y1={y(base.firstReward)}
            y2={y(base.firstReward)}
            stroke="var(--muted)"
            strokeDasharray="2 3"
          />
          <text x={L + 4} y={y(base.firstReward) - 4} fontSize="10" fill="var(--muted)">
            base (version 0) {base.firstReward >= 0 ? "+" : ""}
            {base.firstReward.toFixed(2)}
          </text>
        </g>
      )}
      <text x={L} y={H - 6} fontSize="10" fill="var(--muted)">
        version {minV}
        {minV === 0 ? " (base)" : ""}
      </text>
      <text x={W - R} y={H - 6} fontSize="10" textAnchor="end" fill="var(--muted)">
        version {maxV}
      </text>
    </svg>
  );
}
