import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assertGpuPlan,
  GPU_SPLIT_PRESETS,
  GpuSplitError,
  GpuSplitSchema,
  planGpuSplit,
  planRoleGroups,
  type GpuAssignment,
  type GpuPlan,
  type GpuSplit,
  type GpuSplitInput,
} from "../../../server/gpu/plan";

const A = (gpu: number): GpuAssignment => ({ gpu, role: "actor" });
const R = (gpu: number, engine: number): GpuAssignment => ({ gpu, role: "rollout", engine });
const P = (gpu: number, engine: number): GpuAssignment => ({ gpu, role: "prm", engine });
const I = (gpu: number): GpuAssignment => ({ gpu, role: "idle" });

function preset(id: string): GpuSplit {
  const p = GPU_SPLIT_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`no preset ${id}`);
  return p.split;
}

function ok(input: GpuSplitInput): GpuPlan {
  const r = planGpuSplit(input);
  if (!r.ok) throw new Error(`expected a valid plan, got ${JSON.stringify(r.errors)}`);
  return r;
}

function errorsOf(input: unknown) {
  const r = planGpuSplit(input);
  if (r.ok) throw new Error(`expected errors for ${JSON.stringify(input)}`);
  return r.errors;
}

describe("presets", () => {
  it("OpenClaw-RL 8-GPU default: actor 0-3, rollout engine on 4-5, PRM engine on 6-7", () => {
    const plan = ok(preset("openclaw-8gpu-full"));
    expect(plan.nodes).toEqual([{ node: 0, gpus: [A(0), A(1), A(2), A(3), R(4, 0), R(5, 0), P(6, 0), P(7, 0)] }]);
    expect(plan.summary).toMatchObject({
      totalGpus: 8,
      usedGpus: 8,
      idleGpus: 0,
      actor: { gpus: 4, nodes: 1, gpusPerNode: 4 },
      rollout: { gpus: 2, engines: 1, gpusPerEngine: 2 },
      prm: { gpus: 2, engines: 1, gpusPerEngine: 2, external: false },
    });
    expect(plan.summary.text).toBe(
      "8 GPUs (1 node × 8), actor 4 (1 node × 4), rollout 2 (1 engine × 2), PRM 2 (1 engine × 2), idle 0",
    );
  });

  it("LoRA 4-GPU 2/1/1 with TP 1 engines", () => {
    const plan = ok(preset("openclaw-4gpu-lora"));
    expect(plan.nodes).toEqual([{ node: 0, gpus: [A(0), A(1), R(2, 0), P(3, 0)] }]);
    expect(plan.summary.actor).toEqual({ gpus: 2, nodes: 1, gpusPerNode: 2 });
  });

  it("2 nodes × 8: actor fills node 0, node 1 holds two rollout and two PRM engines", () => {
    const plan = ok(preset("2-nodes-x-8"));
    expect(plan.nodes).toEqual([
      { node: 0, gpus: [0, 1, 2, 3, 4, 5, 6, 7].map(A) },
      { node: 1, gpus: [R(0, 0), R(1, 0), R(2, 1), R(3, 1), P(4, 0), P(5, 0), P(6, 1), P(7, 1)] },
    ]);
    expect(planRoleGroups(plan).map((g) => [g.label, g.devices.map((d) => `${d.node}:${d.gpu}`).join(" ")])).toEqual([
      ["actor", "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7"],
      ["rollout-0", "1:0 1:1"],
      ["rollout-1", "1:2 1:3"],
      ["prm-0", "1:4 1:5"],
      ["prm-1", "1:6 1:7"],
    ]);
  });

  it("every preset is valid and the default split is the 8-GPU preset", () => {
    for (const p of GPU_SPLIT_PRESETS) expect(planGpuSplit(p.split).ok).toBe(true);
    expect(GpuSplitSchema.parse({})).toEqual(preset("openclaw-8gpu-full"));
  });
});

