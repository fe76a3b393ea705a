// The validation rules of a GPU split: the layout rules slime's placement implies (rules without a model) and
// the tensor-parallel rules of SGLang and Megatron (given the model). Messages say how to fix what they find.
import { crossesNode, engineSpans, offsets, poolMisaddressed } from "./placement";
import {
  LABEL,
  MAX_NODES,
  type GpuPlanContext,
  type GpuSplit,
  type GpuSplitField,
  type GpuSplitIssue,
  type ModelShape,
} from "./schema";

/** An issue of the layout; `straddles` marks an engine that would cross nodes (fixes.ts suggests changes). */
export type RuleIssue = GpuSplitIssue & { straddles?: "rollout" | "prm" };

/**
 * SGLang's tensor-parallel rule for attention (the attention classes of sgl-project/sglang
 * python/sglang/srt/models/qwen2.py / qwen3.py): heads % tp == 0, and KV heads are partitioned when
 * kv >= tp (kv % tp == 0) or replicated when kv < tp (tp % kv == 0).
 */
export function sglangTpFits(model: ModelShape, tp: number): boolean {
  if (model.attentionHeads % tp !== 0) return false;
  return model.kvHeads >= tp ? model.kvHeads % tp === 0 : tp % model.kvHeads === 0;
}

export function divisorsUpTo(n: number, limit: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= Math.min(n, limit); d++) if (n % d === 0) out.push(d);
  return out;
}

/** Tensor-parallel rules that need the model: SGLang engines (rollout, PRM) and the Megatron actor. */
export function parallelismIssues(split: GpuSplit, ctx: GpuPlanContext): GpuSplitIssue[] {
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
  // The fork's PRM teacher runs with TP = its GPU count (megatron_utils/actor.py: tensor_model_parallel_size =
  // prm_teacher_num_gpus), so Megatron's head rule applies to it.
  const teacherModel = ctx.prmModel ?? ctx.model;
  const teacherTp = split.prmTeacherGpus;
  if (
    teacherTp > 0 &&
    teacherModel &&
    (teacherModel.attentionHeads % teacherTp !== 0 || teacherModel.kvHeads % teacherTp !== 0)
  ) {
    const fits = divisorsUpTo(split.gpusPerNode, split.gpusPerNode).filter(
      (t) => teacherModel.attentionHeads % t === 0 && teacherModel.kvHeads % t === 0,
    );
    errors.push({
      field: "prmTeacherGpus",
      message:
        `${LABEL.prmTeacherGpus} (${teacherTp}) are the PRM teacher's tensor-parallel size, but ${teacherModel.name} has ` +
        `${teacherModel.attentionHeads} attention heads and ${teacherModel.kvHeads} query groups (Megatron needs both divisible by it): use ${orList(fits)}`,
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

export function orList(values: number[]): string {
  const uniq = [...new Set(values)];
  return uniq.length === 1 ? `${uniq[0]}` : `${uniq.slice(0, -1).join(", ")} or ${uniq[uniq.length - 1]}`;
}

/** Nearest positive multiples of `step` around `value` (below and above). */
export function nearestMultiples(value: number, step: number): number[] {
  const below = Math.floor(value / step) * step;
  const above = Math.ceil(value / step) * step;
  return [below, above].filter((v) => v > 0);
}

/**
 * Every rule of the split's layout that needs no model; each issue names its field. An engine that would
 * straddle nodes is marked with its pool, so fixes.ts can suggest one-field changes that make the whole split
 * valid (it re-runs these rules, which is why they suggest nothing themselves).
 */
export function validate(split: GpuSplit): RuleIssue[] {
  const errors: RuleIssue[] = [];
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
    const message =
      `${name} engine ${bad.index} would straddle nodes ${firstNode}–${lastNode} (cluster GPUs ${bad.start}–${bad.start + bad.size - 1}) ` +
      `because the ${name} pool starts at GPU ${start}, after the ${pool === "rollout" ? "actor" : "rollout engines"}; ` +
      `an engine must sit inside one node or cover whole nodes`;
    errors.push({ field: sizeField, message, straddles: pool });
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
