import { z } from "zod";
import { IdSchema, PageInput } from "../experiments/schemas";

export const SessionListInput = PageInput.extend({
  experimentId: IdSchema.optional(),
  externalId: z.string().max(200).optional(),
  simulated: z.coerce.boolean().optional(),
});

export const TurnListInput = PageInput.extend({
  experimentId: IdSchema.optional(),
  sessionId: IdSchema.optional(),
  runId: IdSchema.optional(),
  turnType: z.enum(["MAIN", "SIDE"]).optional(),
  status: z.enum(["OK", "FAILED"]).optional(),
  policyVersion: z.coerce.number().int().min(0).optional(),
});

export const LabelCreateInput = z.object({
  turnId: IdSchema,
  value: z.union([z.literal(1), z.literal(0), z.literal(-1)], { message: "value must be 1, 0 or -1" }),
  hint: z.string().max(2000).optional(),
  exclude: z.boolean().default(false),
  comment: z.string().max(2000).optional(),
});

export const LabelListInput = PageInput.extend({ turnId: IdSchema.optional(), experimentId: IdSchema.optional() });

export const MetricsQueryInput = z.object({
  experimentId: IdSchema.optional(),
  runId: IdSchema.optional(),
  names: z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : v.split(",")).filter(Boolean)).optional(),
  since: z.coerce.date().optional(),
  limit: z.coerce.number().int().min(1).max(100_000).default(5000),
}).refine((v) => v.experimentId || v.runId, { message: "give experimentId or runId", path: ["runId"] });
