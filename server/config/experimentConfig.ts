// The one experiment config schema, shared by the form, tRPC, REST and every worker.
// Defaults follow OpenClaw-RL's launch scripts (`openclaw-rl/run_qwen3_4b_openclaw_rl.sh` and the OPD/combine scripts beside it).
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

/**
 * Serve each trained version as a LoRA adapter hot-loaded into this engine (SGLang started with --enable-lora, or
 * vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING): the proxy loads the version's PEFT folder, then names it per request.
 * For hf-local, whose checkpoints are PEFT adapters on the same machine. Unset: the engine serves what it serves.
 */
const LoraAdaptersSchema = z.enum(["sglang", "vllm"]).optional();

/**
 * Per-user adapters the proxy keeps loaded in that engine at once (unset: 8): it unloads its least recently used
 * one before loading another, so the engine's own limit (SGLang --max-loaded-loras, vLLM --max-cpu-loras) is not
 * what decides which user loses theirs. Set it to at most the engine's limit.
 */
const LoraMaxLoadedSchema = z.number().int().min(1).max(4096).optional();

export const PolicyBackendSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("embedded"), checkpoint: z.string().default("models/base") }),
  UpstreamSchema.extend({
    kind: z.literal("openai"),
    loraAdapters: LoraAdaptersSchema,
    loraMaxLoaded: LoraMaxLoadedSchema,
  }),
  UpstreamSchema.extend({
    kind: z.literal("sglang"),
    loraAdapters: LoraAdaptersSchema,
    loraMaxLoaded: LoraMaxLoadedSchema,
  }),
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
  /**
   * Which accepted hint teaches OPD: the longest (reference), the shortest, or upstream's `--hint-selection`
   * train-time modes (slime/slime/utils/arguments.py @f48ac35): token_optimal / sequence_optimal keep every
   * accepted hint and, per response token or per response, train on the candidate whose top-K tokens overlap
   * the student's most (server/engine/hintSelection.ts).
   */
  hintSelection: z.enum(["longest", "shortest", "token_optimal", "sequence_optimal"]).default("longest"),
  /**
   * Hint-generating judge calls per turn (OPD/combine). Unset = `votes`, as upstream OpenClaw-RL's
   * `--hint-m` falls back to `--prm-m` (slime/slime/utils/arguments.py @f48ac35): more hint candidates
   * without more eval votes, or fewer.
   */
  hintM: z.number().int().min(1, "at least one hint call").max(16, "at most 16 hint calls").optional(),
  /**
   * The policy checkpoint's own chat template (tokenizer_config.json `chat_template`). A remote teacher
   * renders the hinted context with it, as the policy server rendered the prompt; without it the teacher
   * falls back to Qwen ChatML (exact for Qwen2.5/Qwen3 instruct only).
   */
  chatTemplate: z.string().max(256_000, "a chat template is at most 256 KB").optional(),
  /** Template variables the serving path passes, e.g. { "enable_thinking": false } for Qwen3 thinking models. */
  chatTemplateKwargs: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).default({}),
});

