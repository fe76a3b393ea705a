// Builds the slime command line for a run. Flag names and defaults follow OpenClaw-RL's launch scripts
// (openclaw-rl/run_qwen3_4b_openclaw_rl.sh, the *_lora.sh variants, openclaw-opd/…topk.sh) and slime's
// arguments.py; the GPU flags come from the validated plan rather than hand-kept env vars.
import { assertGpuPlan, type GpuPlan } from "../../../gpu/plan";
import type { RunLaunch, SlimeConfig } from "../backend";

/** slime hook implemented by our Python integration (integrations/slime/rollout.py). */
export const SLIME_ROLLOUT_FUNCTION_PATH = "integrations.slime.rollout.generate_rollout";

/** Default custom losses for the methods that need one (overridable with slime.customLossFunctionPath). */
export const SLIME_CUSTOM_LOSS_PATHS = {
  combine: "integrations.slime.combine_loss.combine_loss_function",
  topk: "integrations.slime.topk_loss.topk_distillation_loss_function",
} as const;

/** The scripts target q/k/v/o and the MLP projections. */
export const LORA_TARGET_MODULES = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj";

/** No dataset: the run goes on until stopped, as in the reference scripts. */
const NUM_ROLLOUT_UNBOUNDED = 100_000_000;

export interface SlimeCommand {
  /** One shell line for Ray's `entrypoint` (includes `cd <dir> &&` when the slime dir is a local path). */
  entrypoint: string;
  /** Interpreter, script and flags, unquoted. */
  argv: string[];
  /** Environment the job needs (Ray: runtime_env.env_vars). Contains the run's API key. */
  env: Record<string, string>;
  /** Directory the command runs in, when it is a path on the cluster. */
  cwd?: string;
  /** The GPU plan the flags were derived from. */
  plan: GpuPlan;
}

/** True for working_dir values Ray downloads itself (gcs://, s3://, https://…). */
export function isRemoteUri(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

/** Numbers as a human would type them on a command line: 1e-5, not 0.00001. */
function num(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) < 1e-3 ? value.toExponential() : String(value);
}

function methodArgs(launch: RunLaunch, slime: SlimeConfig): string[] {
  const { method, hyperparameters: h } = launch.config;
  const clip = ["--eps-clip", num(h.epsClip), "--eps-clip-high", num(h.epsClipHigh)];
  const kl = ["--use-kl-loss", "--kl-loss-coef", num(h.klCoef), "--kl-loss-type", "low_var_kl"];
  const entropy = ["--entropy-coef", num(h.entropyCoef)];
  const lossPath = (m: keyof typeof SLIME_CUSTOM_LOSS_PATHS) => slime.customLossFunctionPath ?? SLIME_CUSTOM_LOSS_PATHS[m];
  switch (method) {
    case "grpo":
      return ["--advantage-estimator", "grpo", "--disable-rewards-normalization", ...kl, ...entropy, ...clip];
    case "opd":
      return ["--advantage-estimator", "on_policy_distillation", ...kl, ...entropy, ...clip];
    case "combine":
      return [
        "--advantage-estimator", "grpo", "--disable-rewards-normalization",
        "--loss-type", "custom_loss", "--custom-loss-function-path", lossPath("combine"),
        ...kl, ...entropy, ...clip,
      ];
    case "topk":
      // The top-K loss is a reverse KL over teacher tokens; advantages are not computed at all.
      return [
        "--loss-type", "custom_loss", "--custom-loss-function-path", lossPath("topk"),
        "--distill-topk", String(h.distillTopK), "--disable-compute-advantages-and-returns",
        ...entropy,
      ];
  }
}

/**
 * The slime command for a launch. Throws GpuSplitError for an invalid split and Error when the slime
 * part of the config is missing.
 */
