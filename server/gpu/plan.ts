import { z } from "zod";

/**
 * GPU split planner for slime-style training: actor (trainer), rollout (policy SGLang engines), PRM
 * (judge/teacher SGLang engines) and, optionally, a separate PRM teacher (OpenClaw-RL PR #85's 4-way split
 * ACTOR / ROLLOUT / PRM / PRM_TEACHER). It mirrors how slime actually places work: one placement group whose
 * bundles are sorted by node then GPU id, handed out contiguously in the order actor → rollout → PRM
 * (`slime/ray/placement_group.py`). The OpenClaw-RL scripts only check `actor + rollout + prm <= NUM_GPUS`
 * on one node (their issue #56); this planner checks the whole cluster and the engine/node geometry, plus
 * (given the model) the tensor-parallel rules of Megatron and SGLang.
 */

const MAX_NODES = 1024;
const MAX_GPUS_PER_NODE = 64;

const MAX_GPUS = MAX_NODES * MAX_GPUS_PER_NODE;
const count = (min: number, max: number) => z.number().int().min(min).max(max);

export const GpuSplitSchema = z.object({
  nodes: count(1, MAX_NODES).default(1),
  gpusPerNode: count(1, MAX_GPUS_PER_NODE).default(8),
  actorGpus: count(1, MAX_GPUS).default(4),
  rolloutGpus: count(1, MAX_GPUS).default(2),
  /** 0 = no local PRM engines (an external PRM/judge endpoint is used instead). */
  prmGpus: count(0, MAX_GPUS).default(2),
  /** Tensor-parallel size of one policy SGLang engine (slime `--rollout-num-gpus-per-engine`). */
  rolloutGpusPerEngine: count(1, MAX_GPUS).default(2),
  /** Tensor-parallel size of one PRM SGLang engine (OpenClaw-RL `--prm-num-gpus-per-engine`). */
  prmGpusPerEngine: count(1, MAX_GPUS).default(2),
  /** GPUs of a separate PRM teacher (4-way split), placed after the PRM engines; 0 = the PRM engines are the teacher. */
  prmTeacherGpus: count(0, MAX_GPUS).default(0),
  /** Training and rollout share GPUs (slime `--colocate`; synchronous `train.py` only). */
  colocate: z.boolean().default(false),
});

export type GpuSplit = z.output<typeof GpuSplitSchema>;
export type GpuSplitInput = z.input<typeof GpuSplitSchema>;
export type GpuSplitField = keyof GpuSplit;

export type GpuRole = "actor" | "rollout" | "prm" | "teacher" | "idle";

export interface GpuAssignment {
  /** CUDA device index on its node. */
  gpu: number;
  role: GpuRole;
  /** Engine index within the role (rollout/prm only), numbered across the whole cluster. */
  engine?: number;
  /** Colocated rollout engine that shares this actor GPU. */
  sharedWith?: { role: "rollout"; engine: number };
}

export interface NodePlan {
  node: number;
  gpus: GpuAssignment[];
}

export interface GpuPlanSummary {
  totalGpus: number;
  usedGpus: number;
  idleGpus: number;
  colocate: boolean;
  /** slime `--actor-num-nodes` × `--actor-num-gpus-per-node`. */
  actor: { gpus: number; nodes: number; gpusPerNode: number };
  rollout: { gpus: number; engines: number; gpusPerEngine: number };
  /** `external` = no local PRM engines (prmGpus 0). */
  prm: { gpus: number; engines: number; gpusPerEngine: number; external: boolean };
  /** The separate PRM teacher of the 4-way split (gpus 0 = none). */
  teacher: { gpus: number };
  /** One readable line for the UI, e.g. "8 GPUs (1 node × 8): actor 4 (1 node × 4), …". */
  text: string;
}

export interface GpuSplitIssue {
  field: GpuSplitField | "split";
  message: string;
}

export type GpuPlanResult =
  { ok: true; split: GpuSplit; nodes: NodePlan[]; summary: GpuPlanSummary } | { ok: false; errors: GpuSplitIssue[] };

export type GpuPlan = Extract<GpuPlanResult, { ok: true }>;

