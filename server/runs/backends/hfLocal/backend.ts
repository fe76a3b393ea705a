// TrainerBackend hf-local: one process on one GPU (integrations/hf/train.py) that serves the policy with a LoRA
// adapter, judges and teaches on the frozen base (the adapter switched off) and trains the adapter from leased
// batches, swapping it into serving after each step; or, with full fine-tuning, trains the whole model beside a
// second, frozen copy for the judge and the teacher. Launched like the local-process roles: a child in its own
// process group, pinned to its GPU with CUDA_VISIBLE_DEVICES, so stop() ends exactly that tree. The model "tiny"
// is a small CPU model (CI and demos); any other model is a local Hugging Face checkpoint, checked against the
// GPU's memory before launch (memory.ts).
import path from "node:path";
import { z } from "zod";
import {
  RunLaunchSchema,
  type LaunchPlan,
  type RunHandle,
  type RunLaunch,
  type TrainerBackend,
  type TrainerStatus,
} from "../backend";
import { INHERITED_ENV } from "../localProcess/backend";
import { ChildRuns } from "../localProcess/childRuns";
import { formatCommand } from "../slime/args";
import { describeEstimate, estimateMemory, shapeFor, type Finetune, type MemoryEstimate } from "./memory";

export const HF_LOCAL_BACKEND_KIND = "hf-local";
export const TINY_MODEL = "tiny";

/** Said when the process of a run is not a child of this process (e.g. the control plane restarted). */
export const HF_LOCAL_NOT_TRACKED = "no hf-local process is tracked for this run in this control-plane process";

export const HfLocalSettingsSchema = z.object({
  python: z.string().min(1).default("python3"),
  /** The checkpoint to load (a local path on this machine); default: the experiment's policy model. */
  model: z.string().min(1).optional(),
  /** The GPU (CUDA_VISIBLE_DEVICES) the process runs on. */
  gpu: z.number().int().min(0).default(0),
  /** That GPU's memory, for the estimate that refuses a model that will not fit. */
  gpuMemoryGb: z.number().positive().default(80),
  dtype: z.enum(["bfloat16", "float16", "float32"]).default("bfloat16"),
  /** lora: a peft adapter; full: the whole model (about 4× the memory); auto: full where its estimate fits. */
  finetune: z.enum(["lora", "full", "auto"]).default("lora"),
  /** Requests decoded together, prompt + reply tokens per sequence, sequences per training micro-batch. */
  maxBatch: z.number().int().min(1).max(256).default(8),
  maxContext: z.number().int().min(16).max(131_072).default(4096),
  microBatch: z.number().int().min(1).max(256).default(4),
  /** Where it listens: the run reports http://host:port/v1 (policy) and /base/v1 (frozen base: judge, teacher). */
  serve: z
    .object({
      port: z.number().int().min(0).max(65_535).default(30_001),
      host: z.string().min(1).default("127.0.0.1"),
      /** The address the proxy and the judge reach it at, when not http://<host>:<port>/v1. */
      url: z.string().url().optional(),
    })
    .default({ port: 30_001, host: "127.0.0.1" }),
  /** Adapters go to <saveDir>/<experiment slug>/<run id>/step-NNNNNN. */
  saveDir: z.string().min(1).optional(),
  /** Folder holding the `integrations` package (default: the control plane's working directory). */
  cwd: z.string().min(1).optional(),
  graceMs: z.number().int().min(0).default(10_000),
});
export type HfLocalSettings = z.output<typeof HfLocalSettingsSchema>;

/** The model the run loads: the operator's setting, else the experiment's policy model. */
export function modelFor(launch: RunLaunch, settings: HfLocalSettings): string {
  const model = settings.model ?? launch.config.policyModel;
  if (!model) throw new Error("hf-local needs a model: set HF_LOCAL_MODEL or the experiment's policy model");
  return model;
}

function estimateFor(launch: RunLaunch, settings: HfLocalSettings, finetune: Finetune): MemoryEstimate | null {
  const model = modelFor(launch, settings);
  const shape = model === TINY_MODEL ? null : shapeFor(model);
  if (!shape) return null;
  return estimateMemory(shape, {
    finetune,
    loraRank: launch.config.lora.rank,
    maxBatch: settings.maxBatch,
    maxContext: settings.maxContext,
    microBatch: settings.microBatch,
  });
}