describe("other valid shapes", () => {
  it("multi-node actor and an engine spanning two whole nodes", () => {
    const plan = ok({ nodes: 4, actorGpus: 16, rolloutGpus: 16, rolloutGpusPerEngine: 16, prmGpus: 0 });
    expect(plan.summary.actor).toEqual({ gpus: 16, nodes: 2, gpusPerNode: 8 });
    expect(plan.nodes[2].gpus.every((g) => g.role === "rollout" && g.engine === 0)).toBe(true);
    expect(plan.nodes[3].gpus.every((g) => g.role === "rollout" && g.engine === 0)).toBe(true);
    expect(plan.summary.prm.external).toBe(true);
  });

  it("colocated rollout shares the actor's GPUs; the rest stays idle", () => {
    const plan = ok({ colocate: true, actorGpus: 4, rolloutGpus: 4, prmGpus: 0 });
    expect(plan.nodes[0].gpus).toEqual([
      { gpu: 0, role: "actor", sharedWith: { role: "rollout", engine: 0 } },
      { gpu: 1, role: "actor", sharedWith: { role: "rollout", engine: 0 } },
      { gpu: 2, role: "actor", sharedWith: { role: "rollout", engine: 1 } },
      { gpu: 3, role: "actor", sharedWith: { role: "rollout", engine: 1 } },
      I(4),
      I(5),
      I(6),
      I(7),
    ]);
    expect(planRoleGroups(plan).map((g) => g.label)).toEqual(["actor", "rollout-0", "rollout-1"]);
  });

  it("leftover GPUs are idle", () => {
    const plan = ok({ actorGpus: 2, rolloutGpus: 2, prmGpus: 0 });
    expect(plan.nodes[0].gpus.slice(4)).toEqual([I(4), I(5), I(6), I(7)]);
    expect(plan.summary.idleGpus).toBe(4);
  });
});

