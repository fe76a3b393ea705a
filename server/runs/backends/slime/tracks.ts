// The slime jobs of the agentic tracks, as the fork's own scripts define them (toininoi/openclaw-rl@f48ac35,
// = Gen-Verse/OpenClaw-RL through PR #114):
//   toolcall-rl/retool_qwen3_4b_rl.sh, retool_qwen3_4b_prm_rl.sh   (ReTool: math with a Python sandbox)
//   terminal-rl/terminal-rl_qwen3-8b.sh, terminal-rl_qwen3-8b_prm_2nodes.sh   (terminal agents on env pools)
// Groups of n samples per prompt; with a PRM, `--advantage-estimator step_wise` and the PRM's SGLang engines
// on GPUs of their own (`--prm-num-gpus`, next to the actor's and the rollout's); the tracks' own generate
// and reward functions (`--custom-generate-function-path`, `--custom-rm-path`), which drive the episodes
// inside the job (driver "fork"). With driver "console" — what a run of an environment experiment launches
// (trackLaunch.ts) — the same job leases finished episode groups from the console instead (our rollout
// function, OPENCLAW_LEASE_UNIT=episodes; integrations/slime/episodes.py): the console ran them through its proxy
// against this job's router, so every step is on the dashboard, and the job needs no dataset and no env pool. The argv is checked flag by flag against the fork's extracted argparse contract
// (tests/fixtures/slime/openclaw-rl-fork.json) in tests/unit/runs/backends/slimeContract.test.ts.
import { z } from "zod";
import type { GpuSplitInput } from "../../../gpu/schema";
import { resolveModelPreset, type ModelPreset } from "./models";

/** slime's --rollout-function-path for our rollout function (args.ts uses the same). */
const CONSOLE_ROLLOUT_FUNCTION = "integrations.slime.rollout.generate_rollout";

export const TRACKS = ["retool", "terminal"] as const;
export type Track = (typeof TRACKS)[number];

const path = z.string().trim().min(1).max(1000);
const count = (min: number, max: number) => z.number().int().min(min).max(max);

export const trackJobSchema = z.object({
  track: z.enum(TRACKS),
  /** fork: the fork's generate drives episodes in the job; console: the job leases the console's episodes. */
  driver: z.enum(["fork", "console"]).default("fork"),
  hfCheckpoint: path,
  /** The Megatron torch_dist conversion of the checkpoint (the scripts' REF_LOAD). */
  refLoad: path,
  saveDir: path,
  /** fork driver: retool's dapo-math-17k JSONL (prompt, label); terminal's task dataset (`task` per line). */
  promptData: path.optional(),
  /** retool: the held-out AIME JSONL it evaluates on every 20 rollouts. */
  evalData: path.optional(),
  /** A model preset id (server/runs/backends/slime/models.ts); default: recognised from the checkpoint. */
  modelPreset: z.string().optional(),
  nSamplesPerPrompt: count(1, 64).default(8),
  rolloutBatchSize: count(1, 4096).optional(),
  /** Rollouts before the job ends (a console-driven job runs until the run is stopped: 100M). */
  numRollout: count(1, 100_000_000).optional(),
  gpu: z
    .object({
      nodes: count(1, 64).default(1),
      gpusPerNode: count(1, 16).default(8),
      actorGpus: count(1, 1024).optional(),
      rolloutGpus: count(1, 1024).optional(),
      rolloutGpusPerEngine: count(1, 16).default(2),
      tensorParallel: count(1, 16).optional(),
    })
    .default({ nodes: 1, gpusPerNode: 8, rolloutGpusPerEngine: 2 }),
  /** The step PRM: its own SGLang engines, its votes folded into step_wise advantages. */
  prm: z
    .object({
      modelPath: path,
      gpus: count(1, 1024).optional(),
      gpusPerEngine: count(1, 16).optional(),
      m: count(1, 16).default(1),
      stepCoef: z.number().min(0).max(100).default(1),
      temperature: z.number().min(0).max(2).optional(),
      maxNewTokens: count(1, 65_536).default(4096),
    })
    .optional(),
  /** terminal: the pool (router) the fork's generate reaches the environments through (ENV_SERVER_URL). */
  envServerUrl: z.string().url().optional(),
  /** terminal: its rollout config (the fork's terminal-rl/configs/rollout_qwen3.yaml by default). */
  customConfigPath: path.optional(),
});
export type TrackJobInput = z.input<typeof trackJobSchema>;