export const HyperparamsSchema = z.object({
  // 0 is allowed: a control run (same data, same pipeline, no update) for a learning claim.
  lr: z
    .number()
    .min(0, "learning rate must be ≥ 0 (0 = a control run that never moves)")
    .max(1, "learning rate above 1 diverges")
    .default(1e-5),
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
  /**
   * OPD estimator: "sampled" = the reference's A_t = teacher − π on the sampled tokens; "topk" = reverse KL to
   * the teacher over its top-K tokens plus a tail bin (reference topk_distillation_loss); "full" = over the
   * whole vocabulary (embedded trainer only: it needs the teacher's full distribution in-process).
   */
  opdEstimator: z.enum(["sampled", "topk", "full"]).default("sampled"),
  topK: z.number().int().min(1).max(1024).default(50),
  /** OPD teacher: the frozen base + hint (reference) or the current policy + hint (stop-gradient; embedded only). */
  teacherSource: z.enum(["base", "current"]).default("base"),
  /** |teacher − π| cap on the sampled OPD term; 0 = unclamped (reference). */
  advClamp: z.number().min(0).max(100).default(0),
  /**
   * slime's top-K OPD (the topk estimator: method opd alone, or combine's hybrid): the advantage-difference clip
   * clamp(log π_teacher − log π_old, ±c) of upstream's openclaw_topk_select_loss (OPENCLAW_TOPK_ADV_DIFF_CLIP); 0 = off.
   * 1.0 is upstream's launcher (openclaw-combine/run_qwen3_4b_openclaw_topk_select.sh, extracted into
   * tests/fixtures/slime/sample-contract.json `hybrid.launcher.env`); the loss's own fallback when unset is 2.0. A
   * knob of its own: advClamp is the sampled estimator's cap, which upstream's sampled combine loss does not have.
   */
  topkDiffClip: z.number().min(0).max(100).default(1),
  /**
   * Whiten the advantages over the batch's response tokens (slime --normalize-advantages): a baseline for the ±1
   * rewards, so the content shared by approved and rejected replies is not pushed down with the rejected ones.
   * Off in the reference (A = r).
   */
  normalizeAdvantages: z.boolean().default(false),
  /**
   * What the whitening's baseline is taken over: the whole batch (slime), or each context of the reply separately —
   * first reply, after a correction, after an approval — so an unprompted success is not ranked with a reply that
   * merely followed the user's instruction. Departs from the reference (batch).
   */
  advantageGroups: z.enum(["batch", "context"]).default("batch"),
  /** PPO epochs per batch (one optimizer update each, π_old fixed after epoch 0); the reference takes 1. */
  ppoEpochs: z.number().int().min(1).max(4).default(1),
  /** β of the exact full-vocabulary KL(π ‖ base) (embedded trainer only); 0 = off (reference). */
  baseKlCoef: z.number().min(0).max(10).default(0),
  /**
   * Extrapolated distillation (ExOPD; embedded trainer, topk/full estimators): the teacher is
   * softmax(log π_base + λ·(log π_hinted − log π_base)). 1 = the hinted teacher (reference); 1–2 sharpens what the hint
   * changed.
   */
  opdExtrapolation: z.number().min(0.5).max(3).default(1),
  /**
   * Hindsight demonstrations (embedded trainer only; they depart from the reference): for OPD and Combine, replies
   * sampled from the hinted teacher (frozen base + the turn's hint) on each hinted turn, trained on the un-hinted
   * prompt by cross-entropy; for GRPO, a reply the user approved after a correction, replayed on the prompt before the
   * correction. 0 = off.
   */
  hindsightSamples: z.number().int().min(0).max(2).default(0),
  /** weight of the hindsight cross-entropy */
  hindsightWeight: z.number().min(0).max(10).default(0.5),
  /**
   * what an OPD / Combine hindsight demonstration trains toward (embedded trainer, topk/full estimators): its sampled
   * tokens ("sampled", cross-entropy) or the hinted teacher's whole distribution at each of its positions ("teacher",
   * the forward KL); with the sampled estimator there is no teacher distribution and it stays cross-entropy
   */
  hindsightTarget: z.enum(["sampled", "teacher"]).default("sampled"),
  /**
   * where an OPD / Combine hindsight demonstration's term acts (embedded trainer, topk/full estimators): every position
   * alike ("uniform"), or each weighted by KL(teacher ‖ base) there ("hint", mean 1 per demonstration): where the hint
   * moved the teacher (perUser.hindsightFocus is the same for adapters). Here it acts only on demonstrations that keep
   * their hinted prompt, i.e. with hindsightTarget "teacher"; with "sampled" it changes nothing
   */
  hindsightFocus: z.enum(["uniform", "hint"]).default("uniform"),
  /**
   * OPD and Combine: a teacher reply becomes a demonstration only if its mean token log-prob under the hinted teacher
   * is at least this (the teacher's own confidence; babble scores about −0.2 to −0.5, a followed hint above −0.1).
   * −10 keeps every reply.
   */
  hindsightMinLogprob: z.number().min(-10).max(0).default(-0.15),
  /**
   * OPD and Combine (embedded trainer; departs from the reference, whose teacher is the hinted model as it samples):
   * the temperature the hinted teacher samples its hindsight and style demonstrations at; < 1 keeps them nearer its own
   * likeliest reply. The embedded base writes Sam's right hint greedily on seven of his eight questions but samples it
   * 3–8 times of 8, and cross-entropy on its samples carries that noise to the policy. Trained toward (in expectation)
   * the teacher's distribution sharpened by τ, as perUser.hindsightTemperature does exactly for the adapters'
   * "teacher" target (docs/personalization.md "A sharper teacher"). 1 = the teacher as it samples. Measured at 0.7 (README
   * "Where the targets stand"): Sam's mean at step 10 0.58 against 0.55, the others' within the grade's noise: off.
   */
  hindsightSampleTemperature: z.number().min(0.1).max(2).default(1),
  /**
   * OPD and Combine: a teacher reply becomes a demonstration only if the hint made it likelier — its log-prob under the
   * hinted teacher minus under the frozen base on the un-hinted prompt, summed over the reply, above this many nats.
   * Unset: off. With a style hint the embedded base still writes 10–20 % of its confident replies in another style it
   * ties to the prompt (a "Hint:" to a study question, prose, a sign-off); most of those the base writes as readily
   * without the hint (README "Combine to step 60, tried this session").
   */
  hindsightMinGain: z.number().min(-100).max(100).optional(),
  /**
   * Style demonstrations (OPD and Combine, embedded trainer, with hindsightSamples; departs from the reference, which
   * distils only corrected turns): each step also has the hinted teacher answer this many public prompts of the base
   * checkpoint's own pool (models/base/prompts.json: no held-out question among them), each with a style hint of the
   * batch (each end user's latest hint that does not restate its question), and trains the un-hinted prompts toward
   * its confident replies like the hindsight demonstrations. As perUser.stylePrompts for adapters. 0 = off.
   */
  stylePrompts: z.number().int().min(0).max(64).default(0),
  /**
   * The style demonstrations of a step whose batch holds no style hint of a user the run has heard one from use that
   * user's latest one (the trainer remembers each end user's, or the anonymous users', latest style hint for the run),
   * so they do not stop when the policy stops being corrected. Without it a well-trained policy's uncorrected batches
   * had no demonstrations and took the largest, least anchored steps of the run (README "Combine to step 60, tried this
   * session").
   * As perUser.rememberedHint for adapters. Departs from the reference, which distils only corrected turns.
   */
  rememberedStyleHints: z.boolean().default(false),
  /**
   * Hint memory (OPD and Combine; departs from the reference, which distils only corrected turns): an end user's
   * turn without a hint of its own is distilled toward the teacher with that user's latest accepted hint (from an
   * earlier turn of theirs, `X-User-Id`) in context. Off by default: a hint about one question's content ("answer
   * the question …") says nothing about the next question.
   */
  hintMemory: z.boolean().default(false),
  /**
   * Conversation hints (OPD and Combine, embedded trainer; departs from the reference, whose teacher sees the turn's
   * hint alone): the hinted teacher — of the topk/full OPD estimators and of the hindsight demonstrations — is given,
   * after the turn's own hint, the hints the user's earlier replies in the same conversation got. Without them, a
   * correction about the content ("that doesn't answer my question") has the teacher answer in the base's style, the
   * one the user corrected a reply earlier, and OPD pulls the style back to it.
   */
  conversationHints: z.boolean().default(false),
  /**
   * User style hints (OPD and Combine, embedded trainer; departs from the reference): a turn corrected for its
   * content alone (its hint restates its question: "answer the question the user asked: …") has the hinted teacher
   * hear, after its hints, the latest style hint the run heard from the same end user (`X-User-Id`; not for
   * anonymous turns) — conversation hints across the user's conversations. Without it, once a policy writes in the
   * user's style most of its corrections are about content, and their teacher answers in the base's style. The
   * embedded default (BACKEND_HYPER_DEFAULTS).
   */
  userStyleHints: z.boolean().default(false),
  /** PPO dual-clip constant (> 1) for negative advantages; 0 = off (reference). */
  dualClip: z
    .number()
    .min(0)
    .max(100)
    .refine((c) => c === 0 || c > 1, "dual-clip must be 0 (off) or above 1")
    .default(0),
});