export function buildSlimeCommand(launch: RunLaunch): SlimeCommand {
  const { config } = launch;
  if (!config.slime) throw new Error(`run ${launch.runId}: the slime settings (hfCheckpoint, …) are missing from the config`);
  const slime = config.slime;
  const plan = assertGpuPlan(config.gpu);
  const { actor, rollout, prm } = plan.summary;
  const h = config.hyperparameters;

  const python = config.ray?.pythonEnv?.python ?? "python3";
  // train_async.py asserts `not args.colocate`; colocated runs use the synchronous loop.
  const script = plan.split.colocate ? "train.py" : "train_async.py";

  const argv: string[] = [
    python, script,
    "--actor-num-nodes", String(actor.nodes),
    "--actor-num-gpus-per-node", String(actor.gpusPerNode),
    "--rollout-num-gpus", String(rollout.gpus),
    "--rollout-num-gpus-per-engine", String(rollout.gpusPerEngine),
    "--num-gpus-per-node", String(plan.split.gpusPerNode),
    ...(plan.split.colocate ? ["--colocate"] : []),
    // slime asserts LoRA only runs on the FSDP backend.
    ...(config.lora.enabled ? ["--train-backend", "fsdp"] : []),
    "--hf-checkpoint", slime.hfCheckpoint,
    "--ref-load", slime.refLoad ?? slime.hfCheckpoint,
    ...(slime.saveDir ? ["--save", slime.saveDir, "--save-interval", String(slime.saveInterval)] : []),
    "--disable-rollout-global-dataset",
    "--rollout-function-path", SLIME_ROLLOUT_FUNCTION_PATH,
    "--num-rollout", String(NUM_ROLLOUT_UNBOUNDED),
    "--rollout-batch-size", String(h.batchSize),
    "--n-samples-per-prompt", "1",
    "--num-steps-per-rollout", "1",
    ...methodArgs(launch, slime),
    "--optimizer", "adam",
    "--lr", num(h.lr),
    "--lr-decay-style", "constant",
    "--weight-decay", "0.1",
    "--adam-beta1", "0.9",
    "--adam-beta2", "0.98",
    ...(config.lora.enabled
      ? ["--use-lora", "--lora-rank", String(config.lora.rank), "--lora-alpha", String(config.lora.alpha), "--lora-target-modules", LORA_TARGET_MODULES]
      : []),
    ...(slime.maxTokensPerGpu ? ["--use-dynamic-batch-size", "--max-tokens-per-gpu", String(slime.maxTokensPerGpu)] : []),
    ...(prm.external
      ? []
      : [
          "--prm-enable",
          "--prm-num-gpus", String(prm.gpus),
          "--prm-num-gpus-per-engine", String(prm.gpusPerEngine),
          "--prm-model-path", slime.prmModelPath ?? slime.hfCheckpoint,
        ]),
    ...slime.extraArgs,
  ];

  const env: Record<string, string> = {
    CONTROL_PLANE_URL: config.controlPlaneUrl,
    CONTROL_PLANE_API_KEY: config.apiKey,
    RUN_ID: launch.runId,
    OPENCLAW_EXPERIMENT: launch.experimentSlug,
    OPENCLAW_METHOD: config.method,
    // Same names as the reference combine loss reads, so either loss module works.
    OPENCLAW_COMBINE_W_OPD: num(h.wOpd),
    OPENCLAW_COMBINE_W_RL: num(h.wRl),
    OPENCLAW_MAX_STALENESS: String(h.maxStaleness),
    PYTHONUNBUFFERED: "1",
    // Megatron needs it for compute/communication overlap; the scripts always set it.
    CUDA_DEVICE_MAX_CONNECTIONS: "1",
  };
  const pythonPath = config.ray?.pythonEnv?.pythonPath;
  if (pythonPath && pythonPath.length > 0) env.PYTHONPATH = pythonPath.join(":");

  const workingDir = config.ray?.workingDir;
  const cwd = workingDir && !isRemoteUri(workingDir) ? workingDir : undefined;
  const line = argv.map(shellQuote).join(" ");
  return { entrypoint: cwd ? `cd ${shellQuote(cwd)} && ${line}` : line, argv, env, cwd, plan };
}

/** POSIX shell quoting: bare when safe, otherwise single quotes. */
export function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

const SECRET_NAME = /(key|token|secret|password)/i;
const HIDDEN = "<hidden>";

/**
 * The command as the user reviews it before launch: `cd`, one `export` per env var, then the script with
 * one flag (and its values) per line. Secrets (env vars and flag values whose names mention key, token,
 * secret or password) are hidden unless `revealSecrets` is set.
 */
export function formatCommand(cmd: Pick<SlimeCommand, "argv" | "env" | "cwd">, opts: { revealSecrets?: boolean } = {}): string {
  const reveal = opts.revealSecrets ?? false;
  const lines: string[] = [];
  if (cmd.cwd) lines.push(`cd ${shellQuote(cmd.cwd)}`);
  for (const [name, value] of Object.entries(cmd.env)) {
    lines.push(`export ${name}=${!reveal && SECRET_NAME.test(name) ? HIDDEN : shellQuote(value)}`);
  }
  // Interpreter and script on the first line, then one flag with its values per line.
  const groups: string[][] = [cmd.argv.slice(0, 2).map(shellQuote)];
  let hideNext = false;
  for (const arg of cmd.argv.slice(2)) {
    const isFlag = arg.startsWith("--");
    const shown = hideNext && !isFlag ? HIDDEN : shellQuote(arg);
    if (isFlag) groups.push([shown]);
    else groups[groups.length - 1].push(shown);
    hideNext = !reveal && isFlag && SECRET_NAME.test(arg);
  }
  lines.push(groups.map((g, i) => (i === 0 ? g.join(" ") : `  ${g.join(" ")}`)).join(" \\\n"));
  return lines.join("\n");
}
