// The one interface every external trainer backend implements (Ray + slime, local processes, the Tinker
// bridge), plus the zod schemas of the launch config the control plane hands to a backend. The embedded
// trainer is not one of them: it runs inside the train worker (server/training/loop.ts), not through a launch.
import { z } from "zod";
import { GpuSplitSchema } from "../../gpu/plan";
import { HyperparamsSchema, LoraSchema } from "../../config/experimentConfig";
import { SLIME_PROFILE_IDS } from "./slime/profiles";

const httpUrl = z
  .string()
  .url("must be a URL such as http://127.0.0.1:8265")
  .refine((u) => /^https?:\/\//.test(u), "must start with http:// or https://");

/** grpo = binary RL from PRM votes; opd = hindsight-hint distillation; combine = both; topk = top-K OPD. */
export const TrainingMethodSchema = z.enum(["grpo", "opd", "combine", "topk"]);

// The experiment's own hyperparameter and LoRA schemas (OpenClaw-RL defaults), plus top-K for method topk.
const TrainerHyperparametersSchema = HyperparamsSchema.pick({
  lr: true,
  epsClip: true,
  epsClipHigh: true,
  klCoef: true,
  entropyCoef: true,
  batchSize: true,
  wOpd: true,
  wRl: true,
  maxStaleness: true,
  dualClip: true,
  normalizeAdvantages: true,
  advClamp: true,
  topkDiffClip: true,
  opdEstimator: true,
}).extend({
  /** Teacher top-K for method topk (slime --distill-topk). */
  distillTopK: z.number().int().min(1).max(1024).default(50),
});

/** Where and how the Ray job runs. */
const RayConfigSchema = z.object({
  /** Ray dashboard (Jobs API) address, e.g. http://head:8265. */
  address: httpUrl,
  /**
   * slime checkout on the cluster. A local path is `cd`-ed into before `python3 train_async.py`; a URI
   * (gcs://, s3://, https://…zip) is passed as runtime_env.working_dir for Ray to download.
   */
  workingDir: z.string().min(1).optional(),
  pythonEnv: z
    .object({
      /** Interpreter in the entrypoint (default python3). */
      python: z.string().min(1).optional(),
      /** Prepended to PYTHONPATH: Megatron-LM, slime, and the folder holding our `integrations` package. */
      pythonPath: z.array(z.string().min(1)).optional(),
      /** runtime_env.conda: an existing conda env name on the cluster. */
      conda: z.string().min(1).optional(),
      /** runtime_env.pip: packages Ray installs for the job. */
      pip: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

/** slime model/checkpoint settings; anything else goes through extraArgs (appended last, so it wins). */
const SlimeConfigSchema = z.object({
  /** The slime the cluster runs: OpenClaw-RL's fork (default) or upstream THUDM/slime (slime/profiles.ts). */
  profile: z.enum(SLIME_PROFILE_IDS).default("openclaw-rl-fork"),
  /** Model preset id (slime/models.ts) or "custom"; default: recognised from hfCheckpoint's folder name. */
  model: z.string().min(1).optional(),
  hfCheckpoint: z.string().min(1, "path to the policy's Hugging Face checkpoint on the cluster"),
  /** Reference model for the KL term (slime --ref-load); defaults to hfCheckpoint as in the scripts. */
  refLoad: z.string().min(1).optional(),
  saveDir: z.string().min(1).optional(),
  saveInterval: z.number().int().min(1).default(100),
  /** PRM/teacher model for local PRM engines; defaults to hfCheckpoint. */
  prmModelPath: z.string().min(1).optional(),
  /**
   * The in-job Megatron PRM teacher's checkpoint (fork --prm-teacher-load, 4-way split: prmTeacherGpus > 0);
   * defaults to prmModelPath, then hfCheckpoint, as upstream's run_qwen3_4b_openclaw_combine.sh.
   */
  prmTeacherLoad: z.string().min(1).optional(),
  /** Dynamic batching budget (--max-tokens-per-gpu; default 32768 Megatron, 8192 FSDP-LoRA, as the scripts). */
  maxTokensPerGpu: z.number().int().min(1).optional(),
  /** Overrides the custom loss module for combine/topk (default: our integrations.slime modules). */
  customLossFunctionPath: z.string().min(1).optional(),
  extraArgs: z.array(z.string()).default([]),
});
export type SlimeConfig = z.output<typeof SlimeConfigSchema>;

const LocalRoleCommandSchema = z.object({
  /** argv, run without a shell; the first element is the program. */
  command: z
    .array(z.string())
    .min(1)
    // Not argv[0].length: zod runs the refinement after a failed min(1) too, on an empty array.
    .refine((argv) => argv[0] !== "", "the program (first element) must not be empty"),
  cwd: z.string().min(1).optional(),
});

/** Commands for the local-process backend: one actor, one process per rollout and PRM engine, one PRM teacher. */
export const LocalProcessConfigSchema = z.object({
  roles: z.object({
    actor: LocalRoleCommandSchema,
    rollout: LocalRoleCommandSchema,
    prm: LocalRoleCommandSchema.optional(),
    /** The separate PRM teacher of a 4-way split (prmTeacherGpus > 0). */
    teacher: LocalRoleCommandSchema.optional(),
  }),
  /** Extra environment for every role (the control plane's own environment is not passed through). */
  env: z.record(z.string(), z.string()).default({}),
  /** Time between SIGTERM and SIGKILL when stopping. */
  graceMs: z.number().int().min(0).max(600_000).default(10_000),
});
export type LocalProcessConfig = z.output<typeof LocalProcessConfigSchema>;

export const RunLaunchConfigSchema = z.object({
  method: TrainingMethodSchema.default("combine"),
  hyperparameters: TrainerHyperparametersSchema.default(TrainerHyperparametersSchema.parse({})),
  lora: LoraSchema.default(LoraSchema.parse({})),
  gpu: GpuSplitSchema.default(GpuSplitSchema.parse({})),
  /**
   * The judge's hint policy (experiment judge.hintSelection, and judge.hintM else judge.votes): the fork's
   * `--hint-selection` / `--hint-m` carry it into the job's recorded arguments (slime/args.ts).
   */
  hints: z
    .object({
      selection: z.enum(["longest", "shortest", "token_optimal", "sequence_optimal"]).default("longest"),
      m: z.number().int().min(1).max(16).default(3),
    })
    .default({ selection: "longest", m: 3 }),
  /** Required by the ray-slime backend. */
  ray: RayConfigSchema.optional(),
  /** Required by the ray-slime backend. */
  slime: SlimeConfigSchema.optional(),
  /** Required by the local-process backend. */
  localProcess: LocalProcessConfigSchema.optional(),
  /**
   * Set when the experiment has environments: slime launches its track's job (slime/trackLaunch.ts), which
   * leases the console's finished episode groups (`groupsPerRollout` groups of `nSamplesPerPrompt` episodes).
   */
  episodes: z
    .object({
      track: z.enum(["retool", "terminal"]),
      nSamplesPerPrompt: z.number().int().min(1).max(64),
      groupsPerRollout: z.number().int().min(1).max(4096),
    })
    .optional(),
  /**
   * Set for a per-user experiment (personalization "per-user"): the trainer trains one LoRA per end user of this
   * rank and alpha on the frozen base, from per-user leases (personalization/leases.ts): hf-local and tinker.
   */
  perUser: z.object({ rank: z.number().int().min(1), alpha: z.number().min(1) }).optional(),
  /** hf-local: the experiment's fine-tuning choice; unset = the backend's setting (HF_LOCAL_FINETUNE). */
  finetune: z.enum(["lora", "full", "auto"]).optional(),
  /** The policy checkpoint (an HF id or path; hf-local loads it, or builds the tiny CPU model for "tiny"). */
  policyModel: z.string().min(1).optional(),
  /** Where the rollout integration reaches the control plane (proxy, sample queue, metrics). */
  controlPlaneUrl: httpUrl,
  /** Per-run API key the integration authenticates with; redacted in anything shown to users. */
  apiKey: z.string().min(1),
});
export type RunLaunchConfig = z.output<typeof RunLaunchConfigSchema>;
export type RunLaunchConfigInput = z.input<typeof RunLaunchConfigSchema>;

export const RunLaunchSchema = z.object({
  runId: z.string().min(1).max(200),
  experimentSlug: z.string().min(1).max(200),
  config: RunLaunchConfigSchema,
});
export type RunLaunch = z.output<typeof RunLaunchSchema>;

/** What stop/status/logs need: the run, the job id start() returned, and the launch config. */
export interface RunHandle {
  runId: string;
  externalJobId?: string | null;
  config: RunLaunchConfig;
}

/**
 * Maps onto RunStatus; PAUSED is decided by the control plane. LOST: the backend no longer knows the job (Ray
 * forgot it, the process that owned it restarted), which the supervisor records as CRASHED.
 */
export type TrainerRunState = "PENDING" | "RUNNING" | "FINISHED" | "FAILED" | "KILLED" | "LOST";

export interface TrainerStatus {
  state: TrainerRunState;
  message?: string;
}

export interface TrainerBackend {
  /** Stored in Run.trainerBackend: "ray-slime", "local-process", "tinker", "hf-local". */
  readonly kind: string;
  /** Launches the run; safe to retry with the same runId (never launches twice). */
  start(run: RunLaunch): Promise<{ externalJobId?: string }>;
  /** Stops the run; resolves once the backend has accepted the stop (local: once every process is gone). */
  stop(run: RunHandle): Promise<void>;
  status(run: RunHandle): Promise<TrainerStatus>;
  /** Recent log text; `tail` limits it to the last N lines. */
  logs(run: RunHandle, opts?: { tail?: number }): Promise<string>;
  /** What start() would run for this launch, secrets hidden, and notes on where it runs (the console's launch preview). */
  preview(launch: RunLaunch): LaunchPlan;
}

export interface LaunchPlan {
  command: string;
  notes: string[];
}

/** Last `n` lines of `text` (all of it when n is undefined). */
export function tailLines(text: string, n?: number): string {
  if (n === undefined) return text;
  if (n <= 0) return "";
  const trimmed = text.endsWith("\n") ? text.slice(0, -1) : text;
  const lines = trimmed.split("\n");
  return lines.slice(-n).join("\n");
}