/**
 * Hyperparameters that depend on the trainer backend, filled in when the config leaves them out. The schema's
 * own defaults are the GPU reference's (OpenClaw-RL's launch scripts: lr 1e-5, batch 16, sampled OPD, A = r, no
 * clamp), which leave the 150k-parameter embedded policy where it is. The embedded ones were measured with
 * bench/learning (see the README's learning section): hindsight demonstrations (2 per hinted turn, weight 1: the
 * corrections become targets for the first reply, which the reference's terms alone teach slowly) with lr 6e-4 (with
 * them, Combine's first replies reach Leo's style and stay on topic; at 1e-3 they got there sooner and lost content
 * by step 12; without them, at 1e-3 every method lost its content within 20 steps); advantage whitening (with A = r, batches of
 * only rejected replies push every sampled token down and the policy degrades into babble); the full-vocabulary OPD
 * estimator (the whole hinted-teacher distribution at every position: OPD alone learns and keeps its content, which
 * the sampled estimator did not); the ±2 clamp and dual-clip 3 bound the sampled estimator when chosen; the teacher
 * hears the conversation's earlier hints and, after a content-only correction, the user's style hint (OPD within 10
 * steps on Leo 0.74–0.77 against 0.63–0.68 without it, on 128 replies: README "Where the targets stand"). Per method,
 * METHOD_HYPER_DEFAULTS below adds to these.
 */
export const BACKEND_HYPER_DEFAULTS: Record<string, Partial<z.input<typeof HyperparamsSchema>>> = {
  embedded: {
    lr: 6e-4,
    batchSize: 8,
    opdEstimator: "full",
    normalizeAdvantages: true,
    advClamp: 2,
    dualClip: 3,
    hindsightSamples: 2,
    hindsightWeight: 1,
    conversationHints: true,
    userStyleHints: true,
  },
};

/**
 * Per method, over the backend's defaults (hyperDefaultsFor). GRPO on the embedded trainer: the exact KL to the base
 * (β 0.3) and two PPO epochs per batch. Measured to step 60 (README "Holding, to step 60"): without them GRPO's first
 * replies reach Leo's style by step 8 and then game it, falling to 0.19–0.38 in style and on topic by step 60 (on topic
 * 0.19–0.47, k3 KL 1.5–2.4); with them ≥ 0.6 by step 8 on seeds 7, 8 and 9 and 0.56–0.72 at step 60 (on topic ≥ 0.78,
 * KL 0.25–0.28), below 0.6 once per seed (0.56–0.59). Not for Combine: the anchor pulled its style back toward the
 * base's prose (≥ 0.6 only to step 24, against 48 without it); OPD was not measured with it. OPD and Combine: 16 style
 * prompts per step (measured to step 10 on every persona and seeds 7–9, README "Style demonstrations", then on 32
 * replies per grade; the current defaults on 128: README "Where the targets stand").
 * GRPO steps on batches of 16, the reference's size (README "GRPO at batch 16"): with no teacher, its only signal is
 * the few approved first replies a batch holds; at 16 the target within 10 steps on every seed for Leo, Maya and Ava
 * (on 128 replies too), none for Sam.
 */
export const METHOD_HYPER_DEFAULTS: Record<
  string,
  Partial<Record<"grpo" | "opd" | "combine", Partial<z.input<typeof HyperparamsSchema>>>>
> = {
  embedded: {
    grpo: { baseKlCoef: 0.3, ppoEpochs: 2, batchSize: 16 },
    opd: { stylePrompts: 16 },
    combine: { stylePrompts: 16 },
  },
};

/** The hyperparameter defaults of a trainer backend for a method: the method's over the backend's. */
export function hyperDefaultsFor(backend: string, method: string): Partial<z.input<typeof HyperparamsSchema>> {
  const perMethod = METHOD_HYPER_DEFAULTS[backend] as
    Record<string, Partial<z.input<typeof HyperparamsSchema>>> | undefined;
  return { ...BACKEND_HYPER_DEFAULTS[backend], ...perMethod?.[method] };
}

export const LoraSchema = z.object({
  enabled: z.boolean().default(false),
  rank: z.number().int().min(1).max(1024).default(16),
  alpha: z.number().int().min(1).max(4096).default(32),
});

/** Every trainer backend an experiment can name (the output schemas of the API list the same). */
export const TRAINER_BACKENDS = ["embedded", "ray-slime", "local-process", "tinker", "hf-local"] as const;

