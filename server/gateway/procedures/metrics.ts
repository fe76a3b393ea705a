// Metric points and bucketed series of runs and experiments, and the fleet overview.
import * as metrics from "../../metrics/service";
import { fleetOverview } from "../../metrics/fleet";
import { MetricsCatalogInput, MetricsQueryInput, MetricsSeriesInput } from "../../metrics/schemas";
import { procedure } from "./define";
import { MetricsCatalogOutput, MetricsPointsOutput, MetricsSeriesOutput } from "./outputs/metrics";
import { FleetOverviewOutput } from "./outputs/fleet";

export const metricProcedures = {
  points: procedure({
    kind: "query",
    permission: "read",
    summary: "Metric points of a run or experiment",
    input: MetricsQueryInput,
    rest: { method: "GET", path: "/metrics" },
    output: MetricsPointsOutput,
    handler: ({ principal, input }) => metrics.queryMetricPoints(principal, input),
  }),
  series: procedure({
    kind: "query",
    permission: "read",
    summary: "Series bucketed to at most maxPoints points each (min/max/last/mean per bucket); x by step or time",
    input: MetricsSeriesInput,
    rest: { method: "GET", path: "/metrics/series" },
    output: MetricsSeriesOutput,
    handler: ({ principal, input }) => metrics.querySeries(principal, input),
  }),
  catalog: procedure({
    kind: "query",
    permission: "read",
    summary: "The metric series of an experiment, with counts and latest values",
    input: MetricsCatalogInput,
    rest: { method: "GET", path: "/metrics/catalog" },
    output: MetricsCatalogOutput,
    handler: ({ principal, input }) => metrics.metricCatalog(principal, input),
  }),
};

export const fleetProcedures = {
  overview: procedure({
    kind: "query",
    permission: "read",
    tag: "metrics",
    summary: "Queue depths and lag, judge backlog, and each live run's training backlog and GPU plan",
    rest: { method: "GET", path: "/fleet" },
    output: FleetOverviewOutput,
    handler: ({ principal }) => fleetOverview(principal),
  }),
};
