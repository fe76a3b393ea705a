import { z } from "zod";
import { IdSchema, LimitSchema, PageInput, QueryBool } from "../platform/schemas";

/** Opaque keyset cursor (see cursor.ts); longer than an id, so not PageInput's. */
export const CursorSchema = z.string().max(200);

export const SessionListInput = PageInput.extend({
  cursor: CursorSchema.optional(),
  experimentId: IdSchema.optional(),
  externalId: z.string().max(200).optional(),
  simulated: QueryBool.optional(),
  done: QueryBool.optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
});

/** Every filter of the trajectory browser; review queues store one of these to pick their turns. */
export const TurnFilterSchema = z.object({
  experimentId: IdSchema.optional(),
  runId: IdSchema.optional(),
  /** Our session id, or the client's (external) session id. */
  sessionId: z.string().min(1).max(200).optional(),
  turnType: z.enum(["MAIN", "SIDE"]).optional(),
  status: z.enum(["OK", "FAILED"]).optional(),
  /** Score of the latest judgment; "unjudged" = no judgment yet. */
  score: z.enum(["1", "0", "-1", "unjudged"]).optional(),
  /** Eval votes of the latest judgment: all valid votes agree, or not. */
  agreement: z.enum(["unanimous", "split"]).optional(),
  /** Has (or has no) reviewer label. */
  relabeled: QueryBool.optional(),
  /** Disputed: split eval votes, or the user's feedback disagrees with the judge. */
  disputed: QueryBool.optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  policyVersion: z.coerce.number().int().min(0).optional(),
  /** The end user an identity key named (X-User-Id): one person's turns. */
  endUserId: z.string().min(1).max(128).optional(),
  /** Full-text search (web-search syntax: words, "phrases", -excluded, or) over messages, response and next state. */
  q: z.string().trim().max(300).optional(),
});
export type TurnFilter = z.output<typeof TurnFilterSchema>;

export const TurnListInput = TurnFilterSchema.extend({
  cursor: CursorSchema.optional(),
  limit: LimitSchema,
});

/** GET /sessions/{id}: `id` is ours or the client's session id (up to 200 chars, like `/turns?sessionId=`). */
export const SessionGetParams = z.object({ id: z.string().min(1).max(200) });
export const SessionGetQuery = z.object({ experimentId: IdSchema.optional() });

export const ConversationInput = z.object({
  sessionId: IdSchema,
  /** Turns with a larger index than this (pagination through long sessions). */
  cursor: z.coerce.number().int().min(-1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  lane: z.enum(["MAIN", "SIDE", "ALL"]).default("MAIN"),
});

export const LabelCreateInput = z.object({
  turnId: IdSchema,
  value: z.union([z.literal(1), z.literal(0), z.literal(-1)], { message: "value must be 1, 0 or -1" }),
  hint: z.string().max(2000).optional(),
  /** true: exclude from training; false: train it even where the dispatch would exclude it; absent: leave that to the dispatch */
  exclude: z.boolean().optional(),
  comment: z.string().max(2000).optional(),
});

export const LabelListInput = PageInput.extend({ turnId: IdSchema.optional(), experimentId: IdSchema.optional() });

export const AuditListInput = PageInput.extend({
  experimentId: IdSchema.optional(),
  turnId: IdSchema.optional(),
  action: z.string().max(100).optional(),
});