export const TrainerSchema = z.object({
  /**
   * tinker = the remote LoRA training service; it needs the user's own TINKER_API_KEY on the trainer host.
   * hf-local = one process on one GPU (transformers + peft) that serves the policy, judges and teaches on the
   * frozen base and trains a LoRA adapter, or the whole model with HF_LOCAL_FINETUNE=full (integrations/hf).
   */
  backend: z.enum(TRAINER_BACKENDS).default("embedded"),
  /**
   * hf-local only: train a LoRA adapter, the whole model (full fine-tuning: about four times the memory), or full
   * where the launch's memory estimate fits the GPU (auto). Unset: the trainer host's HF_LOCAL_FINETUNE.
   */
  finetune: z.enum(["lora", "full", "auto"]).optional(),
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
      /**
       * the eval set the gate reads (default: evaluation.set). Another set than the one the Evaluation page reports —
       * e.g. the questions the users ask, against held-out ones — keeps the reported score from being the one each
       * served version was selected on. Not with evaluation.tasks (that gate reads the task set's held-out split).
       */
      set: z.string().trim().min(1).max(200).optional(),
      /**
       * confirm the gate's winner on fresh seeds before promoting it: the winner and the served version are both
       * evaluated on a new draw of seeds, compared there, and the next candidates are compared on that draw too. The
       * draw a version was selected on is its luckiest (the winner's curse), so a bar set by it freezes promotion; a
       * fresh draw for both keeps the comparison paired (same prompts, same seeds). Two more evaluations per
       * promotion. Not with evaluation.tasks.
       */
      confirm: z.boolean().default(false),
    })
    .default({ tolerance: 0.05, confirm: false }),
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

/**
 * The owner of the shared adapter that serves users without one of their own (`perUser.newUsers: "shared"`), trained
 * on every user's turns (personalization/data.ts turnsOf). Outside the ids X-User-Id may carry (proxy/sessionMeta.ts
 * IDENTITY_ID), so no user is served or trained as it.
 */
export const EVERYONE = "*";

/**
 * Per-user personalization (server/personalization): with `personalization: "per-user"` every end user named by
 * an identity key (X-User-Id) gets a LoRA adapter of their own on the experiment's frozen base, trained only
 * on their own samples and served only to them.
 */
