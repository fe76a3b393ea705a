// Builds the slime command line for a run, for a declared target profile (profiles.ts) and model preset
// (models.ts). Flag names and defaults follow OpenClaw-RL's launch scripts at the fork's pinned commit
// (openclaw-combine/run_qwen3_4b_openclaw_combine.sh, the *_lora.sh variants, openclaw-opd/…topk.sh); the GPU
// flags come from the validated plan. The operator's extra arguments are appended last (argparse: the last
// occurrence wins) and the finished list is checked as a whole (checkSlimeArgv), so an override cannot slip
// past the planner's or the profile's rules.
import { assertGpuPlan, GpuSplitError, type GpuPlan } from "../../../gpu/plan";
import type { RunLaunch, SlimeConfig } from "../backend";
import { MODEL_PRESET_IDS, resolveModelPreset, type ModelPreset } from "./models";
import { SLIME_PROFILES, type SlimeProfile } from "./profiles";
import { checkSlimeArgv, type SlimeBackendKind } from "./validate";

/** slime hook implemented by our Python integration (integrations/slime/rollout.py). */
export const SLIME_ROLLOUT_FUNCTION_PATH = "integrations.slime.rollout.generate_rollout";

/** Default custom losses for the methods that need one (overridable with slime.customLossFunctionPath). */
export const SLIME_CUSTOM_LOSS_PATHS = {
  combine: "integrations.slime.combine_loss.combine_loss_function",
  topk: "integrations.slime.topk_loss.topk_opd_loss_function",
} as const;

/** The scripts target q/k/v/o and the MLP projections. */
export const LORA_TARGET_MODULES = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj";

/** No dataset: the run goes on until stopped, as in the reference scripts. */
export const NUM_ROLLOUT_UNBOUNDED = 100_000_000;

/** Dynamic batching budgets of the reference scripts: Megatron 32768 tokens/GPU, FSDP-LoRA 8192. */
const MAX_TOKENS_PER_GPU = { megatron: 32768, fsdp: 8192 } as const;

/** A refusal of the command, with every reason (shown in the launch preview and the run's message). */
export class SlimeCommandError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "SlimeCommandError";
  }
}

