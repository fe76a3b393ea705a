import { scopedProcedure, router } from "../trpc";
import * as metrics from "../../../metrics/service";
import { MetricsCatalogInput, MetricsQueryInput, MetricsSeriesInput } from "../../../metrics/schemas";

export const metricsRouter = router({
  series: scopedProcedure("read")
    .input(MetricsSeriesInput)
    .query(({ ctx, input }) => metrics.querySeries(ctx.principal, input)),
  catalog: scopedProcedure("read")
    .input(MetricsCatalogInput)
    .query(({ ctx, input }) => metrics.metricCatalog(ctx.principal, input)),
  points: scopedProcedure("read")
    .input(MetricsQueryInput)
    .query(({ ctx, input }) => metrics.queryMetricPoints(ctx.principal, input)),
});
