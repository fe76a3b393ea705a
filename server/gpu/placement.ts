// Where each role lands: slime's one placement group, bundles sorted by node then GPU id and handed out
// contiguously actor → rollout → PRM → PRM teacher (slime/ray/placement_group.py). The geometry helpers are
// shared with the rules (rules.ts), which check the same layout before it is placed.
import type { GpuAssignment, GpuPlan, GpuPlanSummary, GpuSplit, NodePlan } from "./schema";

/** Engine placement geometry: [start, start+size) in cluster-global GPU indices. */
export interface EngineSpan {
  index: number;
  start: number;
  size: number;
}

export function engineSpans(offset: number, gpus: number, size: number): EngineSpan[] {
  const spans: EngineSpan[] = [];
  for (let i = 0; i * size < gpus; i++) spans.push({ index: i, start: offset + i * size, size });
  return spans;
}

/** An engine may sit inside one node, or cover whole nodes exactly (slime's nodes_per_engine). */
export function crossesNode(span: EngineSpan, gpusPerNode: number): boolean {
  if (span.size <= gpusPerNode) {
    return Math.floor(span.start / gpusPerNode) !== Math.floor((span.start + span.size - 1) / gpusPerNode);
  }
  return span.start % gpusPerNode !== 0 || span.size % gpusPerNode !== 0;
}

export function offsets(split: GpuSplit): { rollout: number; prm: number; teacher: number; used: number } {
  const rollout = split.colocate ? 0 : split.actorGpus;
  const prm = split.colocate ? split.actorGpus : rollout + split.rolloutGpus;
  const teacher = prm + split.prmGpus;
  return { rollout, prm, teacher, used: teacher + split.prmTeacherGpus };
}

/** slime's engine address rule (see validate): a pool that spans nodes must begin on a node boundary. */
export function poolMisaddressed(start: number, gpus: number, gpusPerNode: number): boolean {
  if (gpus === 0) return false;
  const first = Math.floor(start / gpusPerNode);
  const last = Math.floor((start + gpus - 1) / gpusPerNode);
  return last > first && start % gpusPerNode !== 0;
}

/** Where every GPU goes for a valid split (the caller has validated it), and the summary line. */
export function place(split: GpuSplit): { nodes: NodePlan[]; summary: GpuPlanSummary } {
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
