// Checks of a finished slime argument list, after the operator's extra arguments were appended: the GPU
// layout the flags really ask for (re-planned), and the target profile's own rules, each with where in the
// source it comes from. Argparse keeps the last occurrence of a flag, so that is the value read here.
import { planGpuSplit, type GpuSplitIssue } from "../../../gpu/plan";
import type { ModelPreset } from "./models";
import type { SlimeProfile } from "./profiles";

export type SlimeBackendKind = "megatron" | "fsdp";

/** flag → its values at the last occurrence ([] for a bare flag). */
export function lastValues(args: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith("--")) continue;
    const values: string[] = [];
    for (let j = i + 1; j < args.length && !args[j].startsWith("--"); j++) values.push(args[j]);
    out.set(args[i], values);
  }
  return out;
}

export interface ArgvContext {
  profile: SlimeProfile;
  /** The backend the generated command selected (config: LoRA → fsdp). */
  backend: SlimeBackendKind;
  model: ModelPreset | null;
  prmModel: ModelPreset | null;
  /** The cluster size from the experiment's split (slime has no flag for it). */
  nodes: number;
  prmTeacherGpus: number;
  /** The training method (the in-job PRM teacher serves combine and topk only). */
  method: "grpo" | "opd" | "combine" | "topk";
  /** Combine with the topk estimator: upstream's hybrid GRPO + top-K OPD, on the top-K path of method topk. */
  topkHybrid?: boolean;
  /** The in-job teacher would load an HF directory while the job runs in raw mode. */
  teacherLoadsHfInRawMode?: boolean;
}

const LORA_FLAGS = ["--use-lora", "--lora-rank", "--lora-alpha", "--lora-target-modules"];
const FORK_ONLY_FLAGS = [
  "--prm-enable",
  "--prm-num-gpus",
  "--prm-num-gpus-per-engine",
  "--prm-model-path",
  "--distill-topk",
  "--megatron-to-hf-mode",
  "--prm-teacher-load",
  "--prm-teacher-num-gpus",
  ...LORA_FLAGS,
];

/**
 * Why the command cannot run top-K OPD (method topk, or the hybrid: combine with the topk estimator), or []. The fork
 * runs it (PRs #99/#109) only along one path, recorded from its source in tests/fixtures/slime/sample-contract.json
 * `topk` and `hybrid`: train_async.py runs the student top-K and the in-job teacher's gather passes (once per hint
 * candidate when the samples carry teacher_tokens_candidates) when a PRM teacher model exists and `distill_topk > 0
 * and subset_mode == 'student'`; train.py (colocated) has no such pass; the Megatron actor merges the teacher's
 * payload into the batch only under `compute_advantages_and_returns`; the loss needs the old policy's log-probs from
 * Megatron.
 */
function topkProblems(ctx: ArgvContext, v: Map<string, string[]>): string[] {
  const k = Number(v.get("--distill-topk")?.[0] ?? 0);
  const what = ctx.topkHybrid ? "the top-K hybrid (combine with the topk estimator)" : "top-K OPD";
  if (ctx.method !== "topk" && !ctx.topkHybrid)
    return k > 0
      ? ["--distill-topk is for the topk OPD estimator (method opd or combine) and changes nothing else"]
      : [];
  const out: string[] = [];
  if (!(k > 0)) out.push(`${what} needs --distill-topk above 0`);
  if (ctx.prmTeacherGpus === 0)
    out.push(
      `${what} on slime needs the in-job Megatron PRM teacher (set PRM teacher GPUs to 1 or more): it gathers the teacher's log-probs at the student's top-K tokens inside the job${ctx.topkHybrid ? ", once per hint candidate" : ""}; an external teacher engine scores the sampled tokens only`,
    );
  if (v.has("--colocate"))
    out.push(`${what} needs train_async.py's teacher gather pass, which the colocated train.py lacks: do not colocate`);
  const mode = v.get("--distill-subset-mode")?.[0] ?? "student";
  if (mode !== "student")
    out.push(
      `--distill-subset-mode ${mode} is not supported here: the generated path is the student subset (train_async.py's student top-K + teacher gather), the one the top-K loss was checked against`,
    );
  if (v.has("--disable-compute-advantages-and-returns"))
    out.push(
      "--disable-compute-advantages-and-returns would leave the teacher's top-K out of the batch (the fork's actor merges it only when advantages are computed)",
    );
  if (v.has("--use-rollout-logprobs"))
    out.push(`${what} needs the old policy's log-probs from Megatron (its student top-K): drop --use-rollout-logprobs`);
  return out;
}

