import { z } from "zod";
import { IdSchema } from "../platform/schemas";

const names = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().max(200)).max(64, "at most 64 metric names"));

/** Run ids to overlay; "" stands for the experiment-level series (points recorded without a run). */
const runIds = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()))
  .pipe(
    z
      .array(z.union([IdSchema, z.literal("")]))
      .min(1)
      .max(10, "overlay at most 10 runs"),
  );

export const AxisSchema = z.enum(["step", "time"]);
export type Axis = z.output<typeof AxisSchema>;

/** Raw points (the original REST /metrics read): newest window first capped by `limit`. */
export const MetricsQueryInput = z
  .object({
    experimentId: IdSchema.optional(),
    runId: IdSchema.optional(),
    names: names.optional(),
    since: z.coerce.date().optional(),
    limit: z.coerce.number().int().min(1).max(100_000).default(5000),
  })
  .refine((v) => v.experimentId || v.runId, { message: "give experimentId or runId", path: ["runId"] });

/** Charts: each (run, name) series bucketed server-side to at most `maxPoints` points. */
export const MetricsSeriesInput = z.object({
  experimentId: IdSchema,
  runIds,
  names,
  axis: AxisSchema.default("step"),
  /** x range (steps, or epoch ms on the time axis), inclusive. */
  from: z.coerce.number().int().optional(),
  to: z.coerce.number().int().optional(),
  maxPoints: z.coerce.number().int().min(10).max(5000).default(1000),
});

export const MetricsCatalogInput = z.object({
  experimentId: IdSchema,
  runIds: runIds.optional(),
});
