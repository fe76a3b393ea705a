// Inputs of the experiment and run procedures, shared by tRPC and REST (and the OpenAPI document).
import { z } from "zod";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { IdSchema, PageInput } from "../platform/schemas";

export const SlugSchema = z
  .string()
  .min(2, "slug must be at least 2 characters")
  .max(63, "slug must be at most 63 characters")
  .regex(
    /^[a-z0-9][a-z0-9-]*$/,
    "slug may contain lowercase letters, digits and dashes, starting with a letter or digit",
  );

export const ExperimentCreateInput = z.object({
  name: z.string().trim().min(1, "name is required").max(120, "name must be at most 120 characters"),
  slug: SlugSchema.optional(),
  description: z.string().max(5000).default(""),
  config: ExperimentConfigSchema.default(ExperimentConfigSchema.parse({})),
});

export const ExperimentUpdateInput = z.object({
  id: IdSchema,
  name: z.string().trim().min(1, "name is required").max(120).optional(),
  description: z.string().max(5000).optional(),
  config: ExperimentConfigSchema.optional(),
});

export const ExperimentCloneInput = z.object({
  id: IdSchema,
  name: z.string().trim().min(1).max(120).optional(),
  slug: SlugSchema.optional(),
});

export const ExperimentListInput = PageInput.extend({
  search: z.string().max(200).optional(),
  status: z.enum(["ACTIVE", "ARCHIVED", "ALL"]).default("ACTIVE"),
  method: z.enum(["grpo", "opd", "combine"]).optional(),
  sort: z.enum(["updatedAt", "createdAt", "name"]).default("updatedAt"),
  order: z.enum(["asc", "desc"]).default("desc"),
});

export const ConfigDiffInput = z.object({
  kind: z.enum(["experiment", "run"]).default("experiment"),
  a: IdSchema,
  b: IdSchema,
});

export const RunListInput = PageInput.extend({ experimentId: IdSchema.optional() });
export const RunStartInput = z.object({ experimentId: IdSchema });
export const RunActionInput = z.object({ id: IdSchema, action: z.enum(["stop", "pause", "resume"]) });