export class GpuSplitError extends Error {
  constructor(readonly errors: GpuSplitIssue[]) {
    super(`Invalid GPU split: ${errors.map((e) => e.message).join("; ")}`);
    this.name = "GpuSplitError";
  }
}

const LABEL: Record<GpuSplitField, string> = {
  nodes: "nodes",
  gpusPerNode: "GPUs per node",
  actorGpus: "actor GPUs",
  rolloutGpus: "rollout GPUs",
  prmGpus: "PRM GPUs",
  rolloutGpusPerEngine: "GPUs per rollout engine",
  prmGpusPerEngine: "GPUs per PRM engine",
  prmTeacherGpus: "PRM teacher GPUs",
  colocate: "colocate",
};

/** What the tensor-parallel rules need to know about a model (from the slime model presets). */
export interface ModelShape {
  name: string;
  attentionHeads: number;
  /** num_key_value_heads (Megatron --num-query-groups). */
  kvHeads: number;
}

/** Optional facts that sharpen the plan: the models served and the actor's Megatron tensor parallelism. */
export interface GpuPlanContext {
  /** The policy (actor and rollout engines). */
  model?: ModelShape;
  /** The PRM/teacher model of the PRM engines (default: the policy). */
  prmModel?: ModelShape;
  /** Megatron --tensor-model-parallel-size of the actor (FSDP: leave unset). */
  actorTp?: number;
}

export interface GpuSplitPreset {
  id: string;
  label: string;
  description: string;
  split: GpuSplit;
}

export const GPU_SPLIT_PRESETS: readonly GpuSplitPreset[] = [
  {
    id: "openclaw-8gpu-full",
    label: "OpenClaw-RL default — 8 GPUs, full fine-tune",
    description: "The reference scripts' split: actor 4, rollout 2 (TP 2), PRM 2 (TP 2) on one 8-GPU node.",
    split: GpuSplitSchema.parse({}),
  },
  {
    id: "openclaw-4gpu-lora",
    label: "OpenClaw-RL LoRA — 4 GPUs",
    description: "The LoRA scripts' split 2/1/1 on one 4-GPU node, TP 1 for both engine kinds.",
    split: GpuSplitSchema.parse({
      gpusPerNode: 4,
      actorGpus: 2,
      rolloutGpus: 1,
      prmGpus: 1,
      rolloutGpusPerEngine: 1,
      prmGpusPerEngine: 1,
    }),
  },
  {
    id: "2-nodes-x-8",
    label: "2 nodes × 8 GPUs",
    description: "Actor on all of node 0; node 1 holds 2 rollout engines (TP 2) and 2 PRM engines (TP 2).",
    split: GpuSplitSchema.parse({ nodes: 2, actorGpus: 8, rolloutGpus: 4, prmGpus: 4 }),
  },
];

/** Plans a split; never throws. Accepts raw input (defaults applied, bad values reported per field). */
export function planGpuSplit(input: GpuSplitInput, ctx?: GpuPlanContext): GpuPlanResult;
export function planGpuSplit(input: unknown, ctx?: GpuPlanContext): GpuPlanResult;
export function planGpuSplit(input: unknown, ctx: GpuPlanContext = {}): GpuPlanResult {
  const raw = input === undefined ? {} : input;
  const parsed = GpuSplitSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, errors: schemaIssues(parsed.error.issues, raw) };
  const split = parsed.data;
  const errors = validate(split, true);
  if (errors.length === 0) errors.push(...parallelismIssues(split, ctx));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, split, ...place(split) };
}

/** Plans a split or throws {@link GpuSplitError} carrying the per-field issues. */
export function assertGpuPlan(input: unknown, ctx: GpuPlanContext = {}): GpuPlan {
  const result = planGpuSplit(input, ctx);
  if (!result.ok) throw new GpuSplitError(result.errors);
  return result;
}