/**
 * The fine-tuning a launch does: the experiment's choice, else the backend's setting; auto is full when full
 * fine-tuning's estimate fits the GPU and LoRA otherwise (and for the tiny model and unknown shapes, whose memory
 * is not estimated).
 */
export function finetuneFor(launch: RunLaunch, settings: HfLocalSettings): Finetune {
  const mode = launch.config.finetune ?? settings.finetune;
  if (mode !== "auto") return mode;
  const full = estimateFor(launch, settings, "full");
  return full && full.totalGb <= settings.gpuMemoryGb ? "full" : "lora";
}

/** The memory estimate for a launch, or null for the tiny CPU model and for models of unknown shape. */
export function memoryFor(launch: RunLaunch, settings: HfLocalSettings): MemoryEstimate | null {
  return estimateFor(launch, settings, finetuneFor(launch, settings));
}

/** Throws, with the numbers, when the model will not fit on the GPU. */
export function assertFits(launch: RunLaunch, settings: HfLocalSettings): MemoryEstimate | null {
  const estimate = memoryFor(launch, settings);
  if (estimate && estimate.totalGb > settings.gpuMemoryGb) {
    throw new Error(
      `${modelFor(launch, settings)} will not fit on one ${settings.gpuMemoryGb} GB GPU${estimate.finetune === "full" ? " with full fine-tuning" : ""}: it needs ${describeEstimate(estimate)}. ` +
        `Choose a smaller model${estimate.finetune === "full" ? ", LoRA (HF_LOCAL_FINETUNE=lora or auto)" : ""}, or lower HF_LOCAL_MAX_CONTEXT / HF_LOCAL_MICRO_BATCH / HF_LOCAL_MAX_BATCH.`,
    );
  }
  return estimate;
}

/** The process's command and environment for a launch (also what the launch preview shows). */
export function hfLocalCommand(
  launch: RunLaunch,
  settings: HfLocalSettings,
): { argv: string[]; env: Record<string, string>; cwd: string } {
  const model = modelFor(launch, settings);
  const h = launch.config.hyperparameters;
  const env: Record<string, string> = {
    CONTROL_PLANE_URL: launch.config.controlPlaneUrl,
    CONTROL_PLANE_API_KEY: launch.config.apiKey,
    RUN_ID: launch.runId,
    OPENCLAW_EXPERIMENT: launch.experimentSlug,
    OPENCLAW_METHOD: launch.config.method,
    OPENCLAW_COMBINE_W_OPD: String(h.wOpd),
    OPENCLAW_COMBINE_W_RL: String(h.wRl),
    OPENCLAW_OPD_ADV_CLAMP: String(h.advClamp),
    HF_MODEL: model,
    HF_DEVICE: model === TINY_MODEL ? "cpu" : "cuda",
    HF_DTYPE: settings.dtype,
    HF_FINETUNE: finetuneFor(launch, settings),
    HF_OPD_ESTIMATOR: h.opdEstimator,
    HF_TOPK: String(h.distillTopK),
    // The judge already picked longest or shortest; the train-time modes choose among its candidates here.
    OPENCLAW_HINT_SELECTION:
      launch.config.hints.selection === "token_optimal" || launch.config.hints.selection === "sequence_optimal"
        ? launch.config.hints.selection
        : "shortest",
    HF_LEARNING_RATE: String(h.lr),
    HF_BATCH_SIZE: String(h.batchSize),
    HF_MICRO_BATCH: String(settings.microBatch),
    HF_MAX_BATCH: String(settings.maxBatch),
    HF_LORA_RANK: String(launch.config.lora.rank),
    HF_LORA_ALPHA: String(launch.config.lora.alpha),
    HF_EPS_CLIP: String(h.epsClip),
    HF_EPS_CLIP_HIGH: String(h.epsClipHigh),
    HF_DUAL_CLIP: String(h.dualClip),
    HF_NORMALIZE_ADVANTAGES: h.normalizeAdvantages ? "1" : "0",
    HF_SERVE_HOST: settings.serve.host,
    HF_SERVE_PORT: String(settings.serve.port),
    CUDA_VISIBLE_DEVICES: String(settings.gpu),
    PYTHONUNBUFFERED: "1",
    // It runs from the console checkout: no __pycache__ folders left in it.
    PYTHONDONTWRITEBYTECODE: "1",
  };
  if (launch.config.perUser) {
    // One LoRA per end user (integrations/hf/per_user.py), of the experiment's per-user rank, never full fine-tuning.
    env.HF_PER_USER = "1";
    env.HF_FINETUNE = "lora";
    env.HF_LORA_RANK = String(launch.config.perUser.rank);
    env.HF_LORA_ALPHA = String(launch.config.perUser.alpha);
  }
  if (settings.serve.url) env.HF_SERVE_URL = settings.serve.url;
  if (settings.saveDir) env.HF_SAVE_DIR = path.join(settings.saveDir, launch.experimentSlug);
  return { argv: [settings.python, "-m", "integrations.hf.train"], env, cwd: settings.cwd ?? process.cwd() };
}

