/**
 * GPU split planner for slime-style training: actor (trainer), rollout (policy SGLang engines), PRM
 * (judge/teacher SGLang engines) and, optionally, a separate PRM teacher (OpenClaw-RL PR #85's 4-way split
 * ACTOR / ROLLOUT / PRM / PRM_TEACHER). It mirrors how slime actually places work: one placement group whose
 * bundles are sorted by node then GPU id, handed out contiguously in the order actor → rollout → PRM
 * (`slime/ray/placement_group.py`). The OpenClaw-RL scripts only check `actor + rollout + prm <= NUM_GPUS`
 * on one node (their issue #56); this planner checks the whole cluster and the engine/node geometry, plus
 * (given the model) the tensor-parallel rules of Megatron and SGLang.
 *
 * This module plans a split from raw input; the pieces live beside it: schema.ts (shape, types), presets.ts,
 * rules.ts (validation), fixes.ts (suggested changes), placement.ts (where each GPU goes). All of them are
 * pure (zod only), so the browser's GPU grid can import this module (tests/unit/gpu/browserSafe.test.ts).
 */
import { withFixes } from "./fixes";
import { place } from "./placement";
import { parallelismIssues, validate } from "./rules";
import {
  GpuSplitError,
  GpuSplitSchema,
  schemaIssues,
  type GpuPlan,
  type GpuPlanContext,
  type GpuPlanResult,
  type GpuSplitInput,
} from "./schema";

export {
  GpuSplitError,
  GpuSplitSchema,
  type GpuAssignment,
  type GpuPlan,
  type GpuPlanContext,
  type GpuPlanResult,
  type GpuPlanSummary,
  type GpuRole,
  type GpuSplit,
  type GpuSplitField,
  type GpuSplitInput,
  type GpuSplitIssue,
  type ModelShape,
  type NodePlan,
} from "./schema";
export { GPU_SPLIT_PRESETS, type GpuSplitPreset } from "./presets";
export { sglangTpFits } from "./rules";
export { planRoleGroups, type RoleGroup } from "./placement";

/** Plans a split; never throws. Accepts raw input (defaults applied, bad values reported per field). */
export function planGpuSplit(input: GpuSplitInput, ctx?: GpuPlanContext): GpuPlanResult;
export function planGpuSplit(input: unknown, ctx?: GpuPlanContext): GpuPlanResult;
export function planGpuSplit(input: unknown, ctx: GpuPlanContext = {}): GpuPlanResult {
  const raw = input === undefined ? {} : input;
  const parsed = GpuSplitSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, errors: schemaIssues(parsed.error.issues, raw) };
  const split = parsed.data;
  const errors = withFixes(split, validate(split));
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
