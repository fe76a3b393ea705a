"use client";
// The metrics page's state and data: the view in the URL (experiment, overlaid runs, axis, smoothing, band),
// the runs and metric catalog it selects, the charts that catalog makes, and the live points streamed since.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { z } from "zod";
import { AxisSchema, MetricsCatalogInput } from "../../../../server/metrics/schemas";
import { useTRPC } from "../../../_lib/trpc";
import { useSearchState } from "../../../_ui/useSearchState";
import type { Axis } from "../chart";
import { chartsFor } from "../groups";

export type LivePoint = { x: number; value: number };

/** EMA weight from the URL, clamped to [0, 0.99]; anything unreadable is 0 (no smoothing). */
export const Smoothing = z.coerce
  .number()
  .catch(0)
  .transform((v) => Math.min(0.99, Math.max(0, v)));

/** The page's URL state, so a chart view can be shared. */
export const MetricsSearch = z.object({
  view: z.enum(["compare"]).optional(),
  experimentId: MetricsCatalogInput.shape.experimentId.optional(),
  /** The overlaid runs, a comma list ("" = the experiment-level series); the older runId= link picks one run. */
  runIds: MetricsCatalogInput.shape.runIds,
  runId: MetricsCatalogInput.shape.experimentId.optional(),
  axis: AxisSchema.default("step"),
  smooth: Smoothing,
  band: z.enum(["off"]).optional(),
});

export const useMetricsSearch = () => useSearchState(MetricsSearch);

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

/** Everything the experiment metrics view shows, and its setters. */
export function useExperimentMetrics() {
  const trpc = useTRPC();
  const [s, set] = useMetricsSearch();
  const experimentId = s.experimentId ?? "";
  // The picked runs as a key: the list itself is rebuilt on each render where it comes from runId=.
  const pickedKey = s.runIds ? s.runIds.join(",") : (s.runId ?? null);
  const runs = useQuery({ ...trpc.runs.list.queryOptions({ experimentId, limit: 50 }), enabled: !!experimentId });
  // Default: the newest run, plus the experiment-level series (proxy/judge metrics recorded without a run).
  const runIds = useMemo(
    () => (pickedKey !== null ? pickedKey.split(",") : [...(runs.data?.items[0] ? [runs.data.items[0].id] : []), ""]),
    [pickedKey, runs.data],
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
  const charts = useMemo(() => chartsFor(names, timeOnly, s.axis), [names, timeOnly, s.axis]);
  const { live, state } = useLivePoints(experimentId, runIds, s.axis);
  const runLabel = useMemo(() => {
    const byId = new Map(runs.data?.items.map((r) => [r.id, `run #${r.number}`]) ?? []);
    return (id: string) => (id ? (byId.get(id) ?? id.slice(0, 8)) : "experiment");
  }, [runs.data]);
  const toggleRun = (id: string) => {
    const cur = new Set(runIds);
    if (cur.has(id)) cur.delete(id);
    else cur.add(id);
    set({ runIds: [...cur].slice(0, 10), runId: undefined });
  };
  return {
    experimentId,
    axis: s.axis,
    alpha: s.smooth,
    band: s.band !== "off",
    setExperimentId: (v: string) => set({ experimentId: v, runIds: undefined, runId: undefined }),
    setAxis: (a: Axis) => set({ axis: a === "step" ? undefined : a }),
    setAlpha: (a: number) => set({ smooth: a || undefined }),
    setBand: (b: boolean) => set({ band: b ? undefined : "off" }),
    runs: runs.data?.items ?? [],
    runIds,
    toggleRun,
    runLabel,
    catalog,
    charts,
    live,
    liveState: state,
  };
}
