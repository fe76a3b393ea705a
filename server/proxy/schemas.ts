// Wire schemas of the proxy's public endpoints. Objects are loose on purpose: clients send fields we do not
// know (store, tool_choice, parallel_tool_calls, vendor extras) and those must reach the upstream unchanged.
import { z } from "zod";

export const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

export const ToolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string().optional() }),
});

export const MessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], {
    message: "role must be one of system, developer, user, assistant, tool, function",
  }),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).nullish(),
  tool_call_id: z.string().optional(),
});

export type ChatMessage = z.infer<typeof MessageSchema>;

const positiveInt = z.number().int().positive();

export const ChatRequestSchema = z.looseObject({
  /** An experiment slug when the key is not bound to one; otherwise free (it is replaced by the upstream's model). */
  model: z.string().max(256).optional(),
  messages: z.array(MessageSchema).min(1, "messages must hold at least one message"),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  // Recording keeps one response per turn: several choices would make "the" next state ambiguous.
  n: z.literal(1, { message: "n must be 1: the proxy records one response per turn" }).nullish(),
  // OpenClaw-RL's body fallbacks for the session headers; removed before forwarding.
  session_id: z.union([z.string().max(200), z.number()]).nullish(),
  turn_type: z.string().max(40).nullish(),
  session_done: z.union([z.boolean(), z.string().max(10), z.number()]).nullish(),
});

export type ChatRequest = z.infer<typeof ChatRequestSchema>;

export const FeedbackSchema = z
  .object({
    /** The session id the proxy showed (X-Session-Id); the feedback applies to its latest main turn. */
    session_id: z.string().min(1).max(200).optional(),
    /** A specific turn (the X-Turn-Id response header). */
    turn_id: z.string().min(1).max(64).optional(),
    /** Experiment slug, needed with session_id when the key is not bound to an experiment. */
    model: z.string().max(256).optional(),
    value: z.union([z.literal(1), z.literal(-1)], { message: "value must be 1 (good) or -1 (bad)" }),
    comment: z.string().max(2000).optional(),
  })
  .strict();

export type Feedback = z.infer<typeof FeedbackSchema>;
