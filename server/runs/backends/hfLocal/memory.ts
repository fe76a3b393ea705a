// GPU memory estimate for an hf-local run: one GPU holds the bf16 weights (serving, judging, teaching and
// training share them), the serving KV cache, the LoRA adapters (the trained one and two serving copies, fp32 as
// peft keeps them) with their gradients and Adam state, and one micro-batch's training activations with
// gradient checkpointing, whose fp32 logits over the vocabulary dominate for Qwen-sized vocabularies. Full
// fine-tuning (integrations/hf/hf_model.py HfFullChatModel) holds three bf16 copies instead of one (the frozen
// base for the judge and the teacher, two serving copies for swaps without pausing) and the trained copy as fp32
// master weights with an fp32 gradient and Adam's two fp32 moments for every parameter. The launch preview shows
// the numbers and refuses a model that will not fit.

/** The architecture numbers the estimate needs (Qwen/Qwen3-* config.json). */
export interface HfModelShape {
  id: string;
  /** Parameters, in billions (embeddings included). */
  paramsB: number;
  layers: number;
  hidden: number;
  ffn: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  /** How a checkpoint id or folder name is recognised (case-insensitive), most specific first. */
  match: RegExp;
}

export const HF_MODEL_SHAPES: readonly HfModelShape[] = [
  {
    id: "qwen3-0.6b",
    paramsB: 0.6,
    layers: 28,
    hidden: 1024,
    ffn: 3072,
    heads: 16,
    kvHeads: 8,
    headDim: 128,
    vocab: 151_936,
    match: /qwen3-0\.6b/i,
  },
  {
    id: "qwen3-1.7b",
    paramsB: 1.7,
    layers: 28,
    hidden: 2048,
    ffn: 6144,
    heads: 16,
    kvHeads: 8,
    headDim: 128,
    vocab: 151_936,
    match: /qwen3-1\.7b/i,
  },
  {
    id: "qwen3-4b",
    paramsB: 4.0,
    layers: 36,
    hidden: 2560,
    ffn: 9728,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    vocab: 151_936,
    match: /qwen3-4b/i,
  },
  {
    id: "qwen3-8b",
    paramsB: 8.2,
    layers: 36,
    hidden: 4096,
    ffn: 12_288,
    heads: 32,
    kvHeads: 8,
    headDim: 128,
    vocab: 151_936,
    match: /qwen3-8b/i,
  },
  {
    id: "qwen3-14b",
    paramsB: 14.8,
    layers: 40,
    hidden: 5120,
    ffn: 17_408,
    heads: 40,
    kvHeads: 8,
    headDim: 128,
    vocab: 151_936,
    match: /qwen3-14b/i,
  },
  {
    id: "qwen3-32b",
    paramsB: 32.8,
    layers: 64,
    hidden: 5120,
    ffn: 25_600,
    heads: 64,
    kvHeads: 8,
    headDim: 128,
    vocab: 151_936,
    match: /qwen3-32b/i,
  },
];

export function shapeFor(model: string): HfModelShape | null {
  return HF_MODEL_SHAPES.find((s) => s.match.test(model)) ?? null;
}

export type Finetune = "lora" | "full";

export interface MemoryInputs {
  finetune: Finetune;
  loraRank: number;
  /** Requests decoded together (the serving batch). */
  maxBatch: number;
  /** Prompt + reply tokens per sequence. */
  maxContext: number;
  /** Sequences per training forward/backward. */
  microBatch: number;
}

export interface MemoryEstimate {
  finetune: Finetune;
  /** The bf16 copies: one for LoRA, three for full fine-tuning (frozen base + two serving copies). */
  weightsGb: number;
  kvCacheGb: number;
  /** What the optimizer steps, with its gradient and Adam state: the LoRA adapters, or the fp32 trained copy. */
  trainedGb: number;
  activationsGb: number;
  overheadGb: number;
  totalGb: number;
}

const GB = 1024 ** 3;
/** Per LoRA parameter: three fp32 copies (trained + two serving), its fp32 gradient and Adam's two moments. */
const ADAPTER_BYTES_PER_PARAM = 4 * 3 + 4 + 8;
/** Per parameter of a fully fine-tuned model: fp32 master weight, fp32 gradient, Adam's two fp32 moments. */
const FULL_BYTES_PER_PARAM = 4 + 4 + 8;
const round = (x: number) => Math.round(x * 10) / 10;

export function estimateMemory(shape: HfModelShape, m: MemoryInputs): MemoryEstimate {
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  const h = shape.hidden;
  // LoRA on every linear layer: A is rank × in, B is out × rank.
  const perLayer = h + q + 2 * (h + kv) + (q + h) + 2 * (h + shape.ffn) + (shape.ffn + h);
  const params = shape.paramsB * 1e9;
  const full = m.finetune === "full";
  const trained = full ? params * FULL_BYTES_PER_PARAM : m.loraRank * shape.layers * perLayer * ADAPTER_BYTES_PER_PARAM;
  const weights = params * 2 * (full ? 3 : 1);
  const kvCache = 2 * shape.layers * kv * 2 * m.maxBatch * m.maxContext;
  const tokens = m.microBatch * m.maxContext;
  // Checkpointed layer inputs, one layer's recomputed activations, fp32 logits + log-softmax + their gradient.
  const activations =
    shape.layers * tokens * h * 2 + tokens * (10 * h + 4 * shape.ffn) * 2 + tokens * shape.vocab * 4 * 3;
  const subtotal = weights + kvCache + trained + activations;
  const overhead = 2 * GB + 0.1 * subtotal;
  const total = subtotal + overhead;
  return {
    finetune: m.finetune,
    weightsGb: round(weights / GB),
    kvCacheGb: round(kvCache / GB),
    trainedGb: round(trained / GB),
    activationsGb: round(activations / GB),
    overheadGb: round(overhead / GB),
    totalGb: round(total / GB),
  };
}

export function describeEstimate(e: MemoryEstimate): string {
  const parts =
    e.finetune === "full"
      ? `weights ${e.weightsGb} (three bf16 copies: frozen base, two serving), KV cache ${e.kvCacheGb}, fp32 trained copy + gradients + Adam ${e.trainedGb}`
      : `weights ${e.weightsGb}, KV cache ${e.kvCacheGb}, LoRA + optimizer ${e.trainedGb}`;
  return `about ${e.totalGb} GB (${parts}, training activations ${e.activationsGb}, CUDA and fragmentation ${e.overheadGb})`;
}