function schemaIssues(issues: readonly z.core.$ZodIssue[], input: unknown): GpuSplitIssue[] {
  const seen = new Set<string>();
  const out: GpuSplitIssue[] = [];
  for (const issue of issues) {
    const key = issue.path[0];
    if (typeof key === "string" && key in LABEL) {
      const field = key as GpuSplitField;
      if (seen.has(field)) continue;
      seen.add(field);
      const got = (input as Record<string, unknown>)[field];
      const message =
        field === "colocate"
          ? `colocate must be true or false (got ${JSON.stringify(got)})`
          : `${LABEL[field]} must be a whole number from ${field === "prmGpus" || field === "prmTeacherGpus" ? 0 : 1} to ${maxFor(field)} (got ${JSON.stringify(got)})`;
      out.push({ field, message });
    } else {
      out.push({ field: "split", message: `the GPU split must be an object with numeric fields (${issue.message})` });
    }
  }
  return out;
}

function maxFor(field: GpuSplitField): number {
  if (field === "nodes") return MAX_NODES;
  return field === "gpusPerNode" ? MAX_GPUS_PER_NODE : MAX_GPUS;
}

/** Engine placement geometry: [start, start+size) in cluster-global GPU indices. */
interface EngineSpan {
  index: number;
  start: number;
  size: number;
}

function engineSpans(offset: number, gpus: number, size: number): EngineSpan[] {
  const spans: EngineSpan[] = [];
  for (let i = 0; i * size < gpus; i++) spans.push({ index: i, start: offset + i * size, size });
  return spans;
}

/** An engine may sit inside one node, or cover whole nodes exactly (slime's nodes_per_engine). */
function crossesNode(span: EngineSpan, gpusPerNode: number): boolean {
  if (span.size <= gpusPerNode) {
    return Math.floor(span.start / gpusPerNode) !== Math.floor((span.start + span.size - 1) / gpusPerNode);
  }
  return span.start % gpusPerNode !== 0 || span.size % gpusPerNode !== 0;
}

function offsets(split: GpuSplit): { rollout: number; prm: number; teacher: number; used: number } {
  const rollout = split.colocate ? 0 : split.actorGpus;
  const prm = split.colocate ? split.actorGpus : rollout + split.rolloutGpus;
  const teacher = prm + split.prmGpus;
  return { rollout, prm, teacher, used: teacher + split.prmTeacherGpus };
}

/** slime's engine address rule (see validate): a pool that spans nodes must begin on a node boundary. */
function poolMisaddressed(start: number, gpus: number, gpusPerNode: number): boolean {
  if (gpus === 0) return false;
  const first = Math.floor(start / gpusPerNode);
  const last = Math.floor((start + gpus - 1) / gpusPerNode);
  return last > first && start % gpusPerNode !== 0;
}

/**
 * SGLang's tensor-parallel rule for attention (the attention classes of sgl-project/sglang
 * python/sglang/srt/models/qwen2.py / qwen3.py): heads % tp == 0, and KV heads are partitioned when
 * kv >= tp (kv % tp == 0) or replicated when kv < tp (tp % kv == 0).
 */
export function sglangTpFits(model: ModelShape, tp: number): boolean {
  if (model.attentionHeads % tp !== 0) return false;
  return model.kvHeads >= tp ? model.kvHeads % tp === 0 : tp % model.kvHeads === 0;
}

function divisorsUpTo(n: number, limit: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= Math.min(n, limit); d++) if (n % d === 0) out.push(d);
  return out;
}