describe("errors say what to change", () => {
  it("rollout pool not a multiple of the engine size", () => {
    expect(errorsOf({ rolloutGpus: 3, prmGpus: 0 })).toEqual([
      {
        field: "rolloutGpus",
        message: "rollout GPUs (3) must be a multiple of GPUs per rollout engine (2): use 2 or 4",
      },
    ]);
  });

  it("PRM pool not a multiple of the engine size", () => {
    expect(errorsOf({ rolloutGpus: 1, rolloutGpusPerEngine: 1, prmGpus: 3 })).toEqual([
      { field: "prmGpus", message: "PRM GPUs (3) must be a multiple of GPUs per PRM engine (2): use 2 or 4" },
    ]);
  });

  it("more GPUs requested than the cluster has", () => {
    expect(errorsOf({ rolloutGpus: 4 })).toEqual([
      {
        field: "nodes",
        message:
          "actor (4) + rollout (4) + PRM (2) need 10 GPUs but 1 node × 8 GPUs have 8: use 2 nodes, or take 2 GPUs away from the roles",
      },
    ]);
  });

  it("actor spread unevenly over nodes", () => {
    expect(errorsOf({ nodes: 2, actorGpus: 12 })).toEqual([
      {
        field: "actorGpus",
        message:
          "actor GPUs (12) span 2 nodes of 8 GPUs but do not fill them evenly (slime trains on actor-num-nodes × actor-num-gpus-per-node whole nodes): use 8 or 16",
      },
    ]);
  });

  it("engine bigger than a node but not whole nodes", () => {
    expect(errorsOf({ nodes: 4, rolloutGpus: 12, rolloutGpusPerEngine: 12 })).toEqual([
      {
        field: "rolloutGpusPerEngine",
        message:
          "GPUs per rollout engine (12) is more than one node (8 GPUs), so an engine must cover whole nodes: use 8 or 16",
      },
    ]);
  });

  it("engine straddling a node boundary, with fixes that each make the split valid", () => {
    expect(errorsOf({ nodes: 2, actorGpus: 4, rolloutGpus: 8, rolloutGpusPerEngine: 8, prmGpus: 0 })).toEqual([
      {
        field: "rolloutGpusPerEngine",
        message:
          "rollout engine 0 would straddle nodes 0–1 (cluster GPUs 4–11) because the rollout pool starts at GPU 4, after the actor; " +
          "an engine must sit inside one node or cover whole nodes: set actor GPUs to 8",
      },
    ]);
    const base = { nodes: 2, actorGpus: 4, rolloutGpus: 8, prmGpus: 0 };
    expect(planGpuSplit({ ...base, rolloutGpusPerEngine: 8, actorGpus: 8 }).ok).toBe(true);
    // Smaller engines no longer straddle, but the pool still starts mid-node and spans two (engine-address rule).
    for (const size of [4, 2]) expect(planGpuSplit({ ...base, rolloutGpusPerEngine: size }).ok).toBe(false);
  });

  it("PRM engine straddling after the rollout pool", () => {
    const [err] = errorsOf({
      nodes: 3,
      actorGpus: 8,
      rolloutGpus: 6,
      rolloutGpusPerEngine: 2,
      prmGpus: 4,
      prmGpusPerEngine: 4,
    });
    expect(err.field).toBe("prmGpusPerEngine");
    expect(err.message).toMatch(/^PRM engine 0 would straddle nodes 1–2 \(cluster GPUs 14–17\)/);
    // Engines of 2 or 1 would fit, but the PRM pool (GPUs 14-17) would still start mid-node across nodes 1-2.
    expect(err.message).toContain("set actor GPUs to 2");
  });

  it("colocate: PRM GPUs and a rollout pool different from the actor's", () => {
    expect(errorsOf({ colocate: true })).toEqual([
      {
        field: "prmGpus",
        message:
          "PRM GPUs (2) cannot be used with colocate: OpenClaw-RL's slime fork only reserves the actor's GPUs when colocated, " +
          "so PRM engines would get none. Set PRM GPUs to 0 (external PRM) or turn colocate off",
      },
      {
        field: "rolloutGpus",
        message:
          "with colocate, rollout engines run on the actor's GPUs, so rollout GPUs (2) must equal actor GPUs (4): use 4",
      },
    ]);
  });

  it("malformed values name their field", () => {
    expect(errorsOf({ nodes: 0, actorGpus: 2.5, colocate: "yes" })).toEqual([
      { field: "nodes", message: "nodes must be a whole number from 1 to 1024 (got 0)" },
      { field: "actorGpus", message: "actor GPUs must be a whole number from 1 to 65536 (got 2.5)" },
      { field: "colocate", message: 'colocate must be true or false (got "yes")' },
    ]);
    expect(errorsOf({ prmGpus: -1 })).toEqual([
      { field: "prmGpus", message: "PRM GPUs must be a whole number from 0 to 65536 (got -1)" },
    ]);
    expect(errorsOf("8 GPUs")[0].field).toBe("split");
    expect(errorsOf(null)[0].field).toBe("split");
  });

  it("assertGpuPlan throws the same issues", () => {
    expect(() => assertGpuPlan({ rolloutGpus: 3, prmGpus: 0 })).toThrowError(GpuSplitError);
    try {
      assertGpuPlan({ rolloutGpus: 3, prmGpus: 0 });
    } catch (err) {
      expect((err as GpuSplitError).errors.map((e) => e.field)).toEqual(["rolloutGpus"]);
    }
  });
});

// ---- Property tests -------------------------------------------------------------------------------------

/**
 * Independent model of what slime accepts: lay the bundles out contiguously (actor → rollout → PRM) on a flat
 * array of (node, gpu) slots and check the constraints on the resulting layout itself.
 */
