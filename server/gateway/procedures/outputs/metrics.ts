// Output schemas of the metrics procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Num } from "./common";

export const MetricsPointsOutput = z.object({
  points: z.array(
    z.object({ name: z.string(), runId: z.string().nullable(), step: Num.nullable(), value: Num, ts: z.string() }),
  ),
});

export const MetricsSeriesOutput = z.object({
  axis: z.enum(["step", "time"]),
  series: z.array(
    z.object({
      runId: z.string().nullable(),
      name: z.string(),
      axis: z.enum(["step", "time"]),
      total: Num,
      level: Num,
      width: Num,
      points: z.array(
        z.object({ x: Num, last: Num, min: Num, max: Num, mean: Num, count: Num, step: Num.nullable(), ts: Num }),
      ),
    }),
  ),
});

export const MetricsCatalogOutput = z.array(
  z.object({
    runId: z.string().nullable(),
    name: z.string(),
    count: Num,
    lastTs: z.date(),
    last: Num,
    lastStep: Num.nullable(),
  }),
);