/**
 * Why the in-job Megatron PRM teacher (4-way split, OpenClaw-RL PR #85) cannot serve this command, or null.
 * Upstream uses it for combine (its loss reads `prm_teacher_log_probs`) and top-K OPD (the gather at the
 * student's top-K), while the fork's on_policy_distillation estimator (opd) reads only the shipped
 * `teacher_log_probs` (megatron_utils/loss.py @f48ac35), and the FSDP (LoRA) backend has no PRM teacher role.
 * It needs the PRM engines too (the judge's votes and hints).
 */
function inJobTeacherProblem(ctx: ArgvContext, backend: string, v: Map<string, string[]>): string | null {
  const gpus = ctx.prmTeacherGpus;
  if (gpus === 0) {
    return v.has("--prm-teacher-load")
      ? "--prm-teacher-load without PRM teacher GPUs: set the split's PRM teacher GPUs instead of passing the flag"
      : null;
  }
  if (ctx.method !== "combine" && ctx.method !== "topk")
    return `the in-job PRM teacher (PRM teacher GPUs ${gpus}) serves methods combine and topk only (the fork's ${ctx.method === "opd" ? "on_policy_distillation estimator reads the shipped teacher_log_probs, not prm_teacher_log_probs" : "grpo has no teacher"}): set PRM teacher GPUs to 0${ctx.method === "opd" ? ", or use combine with w_rl 0, or the topk estimator" : ""}`;
  if (backend !== "megatron")
    return "the in-job PRM teacher is a Megatron role: train without LoRA (Megatron), or set PRM teacher GPUs to 0";
  if (!v.has("--prm-teacher-load")) return "PRM teacher GPUs are set but --prm-teacher-load is missing";
  if (ctx.teacherLoadsHfInRawMode)
    return "the in-job PRM teacher runs in raw mode here (the policy loads a torch_dist --ref-load) and would load the PRM model's HF directory, which the fork refuses (actor.py: raw mode requires a torch_dist directory): set SLIME_PRM_TEACHER_LOAD to a torch_dist conversion";
  return null;
}