export const PerUserSchema = z.object({
  rank: z.number().int().min(1).max(64).default(8),
  alpha: z.number().int().min(1).max(256).default(16),
  /** projections adapted: attention only (PEFT's default), or attention and the MLP (more capacity for a style) */
  targets: z.enum(["attention", "attention+mlp"]).default("attention+mlp"),
  /**
   * raw: A = r; centered: A = r − the batch mean (one user's batch: their own baseline); positive: max(0, r − mean),
   * only replies better than this user's usual are reinforced. positive is the default: on the embedded model,
   * pushing a small adapter away from many disliked replies moves their probability to the end-of-turn token and
   * every user's adapter collapses to short replies (seen in the learning test with centered advantages).
   */
  advantages: z.enum(["raw", "centered", "positive"]).default("positive"),
  /**
   * the adapter's learning rate (plain SGD on A and B, gradient norm clipped to 1); the defaults are the learning
   * test's. At 2, a user the base already half satisfies (long replies) saw their adapter collapse to short replies
   * in 2 of 3 seeds with no other user present; at 1 it did not in 4 (docs/personalization.md)
   */
  lr: z.number().min(0).max(10).default(1),
  /**
   * the adapter step's bound on the gradient's global norm (0: no bound). 0.4 with hindsightWeight 3: at weight 3
   * and a bound of 1 a step of about 0.85 threw Sam's and Ava's adapters into a region of gradient norms 9–40 and
   * their liked share to 0 within 3 rounds of bench/personal; bounded at 0.4 none collapsed in 3 seeds (docs/personalization.md)
   */
  gradClip: z.number().min(0).max(100).default(0.4),
  /**
   * Hindsight demonstrations for the adapter (as the shared trainer's `hyper.hindsightSamples`; departs from the
   * reference): for each of the user's turns with an accepted hint (the judge's, from their correction), this many
   * replies sampled from the hinted teacher — the frozen base with the hint in context — train the prompt the user
   * first asked, without the hint, by cross-entropy on the adapter. 0 = off (policy gradient alone).
   */
  hindsightSamples: z.number().int().min(0).max(2).default(2),
  /**
   * w_demo: the weight of the demonstrations' cross-entropy beside the policy-gradient term. 3 (with gradClip 0.4):
   * at 1 the steps' gradient norms were 0.1–0.3, below any bound, and Leo's and Sam's styles were learnt too slowly
   * for bench/personal's 12 rounds (docs/personalization.md)
   */
  hindsightWeight: z.number().min(0).max(10).default(3),
  /** a teacher reply becomes a demonstration only if its mean token log-prob under the hinted teacher is at least this */
  hindsightMinLogprob: z.number().min(-10).max(0).default(-0.15),
  /**
   * and only if the hint made it likelier: its log-prob under the hinted teacher minus under the frozen base on the
   * un-hinted prompt, summed over the reply, above this many nats (as the shared trainer's hyper.hindsightMinGain).
   * Unset: off.
   */
  hindsightMinGain: z.number().min(-100).max(100).optional(),
  /**
   * the teacher of a turn whose hint only restates the question (the off-topic rejection's "answer the question …")
   * hears instead the user's latest earlier hint that does not (their own, from their turns only): with the restated
   * question alone the base answers in its default style and the demonstrations teach the user's style away
   * (personalization/step.ts teacherHint; docs/personalization.md). Departs from the shared trainer, which adds the
   * conversation's earlier hints (hyper.conversationHints) after the turn's own.
   */
  rememberedHint: z.boolean().default(true),
  /**
   * β: the exact KL(π ‖ base) over the vocabulary at the response positions of the adapter's step (`baseKlScope`),
   * as the embedded trainer's hyper.baseKlCoef: it holds each prompt's own content where the style moves. 0 = off.
   * 0.03: without it, a user the base already half satisfies and whose corrections carry no hint (the policy
   * gradient on their own liked replies alone) saw their adapter collapse to short replies on one seed of five
   * (0.19 against the base's 0.52); with it none did, on the user's own replies only (docs/personalization.md)
   */
  baseKlCoef: z.number().min(0).max(10).default(0.03),
  /**
   * where the KL to the base acts: the user's own replies only ("samples"), or also the hindsight demonstrations
   * ("all"). The demonstrations are the frozen base's own replies with the hint in context, so on them the anchor
   * pulls toward the un-hinted base exactly where the hint moved the teacher: at β 0.03 on every row Sam's hints fell
   * from 0.69 to 0.53–0.56 on two seeds of bench/personal, on his replies only they stayed at 0.69. "samples" is
   * what the shared trainer's hyper.baseKlCoef does (engine/train.ts: a demonstration's tokens leave the policy terms
   * and the anchor).
   */
  baseKlScope: z.enum(["samples", "all"]).default("samples"),
  /**
   * keep a hindsight demonstration only if the frozen base finds it likelier after its own prompt than after each
   * other prompt of the user's batch (personalization/step.ts relevantDemos): the hinted teacher writes confident
   * replies in the user's style about another question (its memorised continuations), which teach content away
   */
  hindsightRelevance: z.boolean().default(false),
  /**
   * what a hindsight demonstration trains toward: its sampled tokens ("sampled", cross-entropy) or the hinted teacher's
   * whole next-token distribution at each of its positions ("teacher", the forward KL; engine/loraTrain.ts). The
   * teacher's distribution also carries what it would have written instead, which one sampled token does not:
   * bench/personal at K = 16, Leo ≥ 0.6 on every seed with it (0.63–0.74, against 0.56–0.73 sampled), the others as
   * before (docs/personalization.md)
   */
  hindsightTarget: z.enum(["sampled", "teacher"]).default("teacher"),
  /**
   * where a hindsight demonstration's term acts: every position alike ("uniform"), or each position weighted by how far
   * the hint moved the teacher from the base there ("hint", KL(teacher ‖ base) over the vocabulary, mean 1 per
   * demonstration; engine/loraTrain.ts demoFocus): the first word of Sam's hint, not the hint's content, which the base
   * already writes and the hinted teacher copies with more noise. Not in the reference (its OPD weighs tokens alike).
   */
  hindsightFocus: z.enum(["uniform", "hint"]).default("uniform"),
  /**
   * the temperature τ of the hinted teacher's distribution a demonstration trains toward (hindsightTarget "teacher"):
   * its log-probabilities divided by τ and renormalised at each position, so τ < 1 sharpens it toward the teacher's
   * own likeliest tokens (1: as it is). Sam's hinted teacher writes his right hint greedily on seven of his eight
   * questions but samples it 3–8 times of 8, and the student copied that noise: at 0.7 bench/personal gave Sam
   * 0.63–0.75 on seeds 1 and 3–5 and 0.56 on seed 2 (0.53–0.69 at 1, below 0.6 on seeds 3–5), every other user's
   * mean higher too (docs/personalization.md). Not in the reference (its OPD teacher is the hinted model as it samples).
   */
  hindsightTemperature: z.number().min(0.1).max(2).default(0.7),
  /**
   * style demonstrations: each step also gives the hinted teacher this many public prompts — the base checkpoint's own
   * prompt pool (prompts.json: its pretraining questions minus the held-out split; engine/checkpoint.ts
   * loadPromptPool), never a user's turns — each with the user's latest style hint (their own, rememberedHint's), and
   * trains the adapter toward its confident replies there as toward any hindsight demonstration (context
   * distillation over a prompt distribution). At most the whole pool (the embedded base's has 29 prompts). A user's
   * few own questions teach their style on those questions only: Sam's hint opening did not carry to his held-out
   * "How …" questions. bench/personal at K = 16 with the whole pool: every user ≥ 0.6 on seeds 1 and 2, all but Sam
   * (0.50–0.59) on seeds 3–5; every user higher than without on seeds 4 and 5, Sam 0.34–0.50 without on five seeds; each step costs about three times as long (per-user
   * and shared alike: docs/personalization.md). 0 = off; a base without a pool has none. Not in the reference (its
   * teacher sees only the user's own turns).
   */
  stylePrompts: z.number().int().min(0).max(64).default(32),
  /**
   * what serves a user who has no adapter of their own yet (too little data, or none passed their gate): the frozen
   * base, or one shared adapter ("shared") trained with the same step on every user's trainable turns and gated on
   * everyone's held-out turns (its chain's owner is EVERYONE). Its weights carry every user's
   * turns, as a shared policy's do; each user's own adapter still trains on their turns only. Embedded trainer only.
   */
  newUsers: z.enum(["base", "shared"]).default("base"),
  /**
   * the seed of every user's fresh adapter and of the demonstrations sampled at each step (mixed with the user, the
   * version and the step); unset: derived from the experiment's id, so two experiments differ. Set it to replay a
   * run's adapters in another experiment, or to compare two configurations from the same start.
   */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  /** a user's new judged samples needed before their adapter trains a new version */
  minSamples: z.number().int().min(1).max(10_000).default(16),
  /**
   * promote a candidate when its held-out score (reward-weighted mean log-likelihood of the user's held-out
   * replies, personalization/train.ts) ≥ the served one's − tolerance
   */
  gateTolerance: z.number().min(0).max(2).default(0.05),
  /** of the user's newest judged turns, this fraction is held out for the gate (never trained on) */
  heldOutFraction: z.number().min(0).max(0.9).default(0.25),
  /**
   * the most samples one new version trains on (oldest first; the rest wait for the next tick), so a user's
   * backlog costs one bounded version per tick and the users behind it are not kept waiting
   */
  maxSamplesPerVersion: z.number().int().min(1).max(100_000).default(64),
  /** train when idle: a user's adapter trains only once their newest turn is this old (0: as soon as due) */
  idleAfterS: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(0),
  /**
   * train only within these UTC hours, [from, to) and wrapping past midnight (e.g. 22 → 6 for the night);
   * null: any hour
   */
  windowUtc: z
    .object({ from: z.number().int().min(0).max(23), to: z.number().int().min(0).max(23) })
    .refine((w) => w.from !== w.to, { message: "an empty window: from and to must differ" })
    .nullable()
    .default(null),
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
  /**
   * An environment experiment: evaluate each version on a task set's held-out split instead of an eval set —
   * `k` episodes per task in `environment`, the version's own checkpoint as the policy (server/evaluation/
   * episodes.ts); the gate reads held-out pass@1.
   */
  tasks: z
    .object({
      taskSet: z.string().min(1).max(200),
      environment: z.string().min(1).max(200),
      k: z.number().int().min(1).max(16).default(4),
      maxSteps: z.number().int().min(1).max(64).default(4),
    })
    .optional(),
  /** per-version budget: generation stops (status PARTIAL) at either bound */
  budget: z
    .object({
      maxReplyTokens: z.number().int().min(1).default(20_000),
      maxSeconds: z.number().int().min(1).default(600),
    })
    .default({ maxReplyTokens: 20_000, maxSeconds: 600 }),
  /** judge–human agreement warning: κ below this over at least minLabeled labelled turns */
  agreement: z
    .object({ kappaThreshold: z.number().min(-1).max(1).default(0.6), minLabeled: z.number().int().min(1).default(30) })
    .default({ kappaThreshold: 0.6, minLabeled: 30 }),
});

