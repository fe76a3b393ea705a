"use client";
// One chart card of the metrics page: its series (bucketed server-side), the live points past them, EMA
// smoothing and the min–max band.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../../_lib/trpc";
import { emaSmooth } from "../../../server/metrics/ema";
import { COLORS, fmtTick, fmtValue, fmtX, withGaps, yDomain, type Axis } from "./chart";
import { Legend } from "./Legend";
import type { LivePoint } from "./_hooks/useMetricsView";

export function MetricChart({
  experimentId,
  runIds,
  runLabel,
  names,
  title,
  axis,
  unit,
  alpha,
  band,
  live,
  axisNote,
}: {
  axisNote?: string;
  unit: string;
  experimentId: string;
  runIds: string[];
  runLabel: (id: string) => string;
  names: string[];
  title: string;
  axis: Axis;
  alpha: number;
  band: boolean;
  live: Map<string, LivePoint[]>;
}) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.metrics.series.queryOptions({ experimentId, runIds, names, axis, maxPoints: 1000 }),
    refetchInterval: 60_000,
  });
  const lines = useMemo(() => {
    return (q.data?.series ?? [])
      .map((s, i) => {
        const key = `${s.runId ?? ""}|${s.name}`;
        const lastX = s.points.length ? s.points[s.points.length - 1]!.x : -Infinity;
        const extra = (live.get(key) ?? [])
          .filter((p) => p.x > lastX)
          .map((p) => ({ x: p.x, last: p.value, min: p.value, max: p.value }));
        const pts = [...s.points.map((p) => ({ x: p.x, last: p.last, min: p.min, max: p.max })), ...extra];
        const smooth = emaSmooth(
          pts.map((p) => p.last),
          alpha,
        );
        return {
          key,
          label: `${runIds.length > 1 || s.runId === null ? `${runLabel(s.runId ?? "")} · ` : ""}${s.name}`,
          color: COLORS[i % COLORS.length]!,
          data: withGaps(
            pts.map((p, k) => ({
              x: p.x,
              y: smooth[k]! as number | null,
              band: [p.min, p.max] as [number, number] | null,
            })),
            (x) => ({ x, y: null, band: null }),
          ),
          count: pts.length,
        };
      })
      .filter((l) => l.count > 0);
  }, [q.data, live, alpha, runIds.length, runLabel]);
  const total = lines.reduce((n, l) => n + l.count, 0);
  return (
    <div className="chart" data-testid={`chart-${title}`} data-points={total}>
      <h4>
        {title}
        {q.isFetching && (
          <span className="muted" style={{ fontWeight: 400 }}>
            …
          </span>
        )}
        {axisNote && (
          <span className="muted" style={{ fontWeight: 400, fontSize: 11 }}>
            {axisNote}
          </span>
        )}
      </h4>
      {q.error && <div className="field-error">{q.error.message}</div>}
      {!lines.length && !q.isLoading && (
        <div className="empty" style={{ padding: 40 }}>
          No points yet.
        </div>
      )}
      {lines.length > 0 && (
        <ResponsiveContainer width="100%" height={220}>
          <ComposedChart margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid stroke="#2a3140" strokeDasharray="3 3" />
            <XAxis
              dataKey="x"
              type="number"
              domain={["dataMin", "dataMax"]}
              tickFormatter={fmtX(axis)}
              stroke="#9aa3b2"
              fontSize={11}
              allowDuplicatedCategory={false}
            />
            <YAxis stroke="#9aa3b2" fontSize={11} width={64} domain={yDomain} tickFormatter={fmtTick(unit)} />
            <Tooltip
              contentStyle={{ background: "#171b24", border: "1px solid #2a3140" }}
              labelFormatter={(x) => fmtX(axis)(Number(x))}
              formatter={(v) => `${fmtValue(v)}${unit ? ` ${unit}` : ""}`}
            />
            {band &&
              lines.map((l) => (
                <Area
                  key={`${l.key}-band`}
                  data={l.data}
                  dataKey="band"
                  stroke="none"
                  fill={l.color}
                  fillOpacity={0.15}
                  isAnimationActive={false}
                  connectNulls={false}
                  name={`${l.label} min–max`}
                  legendType="none"
                />
              ))}
            {lines.map((l) => (
              <Line
                key={l.key}
                data={l.data}
                dataKey="y"
                name={l.label}
                stroke={l.color}
                dot={false}
                strokeWidth={1.6}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
          </ComposedChart>
        </ResponsiveContainer>
      )}
      <Legend lines={lines} />
    </div>
  );
}
