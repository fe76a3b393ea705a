// The one experiment config schema, shared by the form, tRPC, REST and every worker.
// Defaults follow OpenClaw-RL's launch scripts (see shared/reference/openclaw-rl.md §5–6).
import { z } from "zod";
import { GpuSplitSchema, planGpuSplit } from "../gpu/plan";

const httpUrl = z
  .string()
  .url("must be a URL such as http://127.0.0.1:30001/v1")
  .refine((u) => /^https?:\/\//.test(u), "must start with http:// or https://");

/** Write-only secret: send a string to set it, "" to clear it, omit to keep the stored one. */
const secretInput = z.string().max(4096).optional();

export const UpstreamSchema = z.object({
  baseUrl: httpUrl,
  model: z.string().min(1, "model name is required").max(200),
  apiKey: secretInput,
});

export const PolicyBackendSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("embedded"), checkpoint: z.string().default("models/base") }),
  UpstreamSchema.extend({ kind: z.literal("openai") }),
  UpstreamSchema.extend({ kind: z.literal("sglang") }),
]);

export const JudgeBackendSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("heuristic") }),
  UpstreamSchema.extend({ kind: z.literal("openai") }),
  UpstreamSchema.extend({ kind: z.literal("sglang") }),
  z.object({ kind: z.literal("custom"), modulePath: z.string().min(1, "path to the custom reward module") }),
]);

export const JudgeSchema = z.object({
  backend: JudgeBackendSchema.default({ kind: "heuristic" }),
  votes: z.number().int().min(1, "at least one vote").max(16, "at most 16 votes").default(3),
  temperature: z.number().min(0).max(2).default(0.6),
  maxTokens: z.number().int().min(16).max(32768).default(4096),
  includeRequest: z.boolean().default(false),
  evalMode: z.boolean().default(true),
});

export const HyperparamsSchema = z.object({
  lr: z.number().positive("learning rate must be > 0").max(1, "learning rate above 1 diverges").default(1e-5),
  epsClip: z.number().min(0).max(1).default(0.2),
  epsClipHigh: z.number().min(0).max(1).default(0.28),
  klCoef: z.number().min(0).default(0),
  entropyCoef: z.number().min(0).default(0),
  batchSize: z.number().int().min(1).max(4096).default(16),
  wOpd: z.number().min(0).default(1),
  wRl: z.number().min(0).default(1),
  maxStaleness: z.number().int().min(0).default(4),
  stalePolicy: z.enum(["drop", "importance-weight"]).default("drop"),
  keepCheckpoints: z.number().int().min(1).max(1000).default(5),
  gradClip: z.number().positive().default(1),
});

export const LoraSchema = z.object({
  enabled: z.boolean().default(false),
  rank: z.number().int().min(1).max(1024).default(16),
  alpha: z.number().int().min(1).max(4096).default(32),
});

export const TrainerSchema = z.object({
  /** tinker = the remote LoRA training service; it needs the user's own TINKER_API_KEY on the trainer host. */
  backend: z.enum(["embedded", "ray-slime", "local-process", "tinker"]).default("embedded"),
  gpu: GpuSplitSchema.default(GpuSplitSchema.parse({})),
  rayAddress: httpUrl.optional(),
});

export const ServingSchema = z.object({
  /** Turn type when the client sends none. The reference defaults to side; stock clients need main. */
  defaultTurnType: z.enum(["main", "side"]).default("main"),
  sidePatterns: z.array(z.string().max(500)).max(50).default([]),
  contextPatterns: z.array(z.string().max(500)).max(50).default([]),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(32768).default(256),
  /** always: a new version is served as soon as it exists; gated: only once its evaluation passes the gate. */
  promotion: z.enum(["always", "gated"]).default("always"),
  gate: z
    .object({
      /** promote when eval ≥ served eval − tolerance (scores are 0…1) */
      tolerance: z.number().min(0).max(1).default(0.05),
      /** and, when set, eval ≥ floor */
      floor: z.number().min(0).max(1).optional(),
    })
    .default({ tolerance: 0.05 }),
  /** Roll back when the served version's live judged reward falls below its predecessor's by `margin`. */
  autoRollback: z
    .object({
      enabled: z.boolean().default(false),
      /** on the judge's −1…1 scale */
      margin: z.number().positive().max(2).default(0.3),
      /** judged main turns each of the two versions must have served */
      minTurns: z.number().int().min(1).max(100_000).default(20),
    })
    .default({ enabled: false, margin: 0.3, minTurns: 20 }),
});

