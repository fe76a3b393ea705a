// The GPU split's shape (zod, with defaults), the plan's types, and the messages for input the schema rejects.
// Pure (zod only): the browser's GPU grid imports it through plan.ts.
import { z } from "zod";

export const MAX_NODES = 1024;
export const MAX_GPUS_PER_NODE = 64;

export const MAX_GPUS = MAX_NODES * MAX_GPUS_PER_NODE;
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

export const LABEL: Record<GpuSplitField, string> = {
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

/** The schema's issues as one readable message per field (the form shows them beside the field). */
export function schemaIssues(issues: readonly z.core.$ZodIssue[], input: unknown): GpuSplitIssue[] {
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