/** Tensor-parallel rules that need the model: SGLang engines (rollout, PRM) and the Megatron actor. */
function parallelismIssues(split: GpuSplit, ctx: GpuPlanContext): GpuSplitIssue[] {
  const errors: GpuSplitIssue[] = [];
  const engines: Array<{ field: GpuSplitField; name: string; tp: number; model?: ModelShape; used: boolean }> = [
    { field: "rolloutGpusPerEngine", name: "rollout", tp: split.rolloutGpusPerEngine, model: ctx.model, used: true },
    {
      field: "prmGpusPerEngine",
      name: "PRM",
      tp: split.prmGpusPerEngine,
      model: ctx.prmModel ?? ctx.model,
      used: split.prmGpus > 0,
    },
  ];
  for (const { field, name, tp, model, used } of engines) {
    if (!used || !model || sglangTpFits(model, tp)) continue;
    const fits = divisorsUpTo(split.gpusPerNode, split.gpusPerNode).filter((t) => sglangTpFits(model, t));
    errors.push({
      field,
      message:
        `${LABEL[field]} (${tp}) is the SGLang tensor-parallel size of each ${name} engine, but ${model.name} has ` +
        `${model.attentionHeads} attention heads and ${model.kvHeads} KV heads: SGLang needs the heads divisible by it and ` +
        `the KV heads divisible by it (or it a multiple of them): use ${orList(fits)}`,
    });
  }
  const tp = ctx.actorTp;
  if (tp !== undefined) {
    const actorNodes = Math.ceil(split.actorGpus / split.gpusPerNode);
    const perNode = split.actorGpus / actorNodes;
    // Megatron: world size divisible by TP (megatron/training/arguments.py validate_args), and TP kept inside
    // one node (a TP group spanning nodes runs its all-reduces over the network).
    if (split.actorGpus % tp !== 0 || perNode % tp !== 0) {
      errors.push({
        field: "actorGpus",
        message: `the actor's tensor-parallel size (${tp}) must divide its GPUs per node (${perNode} of ${split.actorGpus}): use TP ${orList(divisorsUpTo(perNode, 8))} or change actor GPUs`,
      });
    } else if (ctx.model && (ctx.model.attentionHeads % tp !== 0 || ctx.model.kvHeads % tp !== 0)) {
      errors.push({
        field: "actorGpus",
        message: `the actor's tensor-parallel size (${tp}) must divide ${ctx.model.name}'s ${ctx.model.attentionHeads} attention heads and ${ctx.model.kvHeads} query groups (Megatron)`,
      });
    }
  }
  return errors;
}

function orList(values: number[]): string {
  const uniq = [...new Set(values)];
  return uniq.length === 1 ? `${uniq[0]}` : `${uniq.slice(0, -1).join(", ")} or ${uniq[uniq.length - 1]}`;
}

/** Nearest positive multiples of `step` around `value` (below and above). */
function nearestMultiples(value: number, step: number): number[] {
  const below = Math.floor(value / step) * step;
  const above = Math.ceil(value / step) * step;
  return [below, above].filter((v) => v > 0);
}

