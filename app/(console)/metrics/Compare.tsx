"use client";
// W&B-style comparison: a runs table across experiments with their hyperparameters, and one chart that overlays
// a metric of the chosen runs, whatever experiment each belongs to (GRPO vs OPD vs Combine). State in the URL.
import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../../_lib/trpc";
import { z } from "zod";
import { IdSchema } from "../../../server/platform/schemas";
import { emaSmooth } from "../../../server/metrics/ema";
import { AxisSchema } from "../../../server/metrics/schemas";
import { useSearchState } from "../../_ui/useSearchState";
import { Field } from "../../_ui/Field";
import { Spacer, Toolbar } from "../../_ui/Toolbar";
import { Legend } from "./Legend";
import { Smoothing } from "./_hooks/useMetricsView";
import { COLORS, fmtTick, fmtValue, fmtX, round, unitOf, withGaps, yDomain } from "./chart";

/** The comparison's URL state: the overlaid runs (any experiment's), the metric, axis and smoothing. */
const CompareSearch = z.object({
  runs: z
    .string()
    .transform((v) => v.split(",").filter(Boolean))
    .pipe(z.array(IdSchema).max(10))
    .default([]),
  metric: z.string().max(200).default("rollout/reward_mean"),
  axis: AxisSchema.default("step"),
  smooth: Smoothing,
});

export function CompareView() {
  const trpc = useTRPC();
  const [s, set] = useSearchState(CompareSearch);
  const { runs: chosen, metric, axis, smooth: alpha } = s;

  const runs = useQuery({ ...trpc.runs.list.queryOptions({ limit: 100 }), refetchInterval: 15_000 });
  const experiments = useQuery(trpc.experiments.list.queryOptions({ status: "ALL", limit: 200 }));
  const expName = useMemo(() => new Map(experiments.data?.items.map((e) => [e.id, e.name]) ?? []), [experiments.data]);
  const selected = useMemo(() => (runs.data?.items ?? []).filter((r) => chosen.includes(r.id)), [runs.data, chosen]);
  const toggle = (id: string) =>
    set({ runs: chosen.includes(id) ? chosen.filter((x) => x !== id) : [...chosen, id].slice(-10) });

  const catalogs = useQueries({
    queries: [...new Set(selected.map((r) => r.experimentId))].map((experimentId) =>
      trpc.metrics.catalog.queryOptions({
        experimentId,
        runIds: selected.filter((r) => r.experimentId === experimentId).map((r) => r.id),
      }),
    ),
  });
  const names = [...new Set(catalogs.flatMap((c) => c.data?.map((x) => x.name) ?? []))].sort();
  const series = useQueries({
    queries: selected.map((r) =>
      trpc.metrics.series.queryOptions({
        experimentId: r.experimentId,
        runIds: [r.id],
        names: [metric],
        axis,
        maxPoints: 1000,
      }),
    ),
  });
  const lines = selected.map((r, i) => {
    const pts = series[i]?.data?.series[0]?.points ?? [];
    const smooth = emaSmooth(
      pts.map((p) => p.last),
      alpha,
    );
    return {
      key: r.id,
      label: `${expName.get(r.experimentId) ?? r.experimentId} · run #${r.number}`,
      color: COLORS[i % COLORS.length]!,
      count: pts.length,
      data: withGaps(
        pts.map((p, k) => ({ x: p.x, y: smooth[k]! as number | null })),
        (x) => ({ x, y: null }),
      ),
    };
  });
  const total = lines.reduce((n, l) => n + l.count, 0);
  const unit = unitOf(metric);

  return (
    <>
      <Toolbar title="Compare runs">
        <Spacer />
        <Link className="button" href="/metrics">
          One experiment&apos;s charts
        </Link>
      </Toolbar>
      <div className="filters">
        <Field label="Metric">
          <select aria-label="Metric" value={metric} onChange={(e) => set({ metric: e.target.value })}>
            {[...new Set([metric, ...names])].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </Field>
        <Field label="X axis">
          <select
            aria-label="X axis"
            value={axis}
            onChange={(e) => set({ axis: e.target.value === "time" ? "time" : undefined })}
          >
            <option value="step">Step</option>
            <option value="time">Time</option>
          </select>
        </Field>
        <Field label={`Smoothing (EMA ${alpha.toFixed(2)})`}>
          <input
            aria-label="Smoothing"
            type="range"
            min={0}
            max={0.99}
            step={0.01}
            value={alpha}
            onChange={(e) => set({ smooth: Number(e.target.value) || undefined })}
          />
        </Field>
      </div>
      <div
        className="chart"
        data-testid="compare-chart"
        data-points={total}
        data-lines={lines.filter((l) => l.count).length}
      >
        <h4>{metric}</h4>
        {!selected.length && <div className="empty">Tick runs below to overlay them.</div>}
        {selected.length > 0 && !total && <div className="empty">No points of {metric} in these runs.</div>}
        {total > 0 && (
          <ResponsiveContainer width="100%" height={300}>
            <LineChart margin={{ top: 4, right: 12, bottom: 0, left: 0 }}>
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
            </LineChart>
          </ResponsiveContainer>
        )}
        <Legend lines={lines} testId="compare-legend" />
      </div>

      <h2>Runs</h2>
      <table className="list" data-testid="runs-table">
        <thead>
          <tr>
            <th />
            <th>Experiment</th>
            <th>Run</th>
            <th>Status</th>
            <th>Method</th>
            <th>lr</th>
            <th>Batch</th>
            <th>KL</th>
            <th>Clip</th>
            <th>w_rl</th>
            <th>w_opd</th>
            <th>Judge votes</th>
            <th>Trainer</th>
            <th>Step</th>
          </tr>
        </thead>
        <tbody>
          {runs.data?.items.map((r) => {
            const h = r.config.hyper;
            return (
              <tr key={r.id} data-testid={`run-row-${r.id}`}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Overlay ${expName.get(r.experimentId) ?? ""} run #${r.number}`}
                    checked={chosen.includes(r.id)}
                    onChange={() => toggle(r.id)}
                  />
                </td>
                <td>
                  <Link href={`/experiments/${r.experimentId}`}>{expName.get(r.experimentId) ?? r.experimentId}</Link>
                </td>
                <td>
                  <Link href={`/metrics?experimentId=${r.experimentId}&runIds=${r.id}`}>#{r.number}</Link>
                </td>
                <td>
                  <span className={`badge ${r.status}`}>{r.status.toLowerCase()}</span>
                </td>
                <td>{r.config.method}</td>
                <td className="mono">{round(h.lr)}</td>
                <td>{h.batchSize}</td>
                <td className="mono">{round(h.klCoef)}</td>
                <td className="mono">
                  {round(h.epsClip)}/{round(h.epsClipHigh)}
                </td>
                <td className="mono">{round(h.wRl)}</td>
                <td className="mono">{round(h.wOpd)}</td>
                <td>{r.config.judge.votes}</td>
                <td>{r.trainerBackend}</td>
                <td>{r.lastStep}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {runs.data && !runs.data.items.length && <div className="empty">No runs yet.</div>}
    </>
  );
}
