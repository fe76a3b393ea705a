// Model presets for the generated slime command: Megatron architecture arguments exactly as slime's
// scripts/models/*.sh define them (the fork's `hf_validate_args` compares them with the checkpoint's
// config.json and refuses a mismatch, and Megatron's defaults never match), the shape the GPU planner's
// tensor-parallel rules need, and the SGLang parsers the model's chat format needs.
import type { ModelShape } from "../../../gpu/plan";
import type { SlimeProfileId } from "./profiles";

export interface ModelPreset extends ModelShape {
  id: string;
  /** Where the architecture arguments come from (repository@commit:path). */
  source: string;
  /** Megatron MODEL_ARGS (without --rotary-base, which is `rotaryBase`). */
  modelArgs: string[];
  rotaryBase: number;
  /** SGLang --tool-call-parser / --reasoning-parser for this model's chat format. */
  toolCallParser: string;
  reasoningParser: string;
  contextLength: number;
  /** Profiles that can build this model (others lack the model's Megatron spec). */
  profiles: readonly SlimeProfileId[];
  /** How a checkpoint directory name is recognised (case-insensitive), most specific first. */
  match: RegExp;
  /**
   * The fork can load the HF checkpoint itself (--megatron-to-hf-mode bridge). False: it needs a torch_dist
   * conversion as --ref-load (Qwen3.5's raw spec path keeps its hybrid linear/full-attention layout).
   */
  forkBridge: boolean;
}

const FORK_MODELS = "Gen-Verse/OpenClaw-RL@f48ac358adf9873b5cb2210f1cb234a52ed8a8a3:slime/scripts/models";

// fork slime/scripts/models/qwen3-4B.sh (qwen3-4B-Instruct-2507.sh sources it with MODEL_ARGS_ROTARY_BASE=5000000).
const QWEN3_4B_ARGS = [
  "--swiglu",
  "--num-layers",
  "36",
  "--hidden-size",
  "2560",
  "--ffn-hidden-size",
  "9728",
  "--num-attention-heads",
  "32",
  "--group-query-attention",
  "--num-query-groups",
  "8",
  "--use-rotary-position-embeddings",
  "--disable-bias-linear",
  "--normalization",
  "RMSNorm",
  "--norm-epsilon",
  "1e-6",
  "--vocab-size",
  "151936",
  "--kv-channels",
  "128",
  "--qk-layernorm",
];

// OpenClaw-RL's scripts for Qwen3 (openclaw-*/run_qwen3_4b_*.sh) pass --sglang-tool-call-parser qwen25 and
// --sglang-reasoning-parser qwen3 with --sglang-context-length 32768.
const QWEN3_SGLANG = { toolCallParser: "qwen25", reasoningParser: "qwen3", contextLength: 32768 } as const;

export const MODEL_PRESETS: readonly ModelPreset[] = [
  {
    id: "qwen3-4b-2507",
    name: "Qwen3-4B-2507",
    source: `${FORK_MODELS}/qwen3-4B-Instruct-2507.sh (and openclaw-combine/run_qwen3_4b_openclaw_combine.sh for Thinking-2507)`,
    modelArgs: QWEN3_4B_ARGS,
    rotaryBase: 5_000_000,
    attentionHeads: 32,
    kvHeads: 8,
    ...QWEN3_SGLANG,
    profiles: ["openclaw-rl-fork", "upstream-slime"],
    match: /qwen3-4b-(instruct|thinking)-2507/i,
    forkBridge: true,
  },
  {
    id: "qwen3-4b",
    name: "Qwen3-4B",
    source: `${FORK_MODELS}/qwen3-4B.sh`,
    modelArgs: QWEN3_4B_ARGS,
    rotaryBase: 1_000_000,
    attentionHeads: 32,
    kvHeads: 8,
    ...QWEN3_SGLANG,
    profiles: ["openclaw-rl-fork", "upstream-slime"],
    match: /qwen3-4b(?!-\w+-2507)/i,
    forkBridge: true,
  },
  {
    id: "qwen3-8b",
    name: "Qwen3-8B",
    source: `${FORK_MODELS}/qwen3-8B.sh`,
    modelArgs: [
      "--swiglu",
      "--num-layers",
      "36",
      "--hidden-size",
      "4096",
      "--ffn-hidden-size",
      "12288",
      "--num-attention-heads",
      "32",
      "--group-query-attention",
      "--num-query-groups",
      "8",
      "--use-rotary-position-embeddings",
      "--disable-bias-linear",
      "--normalization",
      "RMSNorm",
      "--norm-epsilon",
      "1e-6",
      "--vocab-size",
      "151936",
      "--kv-channels",
      "128",
      "--qk-layernorm",
      "--untie-embeddings-and-output-weights",
    ],
    rotaryBase: 1_000_000,
    attentionHeads: 32,
    kvHeads: 8,
    ...QWEN3_SGLANG,
    profiles: ["openclaw-rl-fork", "upstream-slime"],
    match: /qwen3-8b/i,
    forkBridge: true,
  },
  {
    id: "qwen3.5-4b",
    name: "Qwen3.5-4B",
    // The fork has it since PR #43 (119206f); the same MODEL_ARGS as upstream's scripts/models/qwen3.5-4B.sh.
    source: `${FORK_MODELS}/qwen3.5-4B.sh (and THUDM/slime@624b824a898ab0ec1fcb4d373004c7f3852bf515:scripts/models/qwen3.5-4B.sh)`,
    modelArgs: [
      "--spec",
      "slime_plugins.models.qwen3_5",
      "get_qwen3_5_spec",
      "--disable-bias-linear",
      "--qk-layernorm",
      "--group-query-attention",
      "--num-attention-heads",
      "16",
      "--num-query-groups",
      "4",
      "--kv-channels",
      "256",
      "--num-layers",
      "32",
      "--hidden-size",
      "2560",
      "--ffn-hidden-size",
      "9216",
      "--use-gated-attention",
      "--normalization",
      "RMSNorm",
      "--apply-layernorm-1p",
      "--position-embedding-type",
      "rope",
      "--norm-epsilon",
      "1e-6",
      "--rotary-percent",
      "0.25",
      "--swiglu",
      "--vocab-size",
      "248320",
      "--attention-output-gate",
    ],
    rotaryBase: 10_000_000,
    attentionHeads: 16,
    kvHeads: 4,
    // Qwen3.5's tool calls use the Qwen3-Coder XML format (SGLang parser qwen3_coder), thinking as Qwen3.
    toolCallParser: "qwen3_coder",
    reasoningParser: "qwen3",
    contextLength: 32768,
    profiles: ["openclaw-rl-fork", "upstream-slime"],
    match: /qwen3\.5-4b/i,
    // Fork openclaw-combine/run_qwen35_4b_openclaw_combine.sh: "Qwen3.5 must use the raw spec path … Do NOT
    // set … --megatron-to-hf-mode bridge", with a torch_dist REF_LOAD.
    forkBridge: false,
  },
];

export const MODEL_PRESET_IDS = MODEL_PRESETS.map((m) => m.id);

/** The preset named `id`, or the one whose pattern matches the checkpoint path; null when neither. */
export function resolveModelPreset(id: string | undefined, checkpoint: string): ModelPreset | null {
  if (id) return MODEL_PRESETS.find((m) => m.id === id) ?? null;
  const base = checkpoint.replace(/\/+$/, "").split("/").pop() ?? checkpoint;
  return MODEL_PRESETS.find((m) => m.match.test(base)) ?? null;
}