function slimeAccepts(s: GpuSplit): boolean {
  const slots = s.nodes * s.gpusPerNode;
  const nodeOf = (g: number) => Math.floor(g / s.gpusPerNode);
  if (s.colocate && (s.prmGpus > 0 || s.prmTeacherGpus > 0 || s.rolloutGpus !== s.actorGpus)) return false;
  if (s.prmTeacherGpus > 0 && s.prmGpus === 0) return false;
  const rolloutStart = s.colocate ? 0 : s.actorGpus;
  const prmStart = rolloutStart + s.rolloutGpus;
  const teacherStart = prmStart + s.prmGpus;
  const used = s.colocate ? s.actorGpus : teacherStart + s.prmTeacherGpus;
  if (used > slots) return false;
  // slime addresses a pool's engines by its first engine's host: a pool spanning nodes must start on one.
  const poolOk = (start: number, gpus: number) =>
    gpus === 0 || nodeOf(start) === nodeOf(start + gpus - 1) || start % s.gpusPerNode === 0;
  if (!poolOk(rolloutStart, s.rolloutGpus) || !poolOk(prmStart, s.prmGpus) || !poolOk(teacherStart, s.prmTeacherGpus))
    return false;
  // the PRM teacher is one Megatron group: inside a node, or whole nodes
  if (s.prmTeacherGpus > s.gpusPerNode && s.prmTeacherGpus % s.gpusPerNode !== 0) return false;

  // actor ranks per node must all be equal
  const perNode = new Map<number, number>();
  for (let g = 0; g < s.actorGpus; g++) perNode.set(nodeOf(g), (perNode.get(nodeOf(g)) ?? 0) + 1);
  if (new Set(perNode.values()).size !== 1) return false;

  const enginesOk = (start: number, gpus: number, size: number) => {
    if (gpus === 0) return true;
    if (gpus % size !== 0) return false;
    for (let e = 0; e < gpus / size; e++) {
      const members = Array.from({ length: size }, (_, k) => start + e * size + k);
      const nodes = new Set(members.map(nodeOf));
      if (nodes.size === 1) continue;
      // multi-node engine: every node it touches must be entirely its own
      for (const n of nodes) if (members.filter((g) => nodeOf(g) === n).length !== s.gpusPerNode) return false;
    }
    return true;
  };
  return (
    enginesOk(rolloutStart, s.rolloutGpus, s.rolloutGpusPerEngine) && enginesOk(prmStart, s.prmGpus, s.prmGpusPerEngine)
  );
}

/** Unconstrained shapes: mostly invalid, they exercise the error paths. */
const rawSplitArb: fc.Arbitrary<GpuSplit> = fc.record({
  nodes: fc.integer({ min: 1, max: 4 }),
  gpusPerNode: fc.constantFrom(1, 2, 4, 6, 8),
  actorGpus: fc.integer({ min: 1, max: 24 }),
  rolloutGpus: fc.integer({ min: 1, max: 24 }),
  prmGpus: fc.integer({ min: 0, max: 12 }),
  rolloutGpusPerEngine: fc.constantFrom(1, 2, 3, 4, 8, 16),
  prmGpusPerEngine: fc.constantFrom(1, 2, 3, 4, 8, 16),
  prmTeacherGpus: fc.constantFrom(0, 0, 1, 2, 4, 8),
  colocate: fc.boolean(),
});

/**
 * Shapes built the way an operator would: whole engines, node-sized actors, and enough nodes for the demand
 * (sometimes one spare). Many are valid; the rest mostly fail on engine/node geometry.
 */
const engineSize = (gpn: number) =>
  fc.constantFrom(
    ...[1, 2, 3, 4, 6, 8, gpn, 2 * gpn].filter((s) => (s <= gpn ? gpn % s === 0 || s === 3 : s % gpn === 0)),
  );