export interface SlimeCommand {
  /** One shell line for Ray's `entrypoint` (includes `cd <dir> &&` when the slime dir is a local path). */
  entrypoint: string;
  /** Interpreter, script and flags, unquoted. */
  argv: string[];
  /** Environment the job needs (Ray: runtime_env.env_vars). Holds no secret: the key travels separately. */
  env: Record<string, string>;
  /** Directory the command runs in, when it is a path on the cluster. */
  cwd?: string;
  /** The GPU plan the flags were derived from (re-checked against the final flags). */
  plan: GpuPlan;
  profile: SlimeProfile;
  /** null = architecture arguments supplied by the operator (model "custom"). */
  model: ModelPreset | null;
  backend: SlimeBackendKind;
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

/** The method's own flags (exported for the contract test: a refused method's flags must still parse). */
export function methodArgs(launch: RunLaunch, slime: SlimeConfig): string[] {
  const { method, hyperparameters: h } = launch.config;
  const clip = ["--eps-clip", num(h.epsClip), "--eps-clip-high", num(h.epsClipHigh)];
  const kl = ["--use-kl-loss", "--kl-loss-coef", num(h.klCoef), "--kl-loss-type", "low_var_kl"];
  const entropy = ["--entropy-coef", num(h.entropyCoef)];
  // Dual-clip (slime ppo_utils.compute_policy_loss eps_clip_c, > 1) and advantage whitening (loss.py
  // compute_advantages_and_returns), where the experiment turns them on.
  const dual = h.dualClip > 1 ? ["--eps-clip-c", num(h.dualClip)] : [];
  const whiten = h.normalizeAdvantages ? ["--normalize-advantages"] : [];
  const lossPath = (m: keyof typeof SLIME_CUSTOM_LOSS_PATHS) =>
    slime.customLossFunctionPath ?? SLIME_CUSTOM_LOSS_PATHS[m];
  switch (method) {
    case "grpo":
      return [
        "--advantage-estimator",
        "grpo",
        "--disable-rewards-normalization",
        ...kl,
        ...entropy,
        ...clip,
        ...dual,
        ...whiten,
      ];
    case "opd":
      return ["--advantage-estimator", "on_policy_distillation", ...kl, ...entropy, ...clip, ...dual, ...whiten];
    case "combine":
      // The hybrid's GRPO term reads the batch's advantages, so whitening applies to it as to combine's.
      if (isTopkHybrid(launch)) return [...topkArgs(launch, slime), ...whiten];
      return [...grpoCustomLoss(lossPath("combine")), ...kl, ...entropy, ...clip, ...dual, ...whiten];
    case "topk":
      return topkArgs(launch, slime);
  }
}

/** GRPO advantages, rewards left unnormalised, and our custom loss: combine's and the top-K loss's common head. */
function grpoCustomLoss(path: string): string[] {
  return [
    "--advantage-estimator",
    "grpo",
    "--disable-rewards-normalization",
    "--loss-type",
    "custom_loss",
    "--custom-loss-function-path",
    path,
  ];
}

/**
 * Method topk and the hybrid (combine with the topk estimator) run upstream's top-K loss
 * (openclaw-combine/run_qwen3_4b_openclaw_topk_select.sh TOPK_SELECT_ARGS, extracted into sample-contract.json
 * `hybrid.launcher.loss_flags`): GRPO advantages are computed (the fork's actor merges the in-job teacher's payload
 * only then: sample-contract.json topk.actor), rewards are left unnormalised (else the fork drops every
 * constant-reward group of one sample: 16 samples would become 1), and the student subset runs train_async.py's
 * top-K + teacher gather passes.
 */
function topkArgs(launch: RunLaunch, slime: SlimeConfig): string[] {
  const h = launch.config.hyperparameters;
  return [
    ...grpoCustomLoss(slime.customLossFunctionPath ?? SLIME_CUSTOM_LOSS_PATHS.topk),
    "--distill-topk",
    String(h.distillTopK),
    "--distill-subset-mode",
    "student",
    "--use-kl-loss",
    "--kl-loss-coef",
    num(h.klCoef),
    "--kl-loss-type",
    "low_var_kl",
    "--entropy-coef",
    num(h.entropyCoef),
    "--eps-clip",
    num(h.epsClip),
    "--eps-clip-high",
    num(h.epsClipHigh),
  ];
}

/** Combine with the topk estimator: upstream's hybrid GRPO + top-K OPD (openclaw_topk_select_loss). */
export function isTopkHybrid(launch: RunLaunch): boolean {
  return launch.config.method === "combine" && launch.config.hyperparameters.opdEstimator === "topk";
}

/**
 * The judge's hint policy as the fork's flags (arguments.py @f48ac35: `--hint-m`, `--hint-selection`). Our judge,
 * not slime, makes the hint calls and picks the hint before a sample is built; the fork reads these flags only in
 * its own select rollouts and losses (retool, terminal-rl, openclaw_topk_select_loss), so here they put the run's
 * hint policy into the job's recorded arguments and before a custom loss that reads `args.hint_selection`. The
 * fork has no "longest" choice, so the reference's longest passes the hint count only.
 */
export function hintArgs(launch: RunLaunch, profile: SlimeProfile): string[] {
  const { method, hints } = launch.config;
  if (!profile.hintSelection || method === "grpo") return [];
  return ["--hint-m", String(hints.m), ...(hints.selection === "longest" ? [] : ["--hint-selection", hints.selection])];
}

/** The largest TP of 4, 2, 1 that divides the actor's GPUs per node and the model's heads (the scripts use 4). */
function defaultActorTp(gpusPerNode: number, model: ModelPreset | null): number {
  for (const tp of [4, 2, 1]) {
    if (gpusPerNode % tp !== 0) continue;
    if (model && (model.attentionHeads % tp !== 0 || model.kvHeads % tp !== 0)) continue;
    return tp;
  }
  return 1;
}

/** The model preset for the policy; null for "custom" (the operator supplies the architecture arguments). */
function modelFor(slime: SlimeConfig, profile: SlimeProfile): ModelPreset | null {
  if (slime.model === "custom") return null;
  const preset = resolveModelPreset(slime.model, slime.hfCheckpoint);
  if (!preset) {
    throw new SlimeCommandError([
      `no model preset for ${slime.model ? `'${slime.model}'` : `the checkpoint ${slime.hfCheckpoint}`}: set SLIME_MODEL to one of ` +
        `${MODEL_PRESET_IDS.join(", ")}, or to "custom" and pass the architecture arguments of slime/scripts/models/<model>.sh in SLIME_EXTRA_ARGS`,
    ]);
  }
  if (!preset.profiles.includes(profile.id)) {
    throw new SlimeCommandError([
      `${preset.name} cannot be built by ${profile.label}: its Megatron spec is not there (see ${preset.source}); use the profile ${preset.profiles.join(" or ")}`,
    ]);
  }
  return preset;
}

/** Runs slime with --load <save> when a bridge-mode job restarts after saving a checkpoint. */
export const SLIME_RESUME_MODULE = "integrations.slime.resume";

/**
 * The slime command for a launch. Throws SlimeCommandError (every problem) or GpuSplitError for a command the
 * target slime would refuse or mis-run, and Error when the slime part of the config is missing.
 */
export function buildSlimeCommand(launch: RunLaunch): SlimeCommand {
  const { config } = launch;
  if (!config.slime)
    throw new Error(`run ${launch.runId}: the slime settings (hfCheckpoint, …) are missing from the config`);
  const slime = config.slime;
  const profile = SLIME_PROFILES[slime.profile];
  const model = modelFor(slime, profile);
  const prmModel = slime.prmModelPath ? resolveModelPreset(undefined, slime.prmModelPath) : model;
  const backend: SlimeBackendKind = config.lora.enabled ? "fsdp" : "megatron";
  const basePlan = assertGpuPlan(config.gpu, { model: model ?? undefined, prmModel: prmModel ?? undefined });
  const tp = backend === "megatron" ? defaultActorTp(basePlan.summary.actor.gpusPerNode, model) : undefined;
  const plan = assertGpuPlan(config.gpu, { model: model ?? undefined, prmModel: prmModel ?? undefined, actorTp: tp });
  const { actor, rollout, prm } = plan.summary;
  const teacherGpus = plan.summary.teacher.gpus;
  const h = config.hyperparameters;

  const python = config.ray?.pythonEnv?.python ?? "python3";
  // train_async.py asserts `not args.colocate`; colocated runs use the synchronous loop.
  const script = plan.split.colocate ? "train.py" : "train_async.py";
  const refLoad = slime.refLoad ?? slime.hfCheckpoint;
  // The fork loads an HF directory only in bridge mode (checkpoint.py:130); a converted torch_dist --ref-load
  // loads in the default raw mode. Upstream has no such flag and reads HF weights natively.
  // Qwen3.5 has no bridge path on the fork (models.ts forkBridge): it is refused below with what to pass instead.
  const bridge =
    profile.bridgeMode && backend === "megatron" && refLoad === slime.hfCheckpoint && (model?.forkBridge ?? true);
  const megatron = backend === "megatron";

  const argv: string[] = [
    python,
    script,
    "--actor-num-nodes",
    String(actor.nodes),
    "--actor-num-gpus-per-node",
    String(actor.gpusPerNode),
    "--rollout-num-gpus",
    String(rollout.gpus),
    "--rollout-num-gpus-per-engine",
    String(rollout.gpusPerEngine),
    "--num-gpus-per-node",
    String(plan.split.gpusPerNode),
    ...(plan.split.colocate ? ["--colocate"] : []),
    // The fork asserts LoRA only runs on the FSDP backend (arguments.py:1884).
    ...(backend === "fsdp" ? ["--train-backend", "fsdp"] : []),
    // Architecture: the fork's hf_validate_args compares these with the checkpoint's config.json.
    ...(megatron && model ? [...model.modelArgs, "--rotary-base", String(model.rotaryBase)] : []),
    ...(bridge ? ["--megatron-to-hf-mode", "bridge"] : []),
    "--hf-checkpoint",
    slime.hfCheckpoint,
    "--ref-load",
    refLoad,
    ...(slime.saveDir ? ["--save", slime.saveDir, "--save-interval", String(slime.saveInterval)] : []),
    "--disable-rollout-global-dataset",
    "--rollout-function-path",
    SLIME_ROLLOUT_FUNCTION_PATH,
    "--num-rollout",
    String(NUM_ROLLOUT_UNBOUNDED),
    "--rollout-batch-size",
    String(h.batchSize),
    "--n-samples-per-prompt",
    "1",
    "--num-steps-per-rollout",
    "1",
    ...methodArgs(launch, slime),
    ...hintArgs(launch, profile),
    "--optimizer",
    "adam",
    "--lr",
    num(h.lr),
    "--lr-decay-style",
    "constant",
    "--weight-decay",
    "0.1",
    "--adam-beta1",
    "0.9",
    "--adam-beta2",
    "0.98",
    ...(megatron
      ? ["--optimizer-cpu-offload", "--overlap-cpu-optimizer-d2h-h2d", "--use-precision-aware-optimizer"]
      : []),
    // Parallelism and memory, as the scripts' PERF_ARGS (Megatron) or the LoRA scripts' (FSDP).
    ...(megatron
      ? [
          "--tensor-model-parallel-size",
          String(tp),
          ...(tp! > 1 ? ["--sequence-parallel"] : []),
          "--pipeline-model-parallel-size",
          "1",
          "--context-parallel-size",
          "1",
          "--recompute-granularity",
          "full",
          "--recompute-method",
          "uniform",
          "--recompute-num-layers",
          "1",
        ]
      : ["--gradient-checkpointing"]),
    "--use-dynamic-batch-size",
    "--max-tokens-per-gpu",
    String(slime.maxTokensPerGpu ?? MAX_TOKENS_PER_GPU[backend]),
    "--log-probs-chunk-size",
    "1024",
    ...(megatron
      ? [
          "--attention-dropout",
          "0.0",
          "--hidden-dropout",
          "0.0",
          "--accumulate-allreduce-grads-in-fp32",
          "--attention-softmax-in-fp32",
          "--attention-backend",
          "flash",
        ]
      : []),
    ...(config.lora.enabled
      ? [
          "--use-lora",
          "--lora-rank",
          String(config.lora.rank),
          "--lora-alpha",
          String(config.lora.alpha),
          "--lora-target-modules",
          LORA_TARGET_MODULES,
        ]
      : []),
    // SGLang engines: without the parsers OpenClaw's tool calls and thinking come back as plain text.
    ...(model
      ? ["--sglang-tool-call-parser", model.toolCallParser, "--sglang-reasoning-parser", model.reasoningParser]
      : []),
    "--sglang-mem-fraction-static",
    "0.8",
    "--sglang-context-length",
    String(model?.contextLength ?? 32768),
    ...(prm.external
      ? []
      : [
          "--prm-enable",
          "--prm-num-gpus",
          String(prm.gpus),
          "--prm-num-gpus-per-engine",
          String(prm.gpusPerEngine),
          "--prm-model-path",
          slime.prmModelPath ?? slime.hfCheckpoint,
        ]),
    // The 4-way split (OpenClaw-RL PR #85): a Megatron copy of the PRM model on its own GPUs scores each
    // sample's teacher_tokens inside the job (checkSlimeArgv allows it for combine and topk on the fork only).
    ...(teacherGpus > 0
      ? [
          "--prm-teacher-load",
          slime.prmTeacherLoad ?? slime.prmModelPath ?? slime.hfCheckpoint,
          "--prm-teacher-num-gpus",
          String(teacherGpus),
          // In bridge mode a torch_dist teacher still needs an HF directory to build from (fork actor.py:
          // "Pass --prm-teacher-hf-checkpoint when --prm-teacher-load is a torch_dist directory").
          ...(bridge && slime.prmTeacherLoad
            ? ["--prm-teacher-hf-checkpoint", slime.prmModelPath ?? slime.hfCheckpoint]
            : []),
        ]
      : []),
    ...slime.extraArgs,
  ];

  const problems = checkSlimeArgv(argv.slice(2), {
    profile,
    backend,
    model,
    prmModel,
    nodes: plan.split.nodes,
    prmTeacherGpus: plan.split.prmTeacherGpus,
    method: config.method,
    topkHybrid: isTopkHybrid(launch),
    // Raw mode loads the teacher from --prm-teacher-load as a torch_dist directory (fork actor.py asserts it);
    // the default (the PRM model's HF directory) only loads in bridge mode.
    teacherLoadsHfInRawMode: teacherGpus > 0 && backend === "megatron" && !bridge && !slime.prmTeacherLoad,
  });
  if (problems.gpu.length > 0) throw new GpuSplitError(problems.gpu);
  if (problems.other.length > 0) throw new SlimeCommandError(problems.other);

  const env: Record<string, string> = {
    CONTROL_PLANE_URL: config.controlPlaneUrl,
    RUN_ID: launch.runId,
    OPENCLAW_EXPERIMENT: launch.experimentSlug,
    OPENCLAW_METHOD: config.method,
    // Same names as the reference combine loss reads, so either loss module works.
    OPENCLAW_COMBINE_W_OPD: num(h.wOpd),
    OPENCLAW_COMBINE_W_RL: num(h.wRl),
    // Our combine loss clamps |teacher − π| as the embedded trainer does (slime has no flag for it); 0 = off.
    OPENCLAW_OPD_ADV_CLAMP: num(h.advClamp),
    OPENCLAW_MAX_STALENESS: String(h.maxStaleness),
    // Upstream's name: the combine loss takes the in-job teacher's log-probs, and samples carry teacher_tokens.
    ...(teacherGpus > 0 && config.method === "combine" ? { OPENCLAW_COMBINE_OPD_TEACHER_SOURCE: "megatron" } : {}),
    // Upstream's top-K knobs (openclaw_topk_select_loss.py; names extracted into sample-contract.json): method
    // topk is OPD only (no GRPO term), the hybrid weighs both as combine does; the advantage-difference clip is
    // topkDiffClip (upstream's launcher: 1.0), 0 = off.
    ...(config.method === "topk"
      ? { OPENCLAW_TOPK_W_RL: "0", OPENCLAW_TOPK_W_OPD: "1", OPENCLAW_TOPK_ADV_DIFF_CLIP: num(h.topkDiffClip) }
      : {}),
    // The hybrid's samples carry one teacher sequence per accepted hint, at most the judge's hint calls (upstream
    // passes the same number as --hint-m and OPENCLAW_TOPK_MAX_CAND).
    ...(isTopkHybrid(launch)
      ? {
          OPENCLAW_TOPK_W_RL: num(h.wRl),
          OPENCLAW_TOPK_W_OPD: num(h.wOpd),
          OPENCLAW_TOPK_ADV_DIFF_CLIP: num(h.topkDiffClip),
          OPENCLAW_TOPK_MAX_CAND: String(launch.config.hints.m),
        }
      : {}),
    PYTHONUNBUFFERED: "1",
    // Megatron needs it for compute/communication overlap; the scripts always set it.
    CUDA_DEVICE_MAX_CONNECTIONS: "1",
  };
  const pythonPath = config.ray?.pythonEnv?.pythonPath;
  if (pythonPath && pythonPath.length > 0) env.PYTHONPATH = pythonPath.join(":");

  const workingDir = config.ray?.workingDir;
  const cwd = workingDir && !isRemoteUri(workingDir) ? workingDir : undefined;
  // In bridge mode slime restarts from the base weights (it never sets --load itself): the launcher adds
  // --load <save> once a checkpoint is there (integrations/slime/resume.py).
  const resume = bridge && slime.saveDir ? [python, "-m", SLIME_RESUME_MODULE, ...argv.slice(1)] : argv;
  const line = resume.map(shellQuote).join(" ");
  return { entrypoint: cwd ? `cd ${shellQuote(cwd)} && ${line}` : line, argv, env, cwd, plan, profile, model, backend };
}

/**
 * What the job will train and with what, for the launch preview (the GPUs are in the plan's own line): the
 * method's loss, where its teacher log-probs come from, and the judge's hint policy.
 */
export function describeSlimeRun(cmd: SlimeCommand, launch: RunLaunch): string[] {
  const { method, hints, hyperparameters: h } = launch.config;
  const { prm, teacher } = cmd.plan.summary;
  const at = (flag: string) => (cmd.argv.includes(flag) ? cmd.argv[cmd.argv.lastIndexOf(flag) + 1] : undefined);
  const judge = prm.external
    ? "The judge's votes and hints come from the experiment's judge endpoint (no PRM engines in the job)."
    : `The judge's votes and hints come from the job's ${prm.engines} PRM engine(s) on ${prm.gpus} GPU(s), reached through the PRM router the job reports.`;
  const scoredTeacher =
    "teacher log-probs scored by the judge worker per accepted hint (the job's PRM engines, or the experiment's teacher: an SGLang or vLLM engine, never a router)";
  const notes: string[] = [];
  switch (method) {
    case "grpo":
      notes.push("Method grpo: slime's GRPO on the judge's ±1 votes (rewards not normalised); no teacher.");
      break;
    case "opd":
      notes.push(`Method opd: the fork's on_policy_distillation advantage (teacher − π) on ${scoredTeacher}.`);
      break;
    case "combine":
      if (isTopkHybrid(launch)) {
        const clip = h.topkDiffClip > 0 ? `±${h.topkDiffClip}` : "off";
        const select = at("--hint-selection") ?? "shortest";
        notes.push(
          `Method combine (upstream's hybrid, top-K estimator): ${at("--custom-loss-function-path")}, w_rl ${h.wRl} × GRPO on the sampled tokens + ` +
            `w_opd ${h.wOpd} × top-K OPD over the student's top-${at("--distill-topk")} tokens; advantage-difference clip ${clip}. ` +
            `Each sample carries one hinted sequence per accepted hint candidate (at most ${hints.m}, shortest first; its own tokens when it has no hint), ` +
            `and the in-job Megatron PRM teacher (${teacher.gpus} GPU(s), --prm-teacher-load ${at("--prm-teacher-load")}) runs once per candidate ` +
            `(as many passes per rollout as the most candidates a sample has) and gathers its log-probs at the student's top-K; ` +
            `--hint-selection ${select} picks the candidate ${select === "shortest" ? "0 (the shortest hint)" : select === "token_optimal" ? "per token" : "per sample"}` +
            `${hints.selection === "longest" ? " (the judge keeps only its longest hint, the reference's, so each sample has one candidate)" : ""}.`,
        );
        break;
      }
      notes.push(
        `Method combine: ${at("--custom-loss-function-path")}, w_opd ${h.wOpd} × OPD + w_rl ${h.wRl} × GRPO, on ` +
          (teacher.gpus > 0
            ? `teacher log-probs from the in-job Megatron PRM teacher (${teacher.gpus} GPU(s), --prm-teacher-load ${at("--prm-teacher-load")}).`
            : `${scoredTeacher}.`),
      );
      break;
    case "topk":
      notes.push(
        `Method topk: ${at("--custom-loss-function-path")}, upstream's top-K OPD over the student's top-${at("--distill-topk")} tokens: ` +
          `the in-job Megatron PRM teacher (${teacher.gpus} GPU(s), --prm-teacher-load ${at("--prm-teacher-load")}) scores each sample's hinted prompt ` +
          `at those tokens; advantage-difference clip ${h.topkDiffClip > 0 ? `±${h.topkDiffClip}` : "off"}${h.topkDiffClip === 1 ? " (upstream's launcher)" : " (upstream's launcher uses 1.0)"}; no GRPO term.`,
      );
      break;
  }
  notes.push(judge);
  if (method !== "grpo")
    notes.push(
      `Hints: ${hints.m} hint call(s) per turn; ` +
        (isTopkHybrid(launch) && hints.selection !== "longest"
          ? "every accepted hint is a candidate (deduplicated, shortest first), the trainer picks among them"
          : `the judge trains on the ${hints.selection === "longest" ? "longest (the reference)" : "shortest"} accepted hint`) +
        (cmd.profile.hintSelection
          ? ` (recorded as --hint-m${hints.selection === "longest" ? "" : " / --hint-selection"}).`
          : "."),
    );
  return notes;
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
export function formatCommand(
  cmd: Pick<SlimeCommand, "argv" | "env" | "cwd">,
  opts: { revealSecrets?: boolean } = {},
): string {
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
