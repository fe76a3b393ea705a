"use client";
import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "../../_lib/trpc";
import { emaSmooth } from "../../../server/metrics/ema";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { CompareView } from "./Compare";
import { COLORS, fmtTick, fmtValue, fmtX, unitOf, withGaps, yDomain, type Axis } from "./chart";

type LivePoint = { x: number; value: number };
const NO_LIVE = new Map<string, LivePoint[]>();

/** Charts by topic; a metric goes to the first group that claims it, the rest get a chart each. */
const GROUPS: { title: string; claims: (name: string) => boolean }[] = [
  { title: "Reward mean", claims: (n) => n === "rollout/reward_mean" },
  { title: "PRM eval score", claims: (n) => n === "rollout/prm_eval_score" },
  { title: "Loss", claims: (n) => n === "train/loss" || n === "train/pg_loss" },
  { title: "KL", claims: (n) => n === "train/ppo_kl" || n === "train/kl_loss" },
  { title: "Clip fraction", claims: (n) => n === "train/pg_clipfrac" },
  { title: "Entropy", claims: (n) => n === "train/entropy" },
  { title: "Grad norm", claims: (n) => n === "train/grad_norm" },
  { title: "Staleness", claims: (n) => n.includes("staleness") },
  {
    title: "Sample accounting",
    claims: (n) => /sample|accepted|excluded|opd_only|rl_only|both/.test(n) && !n.startsWith("judge/"),
  },
  { title: "Batch fill and time to next step", claims: (n) => /batch_fill|next_step|time_to_next/.test(n) },
  { title: "Response length", claims: (n) => n.startsWith("rollout/response_len") },
  { title: "Throughput", claims: (n) => /per_s|tokens_per_s|step_ms|latency|ttft/.test(n) },
  { title: "Queue depth and lag", claims: (n) => /queue|lag|buffer/.test(n) },
];

/**
 * Series recorded without a step (judge, proxy and queue gauges) have no place on a step axis: on the Step
 * axis they get charts of their own on the time axis instead of saying "No points yet".
 */
function chartsFor(
  names: string[],
  timeOnly: Set<string>,
  axis: Axis,
): { title: string; names: string[]; axis: Axis; unit: string }[] {
  const make = (title: string, a: Axis) => ({ title, names: [] as string[], axis: a });
  const charts = GROUPS.map((g) => make(g.title, axis));
  const timeCharts = GROUPS.map((g) => make(`${g.title} (by time)`, "time"));
  const other: { title: string; names: string[]; axis: Axis }[] = [];
  for (const n of [...names].sort()) {
    const onTime = axis === "step" && timeOnly.has(n);
    const i = GROUPS.findIndex((g) => g.claims(n));
    if (i >= 0) (onTime ? timeCharts : charts)[i]!.names.push(n);
    else other.push({ title: n, names: [n], axis: onTime ? "time" : axis });
  }
  return [...charts, ...timeCharts]
    .filter((c) => c.names.length)
    .concat(other)
    .flatMap(byUnit);
}

/** One unit per y axis: a group that mixes milliseconds and rates (Throughput, Queue depth and lag) splits. */
function byUnit(c: {
  title: string;
  names: string[];
  axis: Axis;
}): { title: string; names: string[]; axis: Axis; unit: string }[] {
  const units = [...new Set(c.names.map(unitOf))];
  if (units.length === 1) return [{ ...c, unit: units[0]! }];
  return units.map((u) => ({
    title: `${c.title} (${u || "count"})`,
    names: c.names.filter((n) => unitOf(n) === u),
    axis: c.axis,
    unit: u,
  }));
}

function Chart({
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
      <div className="row" style={{ display: "flex", flexWrap: "wrap", gap: 8, fontSize: 12 }}>
        {lines.map((l) => (
          <span key={l.key}>
            <span
              className="sw"
              style={{
                background: l.color,
                display: "inline-block",
                width: 10,
                height: 10,
                borderRadius: 2,
                marginRight: 4,
              }}
            />
            {l.label}
          </span>
        ))}
      </div>
    </div>
  );
}

/** Live points from /api/stream/metrics (SSE fed by the Redis `metrics` channel), kept per series. */
function useLivePoints(experimentId: string, runIds: string[], axis: Axis) {
  const [live, setLive] = useState<Map<string, LivePoint[]>>(new Map());
  const [state, setState] = useState<"off" | "connecting" | "ready" | "error">("off");
  const runKey = runIds.join(",");
  useEffect(() => {
    setLive(new Map());
    if (!experimentId) return;
    setState("connecting");
    const es = new EventSource(`/api/stream/metrics?${new URLSearchParams({ experimentId, runIds: runKey })}`);
    es.addEventListener("ready", () => setState("ready"));
    es.addEventListener("error", () => setState("error"));
    es.addEventListener("points", (e) => {
      const msg = JSON.parse((e as MessageEvent<string>).data) as {
        runId: string | null;
        points: { name: string; value: number; step: number | null; ts: number }[];
      };
      setLive((prev) => {
        const next = new Map(prev);
        for (const p of msg.points) {
          const x = axis === "step" ? p.step : p.ts;
          if (x === null) continue;
          const key = `${msg.runId ?? ""}|${p.name}`;
          next.set(key, [...(next.get(key) ?? []).slice(-4999), { x, value: p.value }]);
        }
        return next;
      });
    });
    return () => es.close();
  }, [experimentId, runKey, axis]);
  return { live, state };
}

/** The page's state in the URL (experiment, runs, axis, smoothing, band), so a chart view can be shared. */
function useUrlState() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const set = useCallback(
    (patch: Record<string, string | null>) => {
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v === null || v === "") next.delete(k);
        else next.set(k, v);
      }
      router.replace(`${pathname}?${next.toString()}`, { scroll: false });
    },
    [params, router, pathname],
  );
  return [params, set] as const;
}