function validate(split: GpuSplit, suggest: boolean): GpuSplitIssue[] {
  const errors: GpuSplitIssue[] = [];
  const gpn = split.gpusPerNode;
  const total = split.nodes * gpn;
  const nodeWord = (n: number) => `${n} node${n === 1 ? "" : "s"}`;

  if (split.colocate && split.prmGpus > 0) {
    errors.push({
      field: "prmGpus",
      message:
        `PRM GPUs (${split.prmGpus}) cannot be used with colocate: OpenClaw-RL's slime fork only reserves the actor's ` +
        `GPUs when colocated, so PRM engines would get none. Set PRM GPUs to 0 (external PRM) or turn colocate off`,
    });
  }
  if (split.colocate && split.prmTeacherGpus > 0) {
    errors.push({
      field: "prmTeacherGpus",
      message: `PRM teacher GPUs (${split.prmTeacherGpus}) cannot be used with colocate: set them to 0 or turn colocate off`,
    });
  }
  if (split.prmTeacherGpus > 0 && split.prmGpus === 0) {
    errors.push({
      field: "prmTeacherGpus",
      message: `a separate PRM teacher (${split.prmTeacherGpus} GPUs) needs local PRM engines: set PRM GPUs above 0, or the teacher GPUs to 0`,
    });
  }
  if (split.prmTeacherGpus > gpn && split.prmTeacherGpus % gpn !== 0) {
    errors.push({
      field: "prmTeacherGpus",
      message: `PRM teacher GPUs (${split.prmTeacherGpus}) span more than one node of ${gpn} GPUs but do not fill them evenly: use ${orList(nearestMultiples(split.prmTeacherGpus, gpn))}`,
    });
  }
  if (split.colocate && split.rolloutGpus !== split.actorGpus) {
    errors.push({
      field: "rolloutGpus",
      message:
        `with colocate, rollout engines run on the actor's GPUs, so rollout GPUs (${split.rolloutGpus}) must equal ` +
        `actor GPUs (${split.actorGpus}): use ${split.actorGpus}`,
    });
  }

  // The actor is actor-num-nodes × actor-num-gpus-per-node placed on the first GPUs: either part of one node
  // or whole nodes, otherwise its ranks would not divide evenly over the nodes they land on.
  if (split.actorGpus > gpn && split.actorGpus % gpn !== 0) {
    const nodesUsed = Math.ceil(split.actorGpus / gpn);
    errors.push({
      field: "actorGpus",
      message:
        `actor GPUs (${split.actorGpus}) span ${nodeWord(nodesUsed)} of ${gpn} GPUs but do not fill them evenly ` +
        `(slime trains on actor-num-nodes × actor-num-gpus-per-node whole nodes): use ${orList(nearestMultiples(split.actorGpus, gpn))}`,
    });
  }

  const engineRules: Array<{ pool: "rollout" | "prm"; gpus: number; size: number }> = [
    { pool: "rollout", gpus: split.rolloutGpus, size: split.rolloutGpusPerEngine },
  ];
  if (split.prmGpus > 0) engineRules.push({ pool: "prm", gpus: split.prmGpus, size: split.prmGpusPerEngine });
  let enginesWellFormed = true;
  for (const { pool, gpus, size } of engineRules) {
    const poolField: GpuSplitField = pool === "rollout" ? "rolloutGpus" : "prmGpus";
    const sizeField: GpuSplitField = pool === "rollout" ? "rolloutGpusPerEngine" : "prmGpusPerEngine";
    const name = pool === "rollout" ? "rollout" : "PRM";
    if (size > gpn && size % gpn !== 0) {
      enginesWellFormed = false;
      errors.push({
        field: sizeField,
        message:
          `${LABEL[sizeField]} (${size}) is more than one node (${gpn} GPUs), so an engine must cover whole nodes: ` +
          `use ${orList(nearestMultiples(size, gpn))}`,
      });
    } else if (gpus % size !== 0) {
      enginesWellFormed = false;
      errors.push({
        field: poolField,
        message: `${name} GPUs (${gpus}) must be a multiple of ${LABEL[sizeField]} (${size}): use ${orList(nearestMultiples(gpus, size))}`,
      });
    }
  }

  const { rollout: rolloutStart, prm: prmStart, teacher: teacherStart, used } = offsets(split);
  if (used > total) {
    const tail = `${split.prmGpus > 0 ? ` + PRM (${split.prmGpus})` : ""}${split.prmTeacherGpus > 0 ? ` + PRM teacher (${split.prmTeacherGpus})` : ""}`;
    const parts = split.colocate
      ? `actor (${split.actorGpus}, shared with rollout)${tail}`
      : `actor (${split.actorGpus}) + rollout (${split.rolloutGpus})${tail}`;
    const neededNodes = Math.ceil(used / gpn);
    const fix =
      neededNodes <= MAX_NODES
        ? `use ${nodeWord(neededNodes)}, or take ${used - total} GPU${used - total === 1 ? "" : "s"} away from the roles`
        : `take ${used - total} GPUs away from the roles`;
    errors.push({
      field: "nodes",
      message: `${parts} need ${used} GPUs but ${nodeWord(split.nodes)} × ${gpn} GPUs have ${total}: ${fix}`,
    });
    return errors;
  }

  if (!enginesWellFormed) return errors;
  for (const { pool, start, gpus, size } of [
    { pool: "rollout" as const, start: rolloutStart, gpus: split.rolloutGpus, size: split.rolloutGpusPerEngine },
    { pool: "prm" as const, start: prmStart, gpus: split.prmGpus, size: split.prmGpusPerEngine },
  ]) {
    if (gpus === 0) continue;
    const bad = engineSpans(start, gpus, size).find((span) => crossesNode(span, gpn));
    if (!bad) continue;
    const sizeField: GpuSplitField = pool === "rollout" ? "rolloutGpusPerEngine" : "prmGpusPerEngine";
    const name = pool === "rollout" ? "rollout" : "PRM";
    const firstNode = Math.floor(bad.start / gpn);
    const lastNode = Math.floor((bad.start + bad.size - 1) / gpn);
    let message =
      `${name} engine ${bad.index} would straddle nodes ${firstNode}–${lastNode} (cluster GPUs ${bad.start}–${bad.start + bad.size - 1}) ` +
      `because the ${name} pool starts at GPU ${start}, after the ${pool === "rollout" ? "actor" : "rollout engines"}; ` +
      `an engine must sit inside one node or cover whole nodes`;
    if (suggest) {
      const fixes = straddleFixes(split, pool);
      if (fixes.length > 0) message += `: ${fixes.join(", or ")}`;
    }
    errors.push({ field: sizeField, message });
  }
  if (errors.length > 0) return errors;

  // slime hands every engine of a pool the host IP of the pool's first engine (the engine group is addressed
  // from its first GPU), so a pool that spans nodes but does not begin on a node boundary gets engines on the
  // second node with the first node's address. The same holds for the PRM teacher's Megatron group.
  for (const { field, name, start, gpus } of [
    { field: "rolloutGpus" as const, name: "rollout", start: rolloutStart, gpus: split.rolloutGpus },
    { field: "prmGpus" as const, name: "PRM", start: prmStart, gpus: split.prmGpus },
    { field: "prmTeacherGpus" as const, name: "PRM teacher", start: teacherStart, gpus: split.prmTeacherGpus },
  ]) {
    if (!poolMisaddressed(start, gpus, gpn)) continue;
    const firstNode = Math.floor(start / gpn);
    errors.push({
      field,
      message:
        `the ${name} pool (cluster GPUs ${start}–${start + gpus - 1}) spans nodes ${firstNode}–${Math.floor((start + gpus - 1) / gpn)} but starts ` +
        `mid-node (GPU ${start % gpn} of node ${firstNode}): slime gives every engine of a pool the first engine's host address, so the ` +
        `engines on node ${firstNode + 1} would be unreachable. Make the GPUs before it fill whole nodes, or keep the pool inside one node`,
    });
  }
  return errors;
}

