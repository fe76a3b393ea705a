import { z } from "zod";
import { IdSchema } from "../platform/schemas";
import { EVERYONE } from "../config/experimentConfig";

/** An end user's id as X-User-Id carries it (proxy/sessionMeta.ts IDENTITY_ID). */
export const EndUserIdSchema = z.string().regex(/^[\w.@:+-]{1,128}$/, "an end-user id as X-User-Id sends it");

export const EndUsersListInput = z.object({ experimentId: IdSchema });
export const EndUserInput = z.object({ experimentId: IdSchema, endUserId: EndUserIdSchema });
/** Whose served adapter to roll back: an end user's, or the shared adapter new users are served (EVERYONE). */
export const AdapterOwnerInput = z.object({
  experimentId: IdSchema,
  endUserId: z.union([EndUserIdSchema, z.literal(EVERYONE)]),
});
export const AdapterTrainInput = z.object({ experimentId: IdSchema });

/** A per-user adapter version trained outside (hf-local writes PEFT folders) for an engine that hot-loads them. */
export const AdapterRegisterInput = z.object({
  experimentId: IdSchema,
  endUserId: EndUserIdSchema,
  /** the PEFT folder on the engine's machine; must lie inside the operator's ADAPTER_DIRS */
  path: z
    .string()
    .min(1)
    .max(4096)
    .refine((s) => !/[\u0000-\u001f]/.test(s), "adapter path must not contain control characters"),
  rank: z.number().int().min(1).max(256),
  alpha: z.number().min(1).max(1024),
});

/** Base vs the user's served adapter on a few of their held-out prompts (greedy, the Users view's Compare). */
export const EndUserCompareInput = z.object({
  experimentId: IdSchema,
  endUserId: EndUserIdSchema,
  limit: z.number().int().min(1).max(5).default(3),
  maxTokens: z.number().int().min(1).max(256).default(64),
});

/** Per-user reward curves, beside the shared policy's of this experiment or of `sharedExperimentId`. */
export const EndUserCurvesInput = z.object({ experimentId: IdSchema, sharedExperimentId: IdSchema.optional() });