export class HfLocalBackend implements TrainerBackend {
  readonly kind = HF_LOCAL_BACKEND_KIND;
  private readonly runs: ChildRuns;

  constructor(
    private readonly settings: HfLocalSettings,
    maxLogLines = 10_000,
  ) {
    this.runs = new ChildRuns({
      label: "hf-local",
      jobPrefix: "hf-local",
      notTracked: HF_LOCAL_NOT_TRACKED,
      inherited: INHERITED_ENV,
      graceMs: settings.graceMs,
      maxLogLines,
    });
  }

  preview(launch: RunLaunch): LaunchPlan {
    const model = modelFor(launch, this.settings);
    const estimate = assertFits(launch, this.settings);
    const gpu = `One process on one GPU (CUDA_VISIBLE_DEVICES=${this.settings.gpu})`;
    const notes = [
      finetuneFor(launch, this.settings) === "full"
        ? `${gpu}, full fine-tuning: it serves the policy, judges and teaches on a second, frozen copy of the base, and trains the whole model, time-sharing the GPU; each step's weights are copied into the idle one of two serving copies, so serving never pauses; each checkpoint is a whole model folder.`
        : `${gpu}: it serves the policy (LoRA rank ${launch.config.lora.rank}), judges and teaches on the frozen base (the adapter switched off), and trains the adapter, time-sharing the GPU; each step's adapter is swapped into serving without pausing it.`,
      `It serves at ${this.settings.serve.url ?? `http://${this.settings.serve.host}:${this.settings.serve.port}/v1`} and reports it as the run's rollout URL, and /base/v1 beside it as the run's PRM (judge votes and teacher log-probs).`,
    ];
    if (model === TINY_MODEL)
      notes.push("The tiny model is a small randomly initialised CPU model (CI and demos): no GPU is used.");
    else if (estimate)
      notes.push(`Memory: ${describeEstimate(estimate)} of the GPU's ${this.settings.gpuMemoryGb} GB.`);
    else notes.push(`No memory estimate: ${model} is not a known shape (Qwen3 0.6B–32B); make sure it fits.`);
    return { command: formatCommand(hfLocalCommand(launch, this.settings)), notes };
  }

  async start(input: RunLaunch): Promise<{ externalJobId: string }> {
    const launch = RunLaunchSchema.parse(input);
    assertFits(launch, this.settings);
    return this.runs.start(launch.runId, hfLocalCommand(launch, this.settings));
  }

  async stop(handle: RunHandle): Promise<void> {
    await this.runs.stop(handle.runId);
  }

  async status(handle: RunHandle): Promise<TrainerStatus> {
    return this.runs.status(handle.runId);
  }

  async logs(handle: RunHandle, opts: { tail?: number } = {}): Promise<string> {
    return this.runs.logs(handle.runId, opts.tail);
  }

  /** Ends every process this backend started (control-plane shutdown). */
  async stopAll(): Promise<void> {
    await this.runs.stopAll();
  }

  /** Forgets a finished run's process and logs (after the control plane has saved them). */
  forget(runId: string): void {
    this.runs.forget(runId);
  }
}