export class TrackJobError extends Error {
  override name = "TrackJobError";
}

export interface TrackJob {
  /** Run from the fork's checkout: slime's async trainer, as both tracks' scripts run it. */
  entry: "slime/train_async.py";
  argv: string[];
  /** The Ray job's runtime env (the scripts' RUNTIME_ENV_JSON): the track folder on PYTHONPATH for its paths. */
  env: Record<string, string>;
  /** GPUs by role, for the plan shown before launch. */
  split: { actor: number; rollout: number; prm: number; total: number };
  /** The same split as the planner's input (server/gpu/plan.ts), so the GPU grid places it as slime does. */
  gpuSplit: GpuSplitInput;
}

// What differs between the tracks, as in their scripts (single-node defaults: ReTool 4+4 / PRM 2+4+2 on 8
// GPUs; terminal 4+4 on 8, with its PRM on a second node of 8).
const TRACK = {
  retool: {
    folder: "toolcall-rl",
    preset: "qwen3-4b",
    rotaryBase: 5_000_000,
    actorGpus: { plain: 4, prm: 2 },
    rolloutGpus: 4,
    prmGpus: 2,
    prmGpusPerEngine: 2,
    prmTemperature: 0.6,
    tensorParallel: { plain: 4, prm: 2 },
    rolloutBatchSize: 32,
    numRollout: 3000,
    saveInterval: 20,
    rollout: ["--input-key", "prompt", "--label-key", "label", "--apply-chat-template"],
    custom: [
      "--custom-generate-function-path",
      "generate_with_retool.generate",
      "--custom-rm-path",
      "generate_with_retool.reward_func",
    ],
    // ReTool's scripts clip asymmetrically; terminal's keep slime's default clip.
    grpoExtra: ["--entropy-coef", "0.00", "--eps-clip", "0.2", "--eps-clip-high", "0.28"],
  },
  terminal: {
    folder: "terminal-rl",
    preset: "qwen3-8b",
    rotaryBase: 1_000_000,
    actorGpus: { plain: 4, prm: 4 },
    rolloutGpus: 4,
    prmGpus: 8,
    prmGpusPerEngine: 1,
    prmTemperature: 0.0,
    tensorParallel: { plain: 4, prm: 4 },
    rolloutBatchSize: 16,
    numRollout: 2000,
    saveInterval: 8,
    rollout: ["--input-key", "task"],
    custom: ["--custom-generate-function-path", "generate.generate"],
    // Terminal episodes keep a growing history: the fork's generate trims it dynamically.
    grpoExtra: ["--dynamic_history"],
  },
} as const;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export function buildTrackJob(raw: TrackJobInput): TrackJob {
  const input = trackJobSchema.parse(raw);
  const t = TRACK[input.track];
  const prm = input.prm !== undefined;
  const preset: ModelPreset | null = resolveModelPreset(input.modelPreset ?? t.preset, input.hfCheckpoint);
  if (!preset) throw new TrackJobError(`no model preset ${input.modelPreset ?? t.preset}`);
  if (!preset.profiles.includes("openclaw-rl-fork"))
    throw new TrackJobError(`${preset.name} cannot be built by the fork: its Megatron spec is not there`);

  const total = input.gpu.nodes * input.gpu.gpusPerNode;
  const actor = input.gpu.actorGpus ?? (prm ? t.actorGpus.prm : t.actorGpus.plain);
  const rollout = input.gpu.rolloutGpus ?? t.rolloutGpus;
  const prmGpus = prm ? (input.prm!.gpus ?? t.prmGpus) : 0;
  const prmPerEngine = prm ? (input.prm!.gpusPerEngine ?? t.prmGpusPerEngine) : 0;
  // The script's tensor parallel, cut to divide the actor's GPUs per node when a smaller split asks for it.
  const perNodeGuess = actor / Math.ceil(actor / input.gpu.gpusPerNode);
  const tp =
    input.gpu.tensorParallel ??
    (Number.isInteger(perNodeGuess)
      ? gcd(prm ? t.tensorParallel.prm : t.tensorParallel.plain, perNodeGuess)
      : prm
        ? t.tensorParallel.prm
        : t.tensorParallel.plain);
  // The scripts' own checks (check_gpus / check_gpu_budget), plus what slime asserts at start.
  if (actor + rollout + prmGpus > total)
    throw new TrackJobError(
      `actor ${actor} + rollout ${rollout} + PRM ${prmGpus} GPUs exceed the ${total} of ${input.gpu.nodes} node(s)`,
    );
  if (rollout % input.gpu.rolloutGpusPerEngine !== 0)
    throw new TrackJobError(
      `rollout GPUs (${rollout}) must be a multiple of GPUs per engine (${input.gpu.rolloutGpusPerEngine})`,
    );
  if (prm && prmGpus % prmPerEngine !== 0)
    throw new TrackJobError(`PRM GPUs (${prmGpus}) must be a multiple of PRM GPUs per engine (${prmPerEngine})`);
  if (preset.attentionHeads % tp !== 0 || preset.kvHeads % tp !== 0)
    throw new TrackJobError(`tensor parallel ${tp} must divide ${preset.name}'s attention and KV heads`);
  // The actor spans whole nodes when it needs more than one (the 2-node PRM script: 1 node × 4 GPUs).
  const actorNodes = Math.ceil(actor / input.gpu.gpusPerNode);
  if (actor % actorNodes !== 0)
    throw new TrackJobError(`actor GPUs (${actor}) must split evenly over ${actorNodes} node(s)`);
  if ((actor / actorNodes) % tp !== 0)
    throw new TrackJobError(`tensor parallel ${tp} must divide the actor's ${actor / actorNodes} GPUs per node`);
  const fork = input.driver === "fork";
  if (fork && !input.promptData)
    throw new TrackJobError("the fork's generate reads its prompts from a dataset: promptData is required");
  if (fork && input.track === "terminal" && !input.envServerUrl)
    throw new TrackJobError("a terminal-rl job needs the env pool's URL (envServerUrl, the fork's ENV_SERVER_URL)");

  const argv = [
    ...["--actor-num-nodes", String(actorNodes), "--actor-num-gpus-per-node", String(actor / actorNodes)],
    ...["--rollout-num-gpus", String(rollout), "--num-gpus-per-node", String(input.gpu.gpusPerNode)],
    ...preset.modelArgs,
    ...["--hf-checkpoint", input.hfCheckpoint, "--ref-load", input.refLoad],
    ...["--load", input.saveDir, "--save", input.saveDir, "--save-interval", String(t.saveInterval)],
    ...["--rotary-base", String(t.rotaryBase)],
    ...(fork
      ? ["--prompt-data", input.promptData!, ...t.rollout, "--rollout-shuffle", "--reward-key", "score"]
      : ["--disable-rollout-global-dataset", "--rollout-function-path", CONSOLE_ROLLOUT_FUNCTION]),
    ...["--num-rollout", String(input.numRollout ?? t.numRollout)],
    ...["--rollout-batch-size", String(input.rolloutBatchSize ?? t.rolloutBatchSize)],
    ...["--n-samples-per-prompt", String(input.nSamplesPerPrompt)],
    ...["--rollout-max-response-len", "8192", "--rollout-max-context-len", "16384", "--rollout-temperature", "1"],
    ...["--num-steps-per-rollout", "2", "--balance-data"],
    ...(fork && input.evalData
      ? ["--eval-interval", "20", "--eval-prompt-data", "aime", input.evalData, "--eval-reward-key", "acc"]
      : []),
    ...["--n-samples-per-eval-prompt", "16", "--eval-max-response-len", "16384", "--eval-top-p", "1"],
    ...["--tensor-model-parallel-size", String(tp), "--sequence-parallel", "--pipeline-model-parallel-size", "1"],
    ...["--context-parallel-size", "1", "--expert-model-parallel-size", "1", "--expert-tensor-parallel-size", "1"],
    ...["--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"],
    ...["--use-dynamic-batch-size", "--max-tokens-per-gpu", "16384", "--log-probs-chunk-size", "1024"],
    ...["--advantage-estimator", prm ? "step_wise" : "grpo", ...t.grpoExtra],
    ...["--use-kl-loss", "--kl-loss-coef", "0.01", "--kl-loss-type", "k3"],
    ...["--optimizer", "adam", "--lr", "1e-6", "--lr-decay-style", "constant", "--weight-decay", "0.1"],
    ...["--adam-beta1", "0.9", "--adam-beta2", "0.98", "--optimizer-cpu-offload"],
    ...["--overlap-cpu-optimizer-d2h-h2d", "--use-precision-aware-optimizer"],
    ...["--rollout-num-gpus-per-engine", String(input.gpu.rolloutGpusPerEngine)],
    ...["--sglang-mem-fraction-static", "0.6"],
    ...["--attention-dropout", "0.0", "--hidden-dropout", "0.0", "--accumulate-allreduce-grads-in-fp32"],
    ...["--attention-softmax-in-fp32", "--attention-backend", "flash"],
    ...(fork ? t.custom : []),
    ...(fork && input.track === "terminal"
      ? [
          ...["--custom-rollout-log-function-path", "rollout_log.rollout_log"],
          ...["--custom-config-path", input.customConfigPath ?? "terminal-rl/configs/rollout_qwen3.yaml"],
        ]
      : []),
    ...(prm
      ? [
          ...["--prm-enable", "--prm-num-gpus", String(prmGpus), "--prm-num-gpus-per-engine", String(prmPerEngine)],
          ...["--prm-model-path", input.prm!.modelPath, "--prm-m", String(input.prm!.m)],
          ...["--prm-step-coef", String(input.prm!.stepCoef)],
          ...["--prm-temperature", String(input.prm!.temperature ?? t.prmTemperature)],
          ...["--prm-max-new-tokens", String(input.prm!.maxNewTokens)],
        ]
      : []),
  ];
  const env: Record<string, string> = fork
    ? {
        // The custom paths are module paths relative to the track's folder (the scripts put SCRIPT_DIR there).
        PYTHONPATH: ["Megatron-LM", t.folder, "slime", "."].join(":"),
        CUDA_DEVICE_MAX_CONNECTIONS: "1",
        ...(input.track === "terminal" ? { USE_REMOTE_ENV: "1", ENV_SERVER_URL: input.envServerUrl! } : {}),
      }
    : { CUDA_DEVICE_MAX_CONNECTIONS: "1", OPENCLAW_LEASE_UNIT: "episodes" };
  return {
    entry: "slime/train_async.py",
    argv,
    env,
    split: { actor, rollout, prm: prmGpus, total },
    gpuSplit: {
      nodes: input.gpu.nodes,
      gpusPerNode: input.gpu.gpusPerNode,
      actorGpus: actor,
      rolloutGpus: rollout,
      rolloutGpusPerEngine: input.gpu.rolloutGpusPerEngine,
      prmGpus,
      // The planner wants a per-engine size even without PRM engines; slime ignores it then.
      prmGpusPerEngine: prm ? prmPerEngine : 1,
      prmTeacherGpus: 0,
      colocate: false,
    },
  };
}
