"use client";
// Eval score per policy version (0…1, with its 95% CI as an error bar) beside the training reward the
// version earned on live traffic (−1…+1, its own axis): the two should move together if the judge's reward
// is a good proxy for what the held-out set measures; a training reward that climbs while the eval score
// stays flat (or falls) is reward hacking or over-fitting to the traffic.
import {
  CartesianGrid,
  ComposedChart,
  ErrorBar,
  Legend,
  Line,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

export interface ChartVersion {
  version: number;
  trainingReward: number | null;
  evaluation: { mean: number | null; ciLow: number | null; ciHigh: number | null } | null;
}

export function EvalChart({ versions }: { versions: readonly ChartVersion[] }) {
  const data = versions.map((v) => {
    const m = v.evaluation?.mean ?? null;
    return {
      version: v.version,
      eval: m,
      ci:
        m !== null && v.evaluation?.ciLow != null && v.evaluation?.ciHigh != null
          ? [m - v.evaluation.ciLow, v.evaluation.ciHigh - m]
          : [0, 0],
      reward: v.trainingReward,
    };
  });
  // Only evaluated versions get a dot (a version without an evaluation is not a zero).
  const evaluated = data.filter((d) => d.eval !== null);
  return (
    <div data-testid="eval-chart" style={{ width: "100%", height: 260 }}>
      <ResponsiveContainer>
        <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid stroke="var(--border)" />
          <XAxis
            dataKey="version"
            type="number"
            domain={["dataMin", "dataMax"]}
            allowDecimals={false}
            tick={{ fontSize: 11 }}
            label={{ value: "policy version", position: "insideBottomRight", offset: -4, fontSize: 11 }}
          />
          <YAxis yAxisId="eval" domain={[0, 1]} tick={{ fontSize: 11 }} />
          <YAxis yAxisId="reward" orientation="right" domain={[-1, 1]} tick={{ fontSize: 11 }} />
          <Tooltip
            formatter={(v) => (typeof v === "number" ? v.toFixed(3) : String(v))}
            labelFormatter={(v) => `version ${v}`}
          />
          <Legend />
          <Line
            yAxisId="reward"
            dataKey="reward"
            name="training reward (judge, live)"
            stroke="var(--accent-2)"
            dot={false}
            connectNulls
            isAnimationActive={false}
          />
          <Scatter
            yAxisId="eval"
            data={evaluated}
            dataKey="eval"
            name="eval score (held-out)"
            fill="var(--accent)"
            isAnimationActive={false}
          >
            <ErrorBar dataKey="ci" width={4} stroke="var(--accent)" direction="y" />
          </Scatter>
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
