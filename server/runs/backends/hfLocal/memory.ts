// GPU memory estimate for an hf-local run: one GPU holds the bf16 weights (serving, judging, teaching and
// training share them), the serving KV cache, the LoRA adapters (the trained one and two serving copies, fp32 as
// peft keeps them) with their gradients and Adam state, and one micro-batch's training activations with
// gradient checkpointing, whose fp32 logits over the vocabulary dominate for Qwen-sized vocabularies. The launch
// preview shows the numbers and refuses a model that will not fit.

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

export interface MemoryInputs {
  loraRank: number;
  /** Requests decoded together (the serving batch). */
  maxBatch: number;
  /** Prompt + reply tokens per sequence. */
  maxContext: number;
  /** Sequences per training forward/backward. */
  microBatch: number;
}

export interface MemoryEstimate {
  weightsGb: number;
  kvCacheGb: number;
  adapterGb: number;
  activationsGb: number;
  overheadGb: number;
  totalGb: number;
}

const GB = 1024 ** 3;
/** Per LoRA parameter: three fp32 copies (trained + two serving), its fp32 gradient and Adam's two moments. */
const ADAPTER_BYTES_PER_PARAM = 4 * 3 + 4 + 8;
const round = (x: number) => Math.round(x * 10) / 10;

export function estimateMemory(shape: HfModelShape, m: MemoryInputs): MemoryEstimate {
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  const h = shape.hidden;
  // LoRA on every linear layer: A is rank × in, B is out × rank.
  const perLayer = h + q + 2 * (h + kv) + (q + h) + 2 * (h + shape.ffn) + (shape.ffn + h);
  const adapter = m.loraRank * shape.layers * perLayer * ADAPTER_BYTES_PER_PARAM;
  const weights = shape.paramsB * 1e9 * 2;
  const kvCache = 2 * shape.layers * kv * 2 * m.maxBatch * m.maxContext;
  const tokens = m.microBatch * m.maxContext;
  // Checkpointed layer inputs, one layer's recomputed activations, fp32 logits + log-softmax + their gradient.
  const activations =
    shape.layers * tokens * h * 2 + tokens * (10 * h + 4 * shape.ffn) * 2 + tokens * shape.vocab * 4 * 3;
  const subtotal = weights + kvCache + adapter + activations;
  const overhead = 2 * GB + 0.1 * subtotal;
  const total = subtotal + overhead;
  return {
    weightsGb: round(weights / GB),
    kvCacheGb: round(kvCache / GB),
    adapterGb: round(adapter / GB),
    activationsGb: round(activations / GB),
    overheadGb: round(overhead / GB),
    totalGb: round(total / GB),
  };
}

export function describeEstimate(e: MemoryEstimate): string {
  return `about ${e.totalGb} GB (weights ${e.weightsGb}, KV cache ${e.kvCacheGb}, LoRA + optimizer ${e.adapterGb}, training activations ${e.activationsGb}, CUDA and fragmentation ${e.overheadGb})`;
}