/** Concrete alternatives that make the whole split valid when only one field changes. */
function straddleFixes(split: GpuSplit, pool: "rollout" | "prm"): string[] {
  const fixes: string[] = [];
  const sizeField: GpuSplitField = pool === "rollout" ? "rolloutGpusPerEngine" : "prmGpusPerEngine";
  const poolGpus = pool === "rollout" ? split.rolloutGpus : split.prmGpus;
  const sizes: number[] = [];
  for (let size = poolGpus; size >= 1 && sizes.length < 2; size--) {
    if (poolGpus % size === 0 && validate({ ...split, [sizeField]: size }, false).length === 0) sizes.push(size);
  }
  if (sizes.length > 0) fixes.push(`use ${LABEL[sizeField]} ${orList(sizes)}`);

  const total = split.nodes * split.gpusPerNode;
  const actors: number[] = [];
  // Valid actor sizes, if any, lie within a couple of nodes of the request; bound the search accordingly.
  for (let delta = 1; delta <= 2 * split.gpusPerNode && actors.length < 2; delta++) {
    for (const candidate of [split.actorGpus - delta, split.actorGpus + delta]) {
      if (candidate < 1 || candidate > total || actors.length >= 2) continue;
      const rolloutGpus = split.colocate ? candidate : split.rolloutGpus;
      if (validate({ ...split, actorGpus: candidate, rolloutGpus }, false).length === 0) actors.push(candidate);
    }
  }
  if (actors.length > 0) fixes.push(`set actor GPUs to ${orList(actors.sort((a, b) => a - b))}`);
  return fixes;
}