function MetricsView() {
  const [params] = useUrlState();
  return params.get("view") === "compare" ? <CompareView /> : <ExperimentMetrics />;
}

function ExperimentMetrics() {
  const trpc = useTRPC();
  const [params, set] = useUrlState();
  const experimentId = params.get("experimentId") ?? "";
  // runIds in the URL: a comma list ("" = experiment-level); the older runId= link picks one run.
  const rawRuns = params.get("runIds") ?? params.get("runId");
  const picked = useMemo(() => (rawRuns === null ? null : rawRuns.split(",")), [rawRuns]);
  const setPicked = (ids: string[] | null) => set({ runIds: ids === null ? null : ids.join(","), runId: null });
  const setExperimentId = (v: string) => set({ experimentId: v, runIds: null, runId: null });
  const axis: Axis = params.get("axis") === "time" ? "time" : "step";
  const setAxis = (a: Axis) => set({ axis: a === "step" ? null : a });
  const alpha = Math.min(0.99, Math.max(0, Number(params.get("smooth") ?? 0) || 0));
  const setAlpha = (a: number) => set({ smooth: a ? String(a) : null });
  const band = params.get("band") !== "off";
  const setBand = (b: boolean) => set({ band: b ? null : "off" });
  const runs = useQuery({ ...trpc.runs.list.queryOptions({ experimentId, limit: 50 }), enabled: !!experimentId });
  // Default: the newest run, plus the experiment-level series (proxy/judge metrics recorded without a run).
  const runIds = useMemo(
    () => picked ?? [...(runs.data?.items[0] ? [runs.data.items[0].id] : []), ""],
    [picked, runs.data],
  );
  const catalog = useQuery({
    ...trpc.metrics.catalog.queryOptions({ experimentId, runIds }),
    enabled: !!experimentId,
    refetchInterval: 15_000,
  });
  const names = useMemo(() => [...new Set(catalog.data?.map((c) => c.name) ?? [])], [catalog.data]);
  const timeOnly = useMemo(
    () => new Set(names.filter((n) => catalog.data?.every((c) => c.name !== n || c.lastStep === null))),
    [names, catalog.data],
  );
  const charts = useMemo(() => chartsFor(names, timeOnly, axis), [names, timeOnly, axis]);
  const { live, state } = useLivePoints(experimentId, runIds, axis);
  const runLabel = useMemo(() => {
    const byId = new Map(runs.data?.items.map((r) => [r.id, `run #${r.number}`]) ?? []);
    return (id: string) => (id ? (byId.get(id) ?? id.slice(0, 8)) : "experiment");
  }, [runs.data]);
  const toggleRun = (id: string) => {
    const cur = new Set(runIds);
    if (cur.has(id)) cur.delete(id);
    else cur.add(id);
    setPicked([...cur].slice(0, 10));
  };
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Metrics</h1>
        <a className="button" href="/metrics?view=compare">
          Compare runs
        </a>
        <span
          className={`live-dot${state === "ready" ? " on" : ""}`}
          data-testid="live-state"
          data-live={state}
          title={`live: ${state}`}
        />
        <span className="muted">{state === "ready" ? "live" : state}</span>
      </div>
      <div className="filters">
        <ExperimentSelect value={experimentId} onChange={setExperimentId} allowAll={false} />
        <label className="field">
          <span>X axis</span>
          <select aria-label="X axis" value={axis} onChange={(e) => setAxis(e.target.value as Axis)}>
            <option value="step">Step</option>
            <option value="time">Time</option>
          </select>
        </label>
        <label className="field">
          <span>Smoothing (EMA {alpha.toFixed(2)})</span>
          <input
            aria-label="Smoothing"
            type="range"
            min={0}
            max={0.99}
            step={0.01}
            value={alpha}
            onChange={(e) => setAlpha(Number(e.target.value))}
          />
        </label>
        <label className="field">
          <span>Min–max band</span>
          <select
            aria-label="Min–max band"
            value={band ? "on" : "off"}
            onChange={(e) => setBand(e.target.value === "on")}
          >
            <option value="on">Shown</option>
            <option value="off">Hidden</option>
          </select>
        </label>
      </div>
      {experimentId && (
        <div className="toolbar" aria-label="Runs to overlay">
          <span className="muted">Overlay:</span>
          <span className={`chip${runIds.includes("") ? " on" : ""}`} onClick={() => toggleRun("")}>
            experiment-level
          </span>
          {runs.data?.items.map((r) => (
            <span
              key={r.id}
              className={`chip${runIds.includes(r.id) ? " on" : ""}`}
              onClick={() => toggleRun(r.id)}
              data-testid={`run-chip-${r.number}`}
            >
              run #{r.number} <span className="muted">{r.status.toLowerCase()}</span>
            </span>
          ))}
        </div>
      )}
      {!experimentId && <div className="empty">Choose an experiment.</div>}
      {catalog.error && <div className="form-error">{catalog.error.message}</div>}
      {experimentId && catalog.data && !charts.length && (
        <div className="empty">No metrics recorded for these runs yet.</div>
      )}
      <div className="charts">
        {charts.map((c) => (
          <Chart
            key={c.title}
            experimentId={experimentId}
            runIds={runIds}
            runLabel={runLabel}
            names={c.names}
            title={c.title}
            axis={c.axis}
            unit={c.unit}
            alpha={alpha}
            band={band}
            live={c.axis === axis ? live : NO_LIVE}
            axisNote={c.axis !== axis ? "time axis: recorded without a step" : undefined}
          />
        ))}
      </div>
    </>
  );
}

export default function MetricsPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <MetricsView />
    </Suspense>
  );
}
