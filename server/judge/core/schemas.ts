// Zod schemas for everything the judge exchanges with the outside world: experiment settings,
// the turn handed to the judge, votes, the aggregate result and custom reward module output.
import { z } from "zod";

/** An OpenAI-style content part; only `text` parts carry meaning for the judge and the teacher. */
export const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

/** An OpenAI chat message as recorded by the proxy (extra keys such as tool_calls are kept). */
export const ChatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const JudgeMethodSchema = z.enum(["grpo", "opd", "combine"]);
export type JudgeMethod = z.infer<typeof JudgeMethodSchema>;

/** `openai`: any OpenAI-compatible chat server; `heuristic`: embedded rules; `custom`: a reward module. */
export const JudgeKindSchema = z.enum(["openai", "heuristic", "custom"]);
export type JudgeKind = z.infer<typeof JudgeKindSchema>;

/**
 * Judge settings stored in the experiment config. Secrets (API keys) are not part of it; they are
 * passed to the backend factory separately so they never reach the judgment record.
 */
export const JudgeSettingsSchema = z
  .object({
    kind: JudgeKindSchema.default("heuristic"),
    baseUrl: z.url().optional(),
    model: z.string().min(1).optional(),
    m: z.int().min(1).max(16).default(3),
    temperature: z.number().min(0).max(2).default(0.6),
    maxTokens: z.int().min(16).max(32_768).default(4096),
    includeRequest: z.boolean().default(false),
    /** OPD/combine: also run PRM eval votes (needed for combine's RL branch; a metric for OPD). */
    evalMode: z.boolean().default(true),
    /** OPD: which accepted hint wins (vote.ts selectBestHint; the train-time modes score candidate 0). */
    hintSelection: z.enum(["longest", "shortest", "token_optimal", "sequence_optimal"]).default("longest"),
    /** OPD/combine: hint-generating calls per turn; unset = m (upstream's --hint-m falls back to --prm-m). */
    hintM: z.int().min(1).max(16).optional(),
    timeoutMs: z.int().min(50).max(600_000).default(120_000),
    retries: z.int().min(0).max(10).default(2),
    concurrency: z.int().min(1).max(64).default(4),
    customRewardPath: z.string().min(1).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.kind === "openai" && (!s.baseUrl || !s.model)) {
      ctx.addIssue({
        code: "custom",
        message: "an OpenAI-compatible judge needs baseUrl and model",
        path: ["baseUrl"],
      });
    }
    if (s.kind === "custom" && !s.customRewardPath) {
      ctx.addIssue({ code: "custom", message: "a custom judge needs customRewardPath", path: ["customRewardPath"] });
    }
  });
export type JudgeSettings = z.infer<typeof JudgeSettingsSchema>;
export type JudgeSettingsInput = z.input<typeof JudgeSettingsSchema>;

/** Where teacher log-probs come from. `embedded` is served by the in-process policy's scorer. */
export const TeacherSettingsSchema = z
  .object({
    kind: z.enum(["none", "sglang", "vllm", "embedded"]).default("none"),
    baseUrl: z.url().optional(),
    model: z.string().min(1).optional(),
    /**
     * How the hinted context becomes tokens: the server applies the model's template (vLLM /tokenize with
     * messages), we render the checkpoint's own template (`chatTemplate`), or local Qwen ChatML (fallback).
     */
    template: z.enum(["chatml", "server", "checkpoint"]).optional(),
    /** The checkpoint's Jinja chat template (tokenizer_config.json `chat_template`), for template "checkpoint". */
    chatTemplate: z.string().min(1).optional(),
    /** Extra template variables the serving path passes (e.g. { enable_thinking: false }). */
    chatTemplateKwargs: z.record(z.string(), z.unknown()).optional(),
    /** vLLM: 0 needs a vLLM that accepts echo-only requests; 1 works on every version (the extra token is dropped). */
    vllmMaxTokens: z.union([z.literal(0), z.literal(1)]).default(1),
    timeoutMs: z.int().min(50).max(600_000).default(120_000),
    retries: z.int().min(0).max(10).default(2),
    /** The reference's scripts cap teacher scoring at 1 concurrent request. */
    concurrency: z.int().min(1).max(64).default(1),
  })
  .superRefine((s, ctx) => {
    if ((s.kind === "sglang" || s.kind === "vllm") && !s.baseUrl) {
      ctx.addIssue({ code: "custom", message: `a ${s.kind} teacher needs baseUrl`, path: ["baseUrl"] });
    }
    if (s.kind === "vllm" && !s.model) {
      ctx.addIssue({ code: "custom", message: "a vllm teacher needs model", path: ["model"] });
    }
    if (s.template === "checkpoint" && !s.chatTemplate) {
      ctx.addIssue({
        code: "custom",
        message: "template checkpoint needs the checkpoint's chatTemplate",
        path: ["chatTemplate"],
      });
    }
    if (s.kind === "sglang" && s.template === "server") {
      ctx.addIssue({
        code: "custom",
        message:
          "the SGLang teacher tokenizes rendered text (sgl-router has no chat tokenizer); use template chatml or checkpoint",
        path: ["template"],
      });
    }
  });
export type TeacherSettings = z.infer<typeof TeacherSettingsSchema>;

export const VoteValueSchema = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
export type VoteValue = z.infer<typeof VoteValueSchema>;

/** One judge call. `value` is null when the call failed or its answer could not be parsed. */
export const JudgeVoteSchema = z.object({
  kind: z.enum(["eval", "hint"]),
  index: z.int().min(0),
  raw: z.string(),
  value: VoteValueSchema.nullable(),
  hint: z.string().nullable(),
  latencyMs: z.int().min(0).nullable(),
  error: z.string().nullable(),
});
export type JudgeVote = z.infer<typeof JudgeVoteSchema>;

export const SampleKindSchema = z.enum(["RL", "OPD", "BOTH"]);
export type SampleKind = z.infer<typeof SampleKindSchema>;

export const DispatchSchema = z.object({
  kind: SampleKindSchema.nullable(),
  reward: z.number(),
  excluded: z.boolean(),
  excludeReason: z.string().nullable(),
});
export type Dispatch = z.infer<typeof DispatchSchema>;

export const JudgmentResultSchema = z.object({
  /** Majority of the PRM eval votes (0 when none ran or none was valid). */
  score: VoteValueSchema,
  /** Mean of the valid eval votes (`rollout/prm_eval_score`); null when there were none. */
  evalScore: z.number().nullable(),
  votes: z.array(JudgeVoteSchema),
  hint: z.string().nullable(),
  hintAccepted: z.boolean(),
  teacherLogprobs: z.array(z.number()).nullable(),
  /** Set when a hint was accepted but teacher scoring failed; the worker may retry instead of storing. */
  teacherError: z.string().nullable(),
  dispatch: DispatchSchema,
  judgeKind: JudgeKindSchema,
  judgeVersion: z.string(),
  model: z.string(),
  promptVersion: z.string(),
  settings: z.record(z.string(), z.unknown()),
  latencyMs: z.int().min(0),
});
export type JudgmentResult = z.infer<typeof JudgmentResultSchema>;

/** What a custom reward module returns for one turn. */
export const CustomRewardResultSchema = z.object({
  votes: z.array(VoteValueSchema.nullable()).max(64),
  score: VoteValueSchema,
  hint: z.string().nullable().optional(),
});
export type CustomRewardResult = z.infer<typeof CustomRewardResultSchema>;