/** Held-out evaluation of policy versions (server/evaluation, workers/evaluate). */
export const EvaluationConfigSchema = z.object({
  enabled: z.boolean().default(false),
  /** evaluate every N-th version (a gated experiment evaluates every candidate) */
  every: z.number().int().min(1).max(1000).default(1),
  /** the eval set's name; default: the experiment's first set */
  set: z.string().min(1).max(200).optional(),
  grader: z.enum(["persona", "judge", "custom"]).default("persona"),
  /** custom grader module (same extension style as the custom reward) */
  graderPath: z.string().min(1).optional(),
  /** replies per prompt */
  k: z.number().int().min(1).max(16).default(2),
  temperature: z.number().min(0).max(2).default(0.7),
  seed: z.number().int().min(0).default(1),
  maxTokens: z.number().int().min(1).max(32768).default(256),
  /** judge votes per reply (model-judge grader) */
  votes: z.number().int().min(1).max(16).default(3),
  /** per-version budget: generation stops (status PARTIAL) at either bound */
  budget: z
    .object({ maxReplyTokens: z.number().int().min(1).default(20_000), maxSeconds: z.number().int().min(1).default(600) })
    .default({ maxReplyTokens: 20_000, maxSeconds: 600 }),
  /** judge–human agreement warning: κ below this over at least minLabeled labelled turns */
  agreement: z
    .object({ kappaThreshold: z.number().min(-1).max(1).default(0.6), minLabeled: z.number().int().min(1).default(30) })
    .default({ kappaThreshold: 0.6, minLabeled: 30 }),
});

export const ExperimentConfigSchema = z
  .object({
    method: z.enum(["grpo", "opd", "combine"]).default("combine"),
    policy: PolicyBackendSchema.default({ kind: "embedded", checkpoint: "models/base" }),
    judge: JudgeSchema.default(JudgeSchema.parse({})),
    trainer: TrainerSchema.default(TrainerSchema.parse({})),
    hyper: HyperparamsSchema.default(HyperparamsSchema.parse({})),
    lora: LoraSchema.default(LoraSchema.parse({})),
    serving: ServingSchema.default(ServingSchema.parse({})),
    evaluation: EvaluationConfigSchema.default(EvaluationConfigSchema.parse({})),
    customLossPath: z.string().min(1).optional(),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.hyper.epsClipHigh < cfg.hyper.epsClip) {
      ctx.addIssue({
        code: "custom",
        path: ["hyper", "epsClipHigh"],
        message: `eps-clip-high (${cfg.hyper.epsClipHigh}) must be ≥ eps-clip (${cfg.hyper.epsClip})`,
      });
    }
    if (cfg.method === "combine" && cfg.hyper.wOpd === 0 && cfg.hyper.wRl === 0) {
      ctx.addIssue({ code: "custom", path: ["hyper", "wRl"], message: "combine needs w_opd or w_rl above 0" });
    }
    if (cfg.method !== "grpo" && cfg.judge.backend.kind === "custom") {
      ctx.addIssue({
        code: "custom",
        path: ["judge", "backend"],
        message: "a custom reward module gives scores only: use method grpo, or a model judge for OPD hints",
      });
    }
    if (cfg.serving.promotion === "gated" && !cfg.evaluation.enabled) {
      ctx.addIssue({ code: "custom", path: ["serving", "promotion"], message: "gated promotion needs evaluation.enabled: nothing would ever be promoted" });
    }
    if (cfg.serving.promotion === "gated" && cfg.policy.kind !== "embedded") {
      ctx.addIssue({ code: "custom", path: ["serving", "promotion"], message: "an external rollout engine serves new weights as soon as it loads them: gated promotion needs the embedded policy" });
    }
    if (cfg.evaluation.grader === "judge" && (cfg.judge.backend.kind === "heuristic" || cfg.judge.backend.kind === "custom")) {
      ctx.addIssue({ code: "custom", path: ["evaluation", "grader"], message: "the judge grader needs a model judge (OpenAI-compatible or SGLang judge backend)" });
    }
    if (cfg.evaluation.grader === "custom" && !cfg.evaluation.graderPath) {
      ctx.addIssue({ code: "custom", path: ["evaluation", "graderPath"], message: "a custom grader needs the path to its module" });
    }
    if (cfg.trainer.backend === "ray-slime" || cfg.trainer.backend === "local-process") {
      const plan = planGpuSplit(cfg.trainer.gpu);
      if (!plan.ok) for (const e of plan.errors) ctx.addIssue({ code: "custom", path: ["trainer", "gpu", e.field], message: e.message });
      if (cfg.trainer.backend === "ray-slime" && !cfg.trainer.rayAddress) {
        ctx.addIssue({ code: "custom", path: ["trainer", "rayAddress"], message: "ray-slime needs the Ray dashboard address, e.g. http://head:8265" });
      }
      if (cfg.policy.kind === "embedded") {
        ctx.addIssue({ code: "custom", path: ["policy", "kind"], message: "GPU trainers serve through SGLang: choose policy kind sglang" });
      }
    }
  });

export type ExperimentConfigInput = z.input<typeof ExperimentConfigSchema>;
export type ExperimentConfig = z.output<typeof ExperimentConfigSchema>;

/** Paths of write-only secrets inside the config. */
export const SECRET_PATHS = [
  ["policy", "apiKey"],
  ["judge", "backend", "apiKey"],
] as const;
