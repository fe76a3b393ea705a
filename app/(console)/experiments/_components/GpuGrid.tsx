"use client";
import { planGpuSplit } from "../../../../server/gpu/plan";

/** The GPU plan as a grid coloured by role, or the planner's errors in words. */
export function GpuGrid({ split }: { split: unknown }) {
  const plan = planGpuSplit(split);
  if (!plan.ok) {
    return (
      <div className="form-error" data-testid="gpu-errors">
        {plan.errors.map((e) => (
          <div key={e.field + e.message}>{e.message}</div>
        ))}
      </div>
    );
  }
  return (
    <div className="gpu-grid" data-testid="gpu-grid">
      {plan.nodes.map((n) => (
        <div className="gpu-node" key={n.node}>
          <span>node {n.node}</span>
          {n.gpus.map((g) => (
            <div
              key={g.gpu}
              className={`gpu ${g.role}`}
              title={`GPU ${g.gpu}: ${g.role}${g.engine !== undefined ? ` engine ${g.engine}` : ""}${g.sharedWith ? ` + rollout engine ${g.sharedWith.engine}` : ""}`}
            >
              {g.role === "idle" ? "·" : g.role[0]!.toUpperCase()}
              {g.engine !== undefined ? g.engine : ""}
            </div>
          ))}
        </div>
      ))}
      <div className="muted" style={{ fontSize: 12 }}>
        {plan.summary.text}
      </div>
    </div>
  );
}

/** hf-local's plan: one GPU time-shared by serving, the judge/teacher (the frozen base) and training. */
export function SharedGpu() {
  return (
    <div className="gpu-grid" data-testid="gpu-grid">
      <div className="gpu-node">
        <span>node 0</span>
        <div className="gpu actor" title="GPU 0: serving + judge/teacher (frozen base) + training, time-shared">
          S·J·T
        </div>
      </div>
      <div className="muted" style={{ fontSize: 12 }}>
        1 GPU: serving, judging and teaching on the frozen base, and LoRA (or full, HF_LOCAL_FINETUNE) training share it
        (hf-local).
      </div>
    </div>
  );
}