const structuredSplitArb: fc.Arbitrary<GpuSplit> = fc
  .record({ gpusPerNode: fc.constantFrom(1, 2, 4, 6, 8), colocate: fc.constantFrom(false, false, false, true) })
  .chain(({ gpusPerNode, colocate }) =>
    fc.record({
      gpusPerNode: fc.constant(gpusPerNode),
      colocate: fc.constant(colocate),
      actorGpus: fc.oneof(
        fc.integer({ min: 1, max: gpusPerNode }),
        fc.integer({ min: 1, max: 3 }).map((k) => k * gpusPerNode),
      ),
      rolloutGpusPerEngine: engineSize(gpusPerNode),
      rolloutEngines: fc.integer({ min: 1, max: 3 }),
      prmGpusPerEngine: engineSize(gpusPerNode),
      prmEngines: fc.integer({ min: 0, max: 2 }),
      prmTeacherGpus: fc.constantFrom(0, 0, 1, 2, 4, gpusPerNode),
      spareNodes: fc.integer({ min: 0, max: 1 }),
    }),
  )
  .map((r) => {
    const rolloutGpusPerEngine = r.colocate && r.actorGpus % r.rolloutGpusPerEngine !== 0 ? 1 : r.rolloutGpusPerEngine;
    const rolloutGpus = r.colocate ? r.actorGpus : r.rolloutGpusPerEngine * r.rolloutEngines;
    const prmGpus = r.colocate ? 0 : r.prmGpusPerEngine * r.prmEngines;
    const prmTeacherGpus = prmGpus === 0 ? 0 : r.prmTeacherGpus;
    const used = r.colocate ? r.actorGpus : r.actorGpus + rolloutGpus + prmGpus + prmTeacherGpus;
    return {
      nodes: Math.ceil(used / r.gpusPerNode) + r.spareNodes,
      gpusPerNode: r.gpusPerNode,
      colocate: r.colocate,
      actorGpus: r.actorGpus,
      rolloutGpus,
      rolloutGpusPerEngine,
      prmGpus,
      prmGpusPerEngine: r.prmGpusPerEngine,
      prmTeacherGpus,
    };
  });

const splitArb = fc.oneof(rawSplitArb, structuredSplitArb);