/** `raw` with the trainer backend's (and method's) hyperparameter defaults under whatever it sets itself. */
function withBackendDefaults(raw: unknown): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const cfg = raw as { trainer?: { backend?: unknown }; method?: unknown; hyper?: unknown };
  const backend = typeof cfg.trainer?.backend === "string" ? cfg.trainer.backend : "embedded";
  // The schema's default method (combine) when the config names none.
  const defaults = hyperDefaultsFor(backend, typeof cfg.method === "string" ? cfg.method : "combine");
  if (!Object.keys(defaults).length) return raw;
  const hyper =
    cfg.hyper && typeof cfg.hyper === "object" && !Array.isArray(cfg.hyper)
      ? cfg.hyper
      : cfg.hyper === undefined
        ? {}
        : null;
  return hyper === null ? raw : { ...cfg, hyper: { ...defaults, ...hyper } };
}

/**
 * The config's fields without the cross-field rules below: what a stored config looks like, so the API's
 * output schemas describe it from this one definition (a rule added later must not make stored rows unreadable).
 */
export const ExperimentConfigShape = z.object({
  method: z.enum(["grpo", "opd", "combine"]).default("combine"),
  policy: PolicyBackendSchema.default({ kind: "embedded", checkpoint: "models/base" }),
  judge: JudgeSchema.default(JudgeSchema.parse({})),
  trainer: TrainerSchema.default(TrainerSchema.parse({})),
  hyper: HyperparamsSchema.default(HyperparamsSchema.parse({})),
  lora: LoraSchema.default(LoraSchema.parse({})),
  serving: ServingSchema.default(ServingSchema.parse({})),
  evaluation: EvaluationConfigSchema.default(EvaluationConfigSchema.parse({})),
  customLossPath: z.string().min(1).optional(),
  /** shared: one policy for everyone; per-user: one adapter per end user on the shared base */
  personalization: z.enum(["shared", "per-user"]).default("shared"),
  perUser: PerUserSchema.default(PerUserSchema.parse({})),
});