function place(split: GpuSplit): { nodes: NodePlan[]; summary: GpuPlanSummary } {
  const gpn = split.gpusPerNode;
  const total = split.nodes * gpn;
  const flat: GpuAssignment[] = Array.from({ length: total }, (_, g) => ({ gpu: g % gpn, role: "idle" }));
  for (let g = 0; g < split.actorGpus; g++) flat[g] = { gpu: g % gpn, role: "actor" };

  const { rollout: rolloutStart, prm: prmStart, teacher: teacherStart, used } = offsets(split);
  for (const span of engineSpans(rolloutStart, split.rolloutGpus, split.rolloutGpusPerEngine)) {
    for (let g = span.start; g < span.start + span.size; g++) {
      flat[g] = split.colocate
        ? { gpu: g % gpn, role: "actor", sharedWith: { role: "rollout", engine: span.index } }
        : { gpu: g % gpn, role: "rollout", engine: span.index };
    }
  }
  for (const span of engineSpans(prmStart, split.prmGpus, split.prmGpusPerEngine)) {
    for (let g = span.start; g < span.start + span.size; g++)
      flat[g] = { gpu: g % gpn, role: "prm", engine: span.index };
  }
  for (let g = teacherStart; g < teacherStart + split.prmTeacherGpus; g++) flat[g] = { gpu: g % gpn, role: "teacher" };

  const nodes: NodePlan[] = Array.from({ length: split.nodes }, (_, node) => ({
    node,
    gpus: flat.slice(node * gpn, (node + 1) * gpn),
  }));

  const actorNodes = Math.ceil(split.actorGpus / gpn);
  const actor = { gpus: split.actorGpus, nodes: actorNodes, gpusPerNode: split.actorGpus / actorNodes };
  const rollout = {
    gpus: split.rolloutGpus,
    engines: split.rolloutGpus / split.rolloutGpusPerEngine,
    gpusPerEngine: split.rolloutGpusPerEngine,
  };
  const prm = {
    gpus: split.prmGpus,
    engines: split.prmGpus === 0 ? 0 : split.prmGpus / split.prmGpusPerEngine,
    gpusPerEngine: split.prmGpusPerEngine,
    external: split.prmGpus === 0,
  };
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const text = [
    `${total} GPUs (${plural(split.nodes, "node")} × ${gpn})`,
    `actor ${actor.gpus} (${plural(actor.nodes, "node")} × ${actor.gpusPerNode})`,
    `rollout ${rollout.gpus} (${plural(rollout.engines, "engine")} × ${rollout.gpusPerEngine}${split.colocate ? ", colocated with actor" : ""})`,
    prm.external ? "PRM external" : `PRM ${prm.gpus} (${plural(prm.engines, "engine")} × ${prm.gpusPerEngine})`,
    ...(split.prmTeacherGpus > 0 ? [`PRM teacher ${split.prmTeacherGpus}`] : []),
    `idle ${total - used}`,
  ].join(", ");
  return {
    nodes,
    summary: {
      totalGpus: total,
      usedGpus: used,
      idleGpus: total - used,
      colocate: split.colocate,
      actor,
      rollout,
      prm,
      teacher: { gpus: split.prmTeacherGpus },
      text,
    },
  };
}

export interface RoleGroup {
  role: "actor" | "rollout" | "prm" | "teacher";
  /** Engine index for rollout/prm. */
  engine?: number;
  /** "actor", "rollout-0", "prm-1": stable names for processes and log prefixes. */
  label: string;
  devices: Array<{ node: number; gpu: number }>;
}

/** The processes a plan implies, in slime's start order: the actor, each rollout engine, each PRM engine, the PRM teacher. */
export function planRoleGroups(plan: GpuPlan): RoleGroup[] {
  const actor: RoleGroup = { role: "actor", label: "actor", devices: [] };
  const teacher: RoleGroup = { role: "teacher", label: "teacher", devices: [] };
  const rollout = new Map<number, RoleGroup>();
  const prm = new Map<number, RoleGroup>();
  const engineGroup = (map: Map<number, RoleGroup>, role: "rollout" | "prm", engine: number) => {
    let group = map.get(engine);
    if (!group) map.set(engine, (group = { role, engine, label: `${role}-${engine}`, devices: [] }));
    return group;
  };
  for (const { node, gpus } of plan.nodes) {
    for (const a of gpus) {
      const device = { node, gpu: a.gpu };
      if (a.role === "actor") actor.devices.push(device);
      if (a.sharedWith) engineGroup(rollout, "rollout", a.sharedWith.engine).devices.push(device);
      if (a.role === "rollout" && a.engine !== undefined)
        engineGroup(rollout, "rollout", a.engine).devices.push(device);
      if (a.role === "prm" && a.engine !== undefined) engineGroup(prm, "prm", a.engine).devices.push(device);
      if (a.role === "teacher") teacher.devices.push(device);
    }
  }
  const byEngine = (m: Map<number, RoleGroup>) => [...m.values()].sort((x, y) => (x.engine ?? 0) - (y.engine ?? 0));
  return [actor, ...byEngine(rollout), ...byEngine(prm), ...(teacher.devices.length ? [teacher] : [])];
}
