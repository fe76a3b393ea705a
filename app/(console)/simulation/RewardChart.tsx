// Judged reward per policy version as an SVG line: each version's mean (dots, sized by how many turns it
// served) and the turn-weighted mean over a window of versions (the line), against the +0.6 mark.
export interface VersionPoint {
  version: number;
  turns: number;
  reward: number;
}

export function windowMeans(points: readonly VersionPoint[], window: number): { version: number; reward: number }[] {
  return points.map((p, i) => {
    const span = points.slice(Math.max(0, i - window + 1), i + 1);
    const turns = span.reduce((a, s) => a + s.turns, 0);
    return { version: p.version, reward: span.reduce((a, s) => a + s.reward * s.turns, 0) / Math.max(1, turns) };
  });
}

/**
 * `points` may be only the most recent versions: the x axis spans the versions shown, and `base` (version 0)
 * is drawn as its own dashed level, so the learning since the base stays visible.
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
  const line = windowMeans(points, window);
  const maxTurns = Math.max(1, ...points.map((p) => p.turns));
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
      {points.map((p) => (
        <circle
          key={p.version}
          cx={x(p.version)}
          cy={y(p.reward)}
          r={1.5 + (2.5 * p.turns) / maxTurns}
          fill="var(--accent)"
          opacity={0.35}
        />
      ))}
      {line.length > 1 && (
        <polyline
          fill="none"
          stroke="var(--accent)"
          strokeWidth={2}
          points={line.map((p) => `${x(p.version)},${y(p.reward)}`).join(" ")}
        />
      )}
      {base && (
        <g data-testid="base-line">
          <line x1={L} x2={W - R} y1={y(base.reward)} y2={y(base.reward)} stroke="var(--muted)" strokeDasharray="2 3" />
          <text x={L + 4} y={y(base.reward) - 4} fontSize="10" fill="var(--muted)">
            base (version 0) {base.reward >= 0 ? "+" : ""}
            {base.reward.toFixed(2)}
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
