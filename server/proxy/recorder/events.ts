// What the request path hands to the writer. Everything needed to write a turn idempotently travels in the
// event (ids are generated up front), so an event can wait in memory or on disk and be written — or written
// again after a crash — with the same result.
import { z } from "zod";

const LinkSchema = z.object({
  /** The previous main turn's id, or "lookup": the session was not in this process's memory (restart). */
  target: z.string(),
  nextState: z.unknown(),
  role: z.string(),
  at: z.number(),
});

const BlobSchema = z.object({
  hash: z.string(),
  kind: z.enum(["system", "tools"]),
  content: z.unknown(),
  bytes: z.number().int(),
});

export const TurnEventSchema = z.object({
  t: z.literal("turn"),
  id: z.string(),
  requestId: z.string(),
  experimentId: z.string(),
  runId: z.string().nullable(),
  session: z.object({ externalId: z.string(), idSource: z.string() }),
  /** The index the shared session order gave it (Redis); absent or null: the writer appends it. */
  index: z.number().int().nullable().optional(),
  turnType: z.enum(["MAIN", "SIDE"]),
  typeSource: z.string(),
  status: z.enum(["OK", "FAILED"]),
  systemHash: z.string().nullable(),
  toolsHash: z.string().nullable(),
  /** Blob contents not yet handed to the writer by this process. */
  blobs: z.array(BlobSchema),
  messagesOffset: z.number().int(),
  messagesDelta: z.array(z.unknown()),
  params: z.record(z.string(), z.unknown()),
  content: z.string().nullable(),
  toolCalls: z.unknown().nullable(),
  reasoning: z.string().nullable(),
  finishReason: z.string().nullable(),
  tokenIds: z.array(z.number().int()),
  logprobs: z.array(z.number()),
  promptTokens: z.number().int().nullable(),
  completionTokens: z.number().int().nullable(),
  ttftMs: z.number().int().nullable(),
  latencyMs: z.number().int().nullable(),
  policyVersion: z.number().int(),
  upstreamModel: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.number(),
  link: LinkSchema.nullable(),
  /** This request closed the session. */
  done: z.boolean(),
  /** The main turn to judge without a next state because the session ended. */
  finalTurnId: z.string().nullable(),
  /** Simulated-user traffic (optional: events buffered by an older proxy have neither). */
  simulated: z.boolean().optional(),
  persona: z.string().max(64).nullable().optional(),
  /** Identity (X-User-Id / X-Agent-Id) and the per-user adapter that served the turn; absent from older events. */
  endUserId: z.string().max(128).nullable().optional(),
  agentId: z.string().max(128).nullable().optional(),
  adapterId: z.string().nullable().optional(),
});

export const LabelEventSchema = z.object({
  t: z.literal("label"),
  id: z.string(),
  turnId: z.string(),
  value: z.number().int(),
  comment: z.string().nullable(),
  apiKeyId: z.string().nullable(),
  createdAt: z.number(),
});

/**
 * A next state whose turn was not in Postgres yet when the turn carrying it was written: another replica's
 * writer has it queued (or buffered through an outage). Retried until the turn appears or `until` passes.
 */
export const LinkEventSchema = z.object({
  t: z.literal("link"),
  experimentId: z.string(),
  target: z.string(),
  nextState: z.unknown(),
  role: z.string(),
  at: z.number(),
  until: z.number(),
});

export const RecordEventSchema = z.discriminatedUnion("t", [TurnEventSchema, LabelEventSchema, LinkEventSchema]);

export type TurnEvent = z.infer<typeof TurnEventSchema>;
export type LabelEvent = z.infer<typeof LabelEventSchema>;
export type LinkEvent = z.infer<typeof LinkEventSchema>;
export type RecordEvent = z.infer<typeof RecordEventSchema>;
