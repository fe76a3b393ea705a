/** A chart's legend: a colour swatch and a label per line. */
export function Legend({
  lines,
  testId,
}: {
  lines: readonly { key: string; label: string; color: string }[];
  testId?: string;
}) {
  return (
    <div className="legend" data-testid={testId}>
      {lines.map((l) => (
        <span key={l.key}>
          <span className="sw" style={{ background: l.color }} />
          {l.label}
        </span>
      ))}
    </div>
  );
}
