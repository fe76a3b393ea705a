import { z } from "zod";
import { IdSchema, QueryBool } from "../platform/schemas";
import { TurnFilterSchema } from "../trajectories/schemas";

/** A queue's turn filter: the browser's filters, within the queue's experiment. */
export const QueueFilterSchema = TurnFilterSchema.omit({ experimentId: true }).default({ turnType: "MAIN" });

export const QueueCreateInput = z.object({
  experimentId: IdSchema,
  name: z.string().trim().min(1, "name is required").max(120),
  description: z.string().max(2000).default(""),
  filter: QueueFilterSchema,
  reviewersPerItem: z.number().int().min(1, "at least one reviewer").max(10).default(1),
  lockTtlS: z
    .number()
    .int()
    .min(30, "locks last at least 30 s")
    .max(24 * 3600)
    .default(300),
  /** Emails of the reviewers assigned; none = every reviewer may work the queue. */
  assignees: z.array(z.string().email().max(320)).max(200).default([]),
});

export const QueueUpdateInput = z.object({
  id: IdSchema,
  name: z.string().trim().min(1).max(120).optional(),
  description: z.string().max(2000).optional(),
  reviewersPerItem: z.number().int().min(1).max(10).optional(),
  lockTtlS: z
    .number()
    .int()
    .min(30)
    .max(24 * 3600)
    .optional(),
  assignees: z.array(z.string().email().max(320)).max(200).optional(),
  archived: z.boolean().optional(),
});

export const QueueListInput = z.object({
  experimentId: IdSchema.optional(),
  includeArchived: QueryBool.default(false),
});

export const QueueAddTurnsInput = z.object({ queueId: IdSchema, turnIds: z.array(IdSchema).min(1).max(1000) });

export const ItemInput = z.object({ itemId: IdSchema });

/**
 * Accept: the current label stands (recorded as the reviewer's). Fix & Accept: the reviewer's value / hint /
 * exclusion replace it. Reject: the turn is excluded from training.
 */
export const SubmitInput = z.object({
  itemId: IdSchema,
  verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
  value: z.union([z.literal(1), z.literal(0), z.literal(-1)]).optional(),
  hint: z.string().max(2000).optional(),
  exclude: z.boolean().optional(),
  comment: z.string().max(2000).optional(),
});