const ExperimentConfigObject = ExperimentConfigShape.superRefine((cfg, ctx) => {
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
  if (cfg.personalization === "per-user") {
    // slime trains one policy in one Megatron job (single-tenant). The embedded trainer trains adapters for the
    // embedded policy; an engine serving LoRA (policy.loraAdapters) serves a version per user that a trainer leasing
    // per user registers (personalization/leases.ts): hf-local's PEFT folders (SGLang or vLLM), or Tinker's sampler
    // paths, loaded by name into the Tinker bridge's endpoint, which speaks SGLang's LoRA routes (policy.baseUrl).
    const onEngine = cfg.policy.kind !== "embedded" && !!cfg.policy.loraAdapters;
    const tinkerOnEngine = onEngine && cfg.trainer.backend === "tinker";
    if (cfg.trainer.backend === "ray-slime" || cfg.trainer.backend === "local-process")
      ctx.addIssue({
        code: "custom",
        path: ["personalization"],
        message: "per-user adapters need a multi-tenant trainer: slime trains one policy per job",
      });
    else if (tinkerOnEngine && cfg.policy.kind !== "embedded" && cfg.policy.loraAdapters !== "sglang")
      ctx.addIssue({
        code: "custom",
        path: ["policy", "loraAdapters"],
        message:
          "per-user adapters on Tinker are served by the bridge's endpoint, which speaks SGLang's LoRA routes: set loraAdapters sglang",
      });
    else if (!tinkerOnEngine && cfg.trainer.backend !== (onEngine ? "hf-local" : "embedded"))
      ctx.addIssue({
        code: "custom",
        path: ["personalization"],
        message: onEngine
          ? "per-user adapters on SGLang/vLLM are PEFT folders: choose trainer hf-local (or tinker with its endpoint)"
          : `per-user adapters are trained by the embedded trainer; the ${cfg.trainer.backend} backend has no per-user path yet`,
      });
    if (cfg.policy.kind !== "embedded" && !onEngine)
      ctx.addIssue({
        code: "custom",
        path: ["personalization"],
        message:
          "per-user adapters are served by the embedded policy, or by SGLang/vLLM multi-LoRA: set policy.loraAdapters",
      });
    // A GPU trainer leases one user per batch (personalization/leases.ts): nothing there trains an adapter on everyone.
    if (cfg.perUser.newUsers === "shared" && cfg.trainer.backend !== "embedded")
      ctx.addIssue({
        code: "custom",
        path: ["perUser", "newUsers"],
        message: `a shared adapter for new users is trained by the embedded trainer only; on ${cfg.trainer.backend} new users are served the base`,
      });
  }
  if (cfg.serving.promotion === "gated" && !cfg.evaluation.enabled) {
    ctx.addIssue({
      code: "custom",
      path: ["serving", "promotion"],
      message: "gated promotion needs evaluation.enabled: nothing would ever be promoted",
    });
  }
  if (cfg.serving.gate.set !== undefined && cfg.evaluation.tasks) {
    ctx.addIssue({
      code: "custom",
      path: ["serving", "gate", "set"],
      message:
        "an environment experiment's gate reads its task set's held-out split (evaluation.tasks), not an eval set",
    });
  }
  if (cfg.serving.gate.confirm && cfg.evaluation.tasks) {
    ctx.addIssue({
      code: "custom",
      path: ["serving", "gate", "confirm"],
      message:
        "a confirmation draw re-scores an eval set on fresh seeds; an environment experiment's gate reads held-out episodes (evaluation.tasks)",
    });
  }
  if (cfg.serving.promotion === "gated" && cfg.policy.kind !== "embedded") {
    ctx.addIssue({
      code: "custom",
      path: ["serving", "promotion"],
      message:
        "an external rollout engine serves new weights as soon as it loads them: gated promotion needs the embedded policy",
    });
  }
  if (
    cfg.evaluation.grader === "judge" &&
    (cfg.judge.backend.kind === "heuristic" || cfg.judge.backend.kind === "custom")
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["evaluation", "grader"],
      message: "the judge grader needs a model judge (OpenAI-compatible or SGLang judge backend)",
    });
  }
  if (cfg.evaluation.grader === "custom" && !cfg.evaluation.graderPath) {
    ctx.addIssue({
      code: "custom",
      path: ["evaluation", "graderPath"],
      message: "a custom grader needs the path to its module",
    });
  }
  if (cfg.trainer.backend === "ray-slime" || cfg.trainer.backend === "local-process") {
    const plan = planGpuSplit(cfg.trainer.gpu);
    if (!plan.ok)
      for (const e of plan.errors)
        ctx.addIssue({ code: "custom", path: ["trainer", "gpu", e.field], message: e.message });
    if (cfg.trainer.backend === "ray-slime" && !cfg.trainer.rayAddress) {
      ctx.addIssue({
        code: "custom",
        path: ["trainer", "rayAddress"],
        message: "ray-slime needs the Ray dashboard address, e.g. http://head:8265",
      });
    }
  }
  if (
    (cfg.trainer.backend === "ray-slime" ||
      cfg.trainer.backend === "local-process" ||
      cfg.trainer.backend === "hf-local") &&
    cfg.policy.kind === "embedded"
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["policy", "kind"],
      message:
        cfg.trainer.backend === "hf-local"
          ? "hf-local serves the policy itself (an SGLang-compatible endpoint): choose policy kind sglang, at the address it serves on"
          : "GPU trainers serve through SGLang: choose policy kind sglang",
    });
  }
  // A per-user Tinker experiment loads each user's sampler into the bridge's endpoint by name (checked above).
  const tinkerPerUser = cfg.trainer.backend === "tinker" && cfg.personalization === "per-user";
  if (
    cfg.policy.kind !== "embedded" &&
    cfg.policy.loraAdapters &&
    cfg.trainer.backend !== "hf-local" &&
    !tinkerPerUser
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["policy", "loraAdapters"],
      message:
        "LoRA hot-loading serves hf-local's PEFT adapters: choose trainer hf-local, or leave it unset (slime and Tinker update the engine's weights themselves; Tinker per user is the exception)",
    });
  }
  if (cfg.trainer.finetune && cfg.trainer.backend !== "hf-local") {
    ctx.addIssue({
      code: "custom",
      path: ["trainer", "finetune"],
      message: "the fine-tuning choice is hf-local's: choose trainer hf-local, or leave it unset",
    });
  }
  if (cfg.policy.kind !== "embedded" && cfg.policy.loraAdapters && cfg.trainer.finetune === "full") {
    ctx.addIssue({
      code: "custom",
      path: ["policy", "loraAdapters"],
      message:
        "full fine-tuning saves whole models, not LoRA adapters: leave LoRA hot-loading unset, or choose LoRA fine-tuning",
    });
  }
  if (cfg.trainer.backend !== "embedded") {
    const embeddedOnly: [keyof typeof cfg.hyper, boolean][] = [
      ["ppoEpochs", cfg.hyper.ppoEpochs !== 1],
      ["baseKlCoef", cfg.hyper.baseKlCoef !== 0],
      ["opdExtrapolation", cfg.hyper.opdExtrapolation !== 1],
      ["hindsightSamples", cfg.hyper.hindsightSamples !== 0],
      ["stylePrompts", cfg.hyper.stylePrompts !== 0],
      ["rememberedStyleHints", cfg.hyper.rememberedStyleHints],
      ["hindsightMinGain", cfg.hyper.hindsightMinGain !== undefined],
      ["hindsightSampleTemperature", cfg.hyper.hindsightSampleTemperature !== 1],
      ["advantageGroups", cfg.hyper.advantageGroups !== "batch"],
      ["conversationHints", cfg.hyper.conversationHints],
      ["userStyleHints", cfg.hyper.userStyleHints],
      ["hindsightTarget", cfg.hyper.hindsightTarget !== "sampled"],
      ["hindsightFocus", cfg.hyper.hindsightFocus !== "uniform"],
    ];
    for (const [field, set] of embeddedOnly)
      if (set)
        ctx.addIssue({
          code: "custom",
          path: ["hyper", field],
          message: `${field} runs on the embedded trainer only: leave it at its default (${String(HyperparamsSchema.shape[field].parse(undefined) ?? "unset")})`,
        });
  }
  if (cfg.trainer.backend !== "ray-slime" && cfg.trainer.backend !== "local-process" && cfg.hyper.topkDiffClip !== 1) {
    ctx.addIssue({
      code: "custom",
      path: ["hyper", "topkDiffClip"],
      message:
        "the difference clip is slime's top-K loss's (OPENCLAW_TOPK_ADV_DIFF_CLIP); this trainer's topk estimator has none: leave it at its default (1)",
    });
  }
  if (cfg.trainer.backend !== "embedded" && cfg.method !== "grpo") {
    // hf-local holds the frozen base in the same process, so it has the teacher's whole distribution too.
    const inProcessTeacher = cfg.trainer.backend === "hf-local";
    const onSlime = cfg.trainer.backend === "ray-slime" || cfg.trainer.backend === "local-process";
    if (cfg.hyper.opdEstimator === "full" && !inProcessTeacher) {
      ctx.addIssue({
        code: "custom",
        path: ["hyper", "opdEstimator"],
        message: "the full-vocabulary estimator runs on the embedded and hf-local trainers only: choose sampled",
      });
    }
    if (cfg.trainer.backend === "tinker" && cfg.hyper.opdEstimator !== "sampled") {
      ctx.addIssue({
        code: "custom",
        path: ["hyper", "opdEstimator"],
        message:
          "the Tinker bridge distils with the sampled estimator (teacher − π on the sampled tokens): choose sampled",
      });
    }
    if (onSlime && cfg.hyper.opdEstimator === "topk" && cfg.hyper.dualClip > 0) {
      // The top-K loss calls slime's compute_policy_loss without eps_clip_c, as upstream's does.
      ctx.addIssue({
        code: "custom",
        path: ["hyper", "dualClip"],
        message:
          "slime's top-K loss has no dual-clip (upstream's neither): set it to 0, or choose the sampled estimator",
      });
    }
    if (onSlime && cfg.method === "opd" && cfg.hyper.opdEstimator === "sampled" && cfg.hyper.advClamp > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["hyper", "advClamp"],
        message:
          "slime's on_policy_distillation estimator has no advantage clamp (the embedded trainer and combine's loss have one; the topk estimator has its own difference clip, topkDiffClip): set it to 0",
      });
    }
    if (cfg.hyper.teacherSource === "current") {
      ctx.addIssue({
        code: "custom",
        path: ["hyper", "teacherSource"],
        message: "a current-policy teacher runs on the embedded trainer only: choose base",
      });
    }
  }
  const trainTimeHint = cfg.judge.hintSelection === "token_optimal" || cfg.judge.hintSelection === "sequence_optimal";
  if (trainTimeHint && cfg.method !== "grpo") {
    // They compare the student's top-K with each candidate teacher's at every position: only a trainer that holds
    // both distributions can (embedded; hf-local, whose frozen base is in-process). On slime that is upstream's
    // select loss over one Megatron-teacher top-K per hint candidate (teacher_tokens_candidates), while the judge
    // picks one hint per turn before the sample is built.
    const onSlime = cfg.trainer.backend === "ray-slime" || cfg.trainer.backend === "local-process";
    // On slime only the hybrid ships every hint candidate (teacher_tokens_candidates) for the in-job teacher to
    // score one by one; method opd's top-K path scores the judge's one hint.
    const slimeHybrid = onSlime && cfg.method === "combine" && cfg.hyper.opdEstimator === "topk";
    if (cfg.trainer.backend !== "embedded" && cfg.trainer.backend !== "hf-local" && !slimeHybrid) {
      ctx.addIssue({
        code: "custom",
        path: ["judge", "hintSelection"],
        message: onSlime
          ? `${cfg.judge.hintSelection} compares the student's and each hinted teacher's top-K tokens at train time: on slime that is upstream's hybrid (method combine with the topk estimator, one in-job teacher pass per hint candidate; w_rl 0 for OPD alone): choose it, or hint selection longest or shortest`
          : `${cfg.judge.hintSelection} compares the student's and each hinted teacher's top-K tokens at train time, which only the embedded and hf-local trainers and slime's hybrid (combine with the topk estimator) do: choose longest or shortest`,
      });
    } else if (cfg.hyper.opdEstimator === "sampled") {
      ctx.addIssue({
        code: "custom",
        path: ["judge", "hintSelection"],
        message: `${cfg.judge.hintSelection} chooses among the teachers' top-K tokens, which the sampled estimator never sees: choose the topk or full estimator, or hint selection longest or shortest`,
      });
    }
  }
});

/** The experiment config; hyperparameters a config leaves out get its trainer backend's defaults. */
export const ExperimentConfigSchema = z.preprocess(withBackendDefaults, ExperimentConfigObject);

export type ExperimentConfigInput = z.input<typeof ExperimentConfigObject>;
export type ExperimentConfig = z.output<typeof ExperimentConfigObject>;

/**
 * Whether the judge extracts a hint from each corrected turn: OPD and Combine distil toward the hinted teacher, and a
 * per-user experiment's adapters on the embedded trainer train on the hinted teacher's demonstrations
 * (`perUser.hindsightSamples`) whatever its method — the shared trainer's method does not train them. A GPU trainer's
 * per-user step is the method's own (hf-local, Tinker): a GRPO one reads no hints, and the judge asks for none.
 */
export function judgeExtractsHints(config: ExperimentConfig): boolean {
  const adapterDemos =
    config.personalization === "per-user" &&
    config.trainer.backend === "embedded" &&
    config.perUser.hindsightSamples > 0;
  return config.method !== "grpo" || adapterDemos;
}

/** Paths of write-only secrets inside the config. */
export const SECRET_PATHS = [
  ["policy", "apiKey"],
  ["judge", "backend", "apiKey"],
] as const;
