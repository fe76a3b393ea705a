// Inputs of the policy-version procedures, shared by tRPC and REST.
import { z } from "zod";
import { IdSchema, PageInput } from "../platform/schemas";

export const PolicyVersionListInput = PageInput.extend({
  experimentId: IdSchema,
  runId: IdSchema.optional(),
});

export const PolicyVersionGetInput = z.object({
  experimentId: IdSchema,
  version: z.coerce.number().int().min(1),
});

export const PromoteInput = z.object({
  experimentId: IdSchema,
  version: z.coerce.number().int().min(1, "version 0 is the base checkpoint: roll back to it instead"),
});

export const RollbackInput = z.object({
  experimentId: IdSchema,
  /** default: the ACTIVE version's parent; 0 = the experiment's base checkpoint */
  toVersion: z.coerce.number().int().min(0).optional(),
});
