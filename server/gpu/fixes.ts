// Suggestions for a split whose engines would straddle nodes: the one-field changes (engine size, actor GPUs)
// that make the whole split valid, found by re-running the rules on each candidate.
import { orList, validate, type RuleIssue } from "./rules";
import { LABEL, type GpuSplit, type GpuSplitField, type GpuSplitIssue } from "./schema";

/** The rules' issues as reported: a straddling engine's message ends with the changes that fix it. */
export function withFixes(split: GpuSplit, issues: readonly RuleIssue[]): GpuSplitIssue[] {
  return issues.map(({ straddles, ...issue }) => {
    if (!straddles) return issue;
    const fixes = straddleFixes(split, straddles);
    return fixes.length > 0 ? { ...issue, message: `${issue.message}: ${fixes.join(", or ")}` } : issue;
  });
}

/** Concrete alternatives that make the whole split valid when only one field changes. */
function straddleFixes(split: GpuSplit, pool: "rollout" | "prm"): string[] {
  const fixes: string[] = [];
  const sizeField: GpuSplitField = pool === "rollout" ? "rolloutGpusPerEngine" : "prmGpusPerEngine";
  const poolGpus = pool === "rollout" ? split.rolloutGpus : split.prmGpus;
  const sizes: number[] = [];
  for (let size = poolGpus; size >= 1 && sizes.length < 2; size--) {
    if (poolGpus % size === 0 && validate({ ...split, [sizeField]: size }).length === 0) sizes.push(size);
  }
  if (sizes.length > 0) fixes.push(`use ${LABEL[sizeField]} ${orList(sizes)}`);

  const total = split.nodes * split.gpusPerNode;
  const actors: number[] = [];
  // Valid actor sizes, if any, lie within a couple of nodes of the request; bound the search accordingly.
  for (let delta = 1; delta <= 2 * split.gpusPerNode && actors.length < 2; delta++) {
    for (const candidate of [split.actorGpus - delta, split.actorGpus + delta]) {
      if (candidate < 1 || candidate > total || actors.length >= 2) continue;
      const rolloutGpus = split.colocate ? candidate : split.rolloutGpus;
      if (validate({ ...split, actorGpus: candidate, rolloutGpus }).length === 0) actors.push(candidate);
    }
  }
  if (actors.length > 0) fixes.push(`set actor GPUs to ${orList(actors.sort((a, b) => a - b))}`);
  return fixes;
}
