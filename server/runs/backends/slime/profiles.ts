// The slime a run targets. OpenClaw-RL's users run the slime fork vendored in Gen-Verse/OpenClaw-RL (with its
// PRM engines, FSDP/LoRA backend and on-policy-distillation estimator); upstream THUDM/slime is a second,
// declared profile where it differs. The argument contracts of both are extracted into
// tests/fixtures/slime/<profile>.json (integrations/contracts/README.md) and checked by the contract test.
export const SLIME_PROFILE_IDS = ["openclaw-rl-fork", "upstream-slime"] as const;
export type SlimeProfileId = (typeof SLIME_PROFILE_IDS)[number];

export interface SlimeProfile {
  id: SlimeProfileId;
  /** For the launch preview and the docs. */
  label: string;
  repo: string;
  commit: string;
  /** --train-backend fsdp exists (LoRA). Upstream: choices ["megatron"] only (slime/utils/arguments.py:1592). */
  fsdp: boolean;
  /** --advantage-estimator on_policy_distillation exists (upstream moved OPD to --use-opd). */
  opdEstimator: boolean;
  /** --prm-enable, --prm-num-gpus(-per-engine) and --prm-model-path exist (upstream ignores them silently). */
  prmEngines: boolean;
  /** HF checkpoints load only through --megatron-to-hf-mode bridge (fork checkpoint.py:130); upstream loads them natively. */
  bridgeMode: boolean;
  /** --distill-topk exists (top-K OPD). */
  distillTopK: boolean;
  /** --hint-m and --hint-selection shortest|token_optimal|sequence_optimal exist (fork arguments.py). */
  hintSelection: boolean;
  /** Unknown flags: fatal (argparse error) or silently dropped (parse_known_args). */
  unknownFlags: "fatal" | "ignored";
}

export const SLIME_PROFILES: Record<SlimeProfileId, SlimeProfile> = {
  "openclaw-rl-fork": {
    id: "openclaw-rl-fork",
    label: "OpenClaw-RL's slime fork (Gen-Verse/OpenClaw-RL@f48ac35, slime/ with its vendored Megatron-LM)",
    repo: "Gen-Verse/OpenClaw-RL",
    // 2026-05-22, upstream merges through PR #114 (its history is mirrored in toininoi/openclaw-rl).
    commit: "f48ac358adf9873b5cb2210f1cb234a52ed8a8a3",
    fsdp: true,
    opdEstimator: true,
    prmEngines: true,
    bridgeMode: true,
    distillTopK: true,
    hintSelection: true,
    unknownFlags: "fatal",
  },
  "upstream-slime": {
    id: "upstream-slime",
    label: "upstream slime (THUDM/slime@624b824 with Megatron-LM@1dcf0da)",
    repo: "THUDM/slime",
    commit: "624b824a898ab0ec1fcb4d373004c7f3852bf515",
    fsdp: false,
    opdEstimator: false,
    prmEngines: false,
    bridgeMode: false,
    distillTopK: false,
    hintSelection: false,
    unknownFlags: "ignored",
  },
};