/** `gpu`: issues of the GPU layout (reported like the planner's); `other`: everything else. */
export function checkSlimeArgv(args: readonly string[], ctx: ArgvContext): { gpu: GpuSplitIssue[]; other: string[] } {
  const v = lastValues(args);
  const one = (flag: string) => v.get(flag)?.[0];
  const int = (flag: string, fallback: number) => {
    const raw = one(flag);
    return raw === undefined ? fallback : Number(raw);
  };
  const other: string[] = [];
  const { profile } = ctx;
  const backend = (one("--train-backend") ?? "megatron") as string;
  const estimator = one("--advantage-estimator") ?? "grpo";
  const customLoss = one("--loss-type") === "custom_loss";

  if (profile.id === "upstream-slime") {
    // Upstream parses --train-backend with choices ["megatron"] (slime/utils/arguments.py:1592) and has no
    // on_policy_distillation estimator (:940-950): both fatal. Fork-only flags are dropped silently by its
    // parse_known_args, which would run something else than the preview says: refuse them too.
    if (backend !== "megatron")
      other.push(`${profile.label} has no --train-backend ${backend} (LoRA needs the OpenClaw-RL fork profile)`);
    if (estimator === "on_policy_distillation")
      other.push(
        `${profile.label} has no --advantage-estimator on_policy_distillation (its OPD is --use-opd): use the fork profile for methods opd and combine`,
      );
    const ignored = FORK_ONLY_FLAGS.filter((f) => v.has(f));
    if (ignored.length)
      other.push(
        `${profile.label} would silently ignore ${ignored.join(", ")} (fork-only): use the fork profile, or set PRM GPUs to 0 and use an external judge`,
      );
    if (customLoss)
      other.push(
        `${profile.label}: the combine/top-K losses read teacher log-probs that only the fork's batch carries; use the fork profile`,
      );
  } else {
    // Fork: LoRA flags exist only in the FSDP parser (fsdp_utils/arguments.py:50-55) and LoRA asserts FSDP
    // (arguments.py:1884-1885).
    if (backend === "megatron" && LORA_FLAGS.some((f) => v.has(f)))
      other.push("--use-lora needs --train-backend fsdp in the fork (arguments.py:1884)");
    if (backend === "fsdp") {
      // The fork's FSDP actor never calls a custom loss and accepts only grpo/gspo (fsdp_utils/actor.py:530-537).
      if (customLoss)
        other.push(
          "the fork's FSDP (LoRA) backend ignores --loss-type custom_loss, so combine would train plain GRPO and top-K nothing: train without LoRA (Megatron) for methods combine and topk",
        );
      if (!["grpo", "gspo"].includes(estimator))
        other.push(
          `the fork's FSDP (LoRA) backend supports only the grpo/gspo estimators, not ${estimator}: train without LoRA for method opd`,
        );
    }
    const teacherProblem = inJobTeacherProblem(ctx, backend, v);
    if (teacherProblem) other.push(teacherProblem);
    other.push(...topkProblems(ctx, v));
    if (backend === "megatron") {
      const ref = one("--ref-load");
      const hf = one("--hf-checkpoint");
      // checkpoint.py:130: "Only bridge mode is supported for loading HF checkpoint".
      const rawOnly = ctx.model !== null && !ctx.model.forkBridge;
      if (ref !== undefined && ref === hf && one("--megatron-to-hf-mode") !== "bridge") {
        other.push(
          rawOnly
            ? `${ctx.model!.name} on the fork loads only a torch_dist conversion (its raw Megatron spec; no bridge mode, openclaw-*/run_qwen35_4b_*.sh): convert it with tools/convert_hf_to_torch_dist.py and pass it as SLIME_REF_LOAD`
            : "--ref-load is the Hugging Face checkpoint, which the fork loads only with --megatron-to-hf-mode bridge (checkpoint.py:130): pass bridge, or a torch_dist conversion as SLIME_REF_LOAD",
        );
      }
      if (rawOnly && one("--megatron-to-hf-mode") === "bridge")
        other.push(
          `${ctx.model!.name} must not load through --megatron-to-hf-mode bridge on the fork (its raw spec keeps the hybrid linear/full-attention layout): pass a torch_dist SLIME_REF_LOAD`,
        );
    }
  }
  if (backend === "megatron") {
    // hf_validate_args compares these with config.json; Megatron's defaults (None) never match.
    const missing = ["--num-layers", "--hidden-size", "--num-attention-heads", "--ffn-hidden-size"].filter(
      (f) => !v.has(f),
    );
    if (missing.length)
      other.push(
        `the Megatron architecture arguments ${missing.join(", ")} are missing: pick a model preset (SLIME_MODEL) or pass slime/scripts/models/<model>.sh's MODEL_ARGS`,
      );
  }

  // Re-plan the GPUs from the flags as slime will read them.
  const prmOn = v.has("--prm-enable") && profile.prmEngines;
  const split = {
    nodes: ctx.nodes,
    gpusPerNode: int("--num-gpus-per-node", 8),
    actorGpus: int("--actor-num-nodes", 1) * int("--actor-num-gpus-per-node", 8),
    rolloutGpus: int("--rollout-num-gpus", 0),
    rolloutGpusPerEngine: int("--rollout-num-gpus-per-engine", 1),
    prmGpus: prmOn ? int("--prm-num-gpus", 0) : 0,
    prmGpusPerEngine: prmOn ? int("--prm-num-gpus-per-engine", 1) : 1,
    prmTeacherGpus: ctx.prmTeacherGpus,
    colocate: v.has("--colocate"),
  };
  if (prmOn && split.prmGpus === 0)
    other.push("--prm-enable with --prm-num-gpus 0: the fork requires PRM GPUs above 0 (arguments.py:1729-1738)");
  const tpRaw = backend === "megatron" ? one("--tensor-model-parallel-size") : undefined;
  const plan = planGpuSplit(split, {
    model: ctx.model ?? undefined,
    prmModel: ctx.prmModel ?? undefined,
    actorTp: tpRaw === undefined ? undefined : Number(tpRaw),
  });
  return { gpu: plan.ok ? [] : plan.errors, other };
}