describe("properties over random cluster shapes", () => {
  it("the planner accepts exactly what the independent slime model accepts", () => {
    fc.assert(
      fc.property(splitArb, (split) => {
        expect(planGpuSplit(split).ok).toBe(slimeAccepts(split));
      }),
      { numRuns: 3000 },
    );
  });

  it("valid plans: role counts match, one role per GPU unless colocated, engines whole, order actor → rollout → PRM", () => {
    fc.assert(
      fc.property(splitArb, (split) => {
        const r = planGpuSplit(split);
        if (!r.ok) return;
        const flat = r.nodes.flatMap((n) => n.gpus.map((a) => ({ ...a, node: n.node })));
        expect(flat).toHaveLength(split.nodes * split.gpusPerNode);
        expect(r.nodes.map((n) => n.gpus.map((g) => g.gpu))).toEqual(
          r.nodes.map(() => Array.from({ length: split.gpusPerNode }, (_, i) => i)),
        );

        const count = (pred: (a: (typeof flat)[number]) => boolean) => flat.filter(pred).length;
        expect(count((a) => a.role === "actor")).toBe(split.actorGpus);
        expect(count((a) => a.role === "prm")).toBe(split.prmGpus);
        expect(count((a) => a.role === "teacher")).toBe(split.prmTeacherGpus);
        expect(count((a) => a.role === "rollout" || a.sharedWith !== undefined)).toBe(split.rolloutGpus);
        // a GPU carries a second role only when colocated, and then only actor+rollout
        expect(count((a) => a.sharedWith !== undefined)).toBe(split.colocate ? split.rolloutGpus : 0);
        expect(flat.every((a) => !a.sharedWith || a.role === "actor")).toBe(true);

        const engines = new Map<string, Array<{ node: number; gpu: number }>>();
        for (const a of flat) {
          const engine = a.sharedWith
            ? `rollout-${a.sharedWith.engine}`
            : a.engine !== undefined
              ? `${a.role}-${a.engine}`
              : null;
          if (engine) engines.set(engine, [...(engines.get(engine) ?? []), { node: a.node, gpu: a.gpu }]);
        }
        for (const [label, members] of engines) {
          const size = label.startsWith("rollout") ? split.rolloutGpusPerEngine : split.prmGpusPerEngine;
          expect(members).toHaveLength(size);
          const nodes = new Set(members.map((m) => m.node));
          if (nodes.size > 1) {
            expect(size % split.gpusPerNode).toBe(0);
            for (const n of nodes) expect(members.filter((m) => m.node === n)).toHaveLength(split.gpusPerNode);
          }
        }
        expect(engines.size).toBe(
          split.rolloutGpus / split.rolloutGpusPerEngine + (split.prmGpus ? split.prmGpus / split.prmGpusPerEngine : 0),
        );

        if (!split.colocate) {
          const roles = flat.map((a) => a.role).filter((x) => x !== "idle");
          const rank = { actor: 0, rollout: 1, prm: 2, teacher: 3 } as const;
          expect(
            roles.every((x, i) => i === 0 || rank[x as keyof typeof rank] >= rank[roles[i - 1] as keyof typeof rank]),
          ).toBe(true);
        }

        const { actor } = r.summary;
        expect(actor.nodes * actor.gpusPerNode).toBe(split.actorGpus);
        for (let n = 0; n < actor.nodes; n++) {
          expect(r.nodes[n].gpus.filter((g) => g.role === "actor")).toHaveLength(actor.gpusPerNode);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("invalid requests always yield at least one error naming a field", () => {
    const fields = [...Object.keys(GpuSplitSchema.shape), "split"];
    const anyValue = fc.oneof(
      fc.integer({ min: -5, max: 40 }),
      fc.double({ noNaN: false }),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
    );
    const messy = fc.record(
      {
        nodes: anyValue,
        gpusPerNode: anyValue,
        actorGpus: anyValue,
        rolloutGpus: anyValue,
        prmGpus: anyValue,
        rolloutGpusPerEngine: anyValue,
        prmGpusPerEngine: anyValue,
        prmTeacherGpus: anyValue,
        colocate: fc.oneof(fc.boolean(), anyValue),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(splitArb, messy), (input) => {
        const r = planGpuSplit(input);
        if (r.ok) return;
        expect(r.errors.length).toBeGreaterThan(0);
        for (const e of r.errors) {
          expect(fields).toContain(e.field);
          expect(e.message.length).toBeGreaterThan(10);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("every fix suggested for a straddling engine makes the split valid", () => {
    fc.assert(
      fc.property(splitArb, (split) => {
        const r = planGpuSplit(split);
        if (r.ok) return;
        for (const e of r.errors) {
          const m = /straddle.*: (.*)$/.exec(e.message);
          if (!m) continue;
          for (const part of m[1].split(", or ")) {
            const values = [...part.matchAll(/\d+/g)].map((x) => Number(x[0]));
            const isActor = part.startsWith("set actor GPUs");
            for (const v of values) {
              const fixed = isActor
                ? { ...split, actorGpus: v, ...(split.colocate ? { rolloutGpus: v } : {}) }
                : { ...split, [e.field]: v };
              expect(planGpuSplit(fixed).ok).toBe(true);
            }
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("slime's engine-address rule: every pool that spans nodes starts on a node boundary", () => {
    fc.assert(
      fc.property(splitArb, (split) => {
        const r = planGpuSplit(split);
        if (!r.ok) return;
        const flat = r.nodes.flatMap((n) => n.gpus.map((a, i) => ({ ...a, index: n.node * split.gpusPerNode + i })));
        for (const role of ["rollout", "prm", "teacher"] as const) {
          const members = flat.filter((a) => a.role === role).map((a) => a.index);
          if (members.length === 0) continue;
          const first = Math.min(...members);
          const last = Math.max(...members);
          if (Math.floor(first / split.gpusPerNode) !== Math.floor(last / split.gpusPerNode))
            expect(first % split.gpusPerNode).toBe(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("TP rules: a plan is accepted only when the actor TP divides its GPUs per node, SGLang TP fits the model's heads and the PRM teacher's GPUs (its Megatron TP) divide them", () => {
    const modelArb = fc.record({
      name: fc.constant("m"),
      attentionHeads: fc.constantFrom(16, 24, 32, 40),
      kvHeads: fc.constantFrom(1, 2, 4, 8),
    });
    fc.assert(
      fc.property(splitArb, modelArb, fc.constantFrom(1, 2, 3, 4, 8), (split, model, actorTp) => {
        const base = planGpuSplit(split);
        const r = planGpuSplit(split, { model, actorTp });
        if (!base.ok) {
          expect(r.ok).toBe(false);
          return;
        }
        const fits = (tp: number) =>
          model.attentionHeads % tp === 0 &&
          (model.kvHeads >= tp ? model.kvHeads % tp === 0 : tp % model.kvHeads === 0);
        const perNode = base.summary.actor.gpusPerNode;
        const expectOk =
          fits(split.rolloutGpusPerEngine) &&
          (split.prmGpus === 0 || fits(split.prmGpusPerEngine)) &&
          perNode % actorTp === 0 &&
          model.attentionHeads % actorTp === 0 &&
          model.kvHeads % actorTp === 0 &&
          (split.prmTeacherGpus === 0 ||
            (model.attentionHeads % split.prmTeacherGpus === 0 && model.kvHeads % split.prmTeacherGpus === 0));
        expect(r.ok).toBe(expectOk);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("engine-address rule and the 4-way split", () => {
  it("the PRM teacher's GPUs are its tensor-parallel size (fork actor.py), so they must divide the PRM model's heads", () => {
    const qwen3 = { name: "Qwen3-4B", attentionHeads: 32, kvHeads: 8 };
    const split = { actorGpus: 2, rolloutGpus: 2, prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 3 };
    const r = planGpuSplit(split, { model: qwen3 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => e.field)).toEqual(["prmTeacherGpus"]);
    expect(!r.ok && r.errors[0].message).toMatch(/use 1, 2, 4 or 8/);
    expect(planGpuSplit({ ...split, prmTeacherGpus: 2 }, { model: qwen3 }).ok).toBe(true);
    // The PRM model, when it differs from the policy, is the one that counts.
    expect(planGpuSplit(split, { model: qwen3, prmModel: { name: "p", attentionHeads: 24, kvHeads: 3 } }).ok).toBe(
      true,
    );
  });

  it("refuses the 2 × 8 counter-example (actor 4, rollout 8 at TP 2, PRM 4): the rollout pool starts mid-node and spans two", () => {
    const errors = errorsOf({
      nodes: 2,
      gpusPerNode: 8,
      actorGpus: 4,
      rolloutGpus: 8,
      rolloutGpusPerEngine: 2,
      prmGpus: 4,
      prmGpusPerEngine: 2,
    });
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe("rolloutGpus");
    expect(errors[0].message).toMatch(/spans nodes 0–1 but starts mid-node \(GPU 4 of node 0\)/);
    // The same GPUs with the actor on a whole node are fine.
    ok({
      nodes: 2,
      gpusPerNode: 8,
      actorGpus: 8,
      rolloutGpusPerEngine: 2,
      rolloutGpus: 4,
      prmGpus: 4,
      prmGpusPerEngine: 2,
    });
  });

  it("places ACTOR / ROLLOUT / PRM / PRM_TEACHER = 4 / 2 / 1 / 1 (OpenClaw-RL PR #85) in that order", () => {
    const plan = ok({ actorGpus: 4, rolloutGpus: 2, prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 });
    expect(plan.nodes[0].gpus.map((g) => g.role)).toEqual([
      "actor",
      "actor",
      "actor",
      "actor",
      "rollout",
      "rollout",
      "prm",
      "teacher",
    ]);
    expect(plan.summary.teacher).toEqual({ gpus: 1 });
    expect(planRoleGroups(plan).map((g) => g.label)).toEqual(["actor", "rollout-0", "prm-0", "teacher"]);
    expect(errorsOf({ prmGpus: 0, prmTeacherGpus: 1 })[0].field).toBe("prmTeacherGpus");
  });

  it("SGLang TP must fit the model's KV heads: Qwen3-4B (32 heads, 8 KV heads) refuses engines of 3", () => {
    const qwen = { name: "Qwen3-4B", attentionHeads: 32, kvHeads: 8 };
    const r = planGpuSplit(
      { gpusPerNode: 8, actorGpus: 2, rolloutGpus: 3, rolloutGpusPerEngine: 3, prmGpus: 0 },
      { model: qwen },
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toMatchObject({
        field: "rolloutGpusPerEngine",
        message: expect.stringMatching(/8 KV heads.*use 1, 2, 4 or 8/),
      });
    expect(planGpuSplit({}, { model: qwen, actorTp: 4 }).ok).toBe(true);
    const tp = planGpuSplit({}, { model: qwen, actorTp: 8 });
    expect(tp.ok).toBe(false);
  });
});
