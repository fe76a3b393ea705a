"use client";
import type { AnnotatedTurn } from "./format";

type Opd = NonNullable<AnnotatedTurn["opd"]>;

/** OPD advantage per token (teacher − policy log-prob): green where the hinted teacher likes the token more. */
export function Heatmap({ opd }: { opd: Opd }) {
  const scale = Math.max(Math.abs(opd.minGap), Math.abs(opd.maxGap), 1e-6);
  return (
    <div data-testid="opd-heatmap">
      <div className="heat-legend">
        <span>{(-scale).toFixed(2)}</span>
        <span className="bar" />
        <span>+{scale.toFixed(2)}</span>
        <span>
          · mean {opd.meanGap.toFixed(3)} over {opd.tokenCount} tokens
          {opd.decoded ? "" : " (token ids: no text for this vocabulary)"}
        </span>
      </div>
      <div className="heat-legend" data-testid="heat-legend-meaning">
        <span>
          <span className="swatch bad" /> red: the hinted teacher finds the token less likely than the policy did, so
          OPD pushes it down
        </span>
        <span>
          <span className="swatch good" /> green: more likely, so OPD pushes it up
        </span>
      </div>
      {opd.warning && (
        <div className="muted" style={{ fontSize: 12 }}>
          {opd.warning}
        </div>
      )}
      <div className="heat">
        {opd.cells.map((c) => {
          const a = Math.min(1, Math.abs(c.gap) / scale) * 0.85;
          const bg = c.gap >= 0 ? `rgba(62,207,142,${a.toFixed(3)})` : `rgba(255,107,107,${a.toFixed(3)})`;
          return (
            <span
              key={c.start}
              style={{ background: bg }}
              title={`tokens ${c.start}–${c.start + c.tokens - 1}: ${c.gap >= 0 ? "+" : ""}${c.gap.toFixed(4)}`}
            >
              {c.text}
            </span>
          );
        })}
      </div>
    </div>
  );
}
