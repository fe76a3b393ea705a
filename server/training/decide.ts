// What one turn becomes for one run: the effective label (reviewer > user > judge, with the judge's
// combine dispatch; server/labels/effective) plus what only the trainer knows: staleness against
// the version it trains, whether the recorded tokens are usable, and a reviewer hint that the teacher
// still has to score (the dispatch treats such a hint as usable: the trainer rescores it at step time).
import { dispatchTurn } from "../judge/core/dispatch";
import { EXCLUDE } from "../labels/effective";
import type { TrainingLabel } from "../labels/trainingLabel";
import type { HyperparamsSchema } from "../config/experimentConfig";
import type { z } from "zod";
import { TRAINER_EXCLUDE } from "./schemas";
import { isTooStale, stalenessOf } from "./staleness";

export type Method = "grpo" | "opd" | "combine";
export type SampleKind = "RL" | "OPD" | "BOTH";
type Hyper = z.output<typeof HyperparamsSchema>;

export interface SampleFacts {
  method: Method;
  /** the version the trainer trains from (0 = base) */
  currentVersion: number;
  /** the version that served the turn */
  servedVersion: number;
  maxStaleness: Hyper["maxStaleness"];
  stalePolicy: Hyper["stalePolicy"];
  tokenCount: number;
  logprobCount: number;
}

export interface SampleDecision {
  kind: SampleKind;
  reward: number;
  labelSource: "REVIEWER" | "USER" | "JUDGE";
  excluded: boolean;
  excludeReason: string | null;
  staleness: number;
  /** OPD/BOTH only: teacher log-probs from the judgment, or to be computed for a reviewer's hint */
  teacher: "judgment" | "rescore" | null;
}

/** A turn the dispatch gives no sample (no hint and no eval verdict) is recorded under the method's own kind. */
const FALLBACK_KIND: Record<Method, SampleKind> = { grpo: "RL", opd: "OPD", combine: "BOTH" };

const clampVote = (v: number): -1 | 0 | 1 => (v > 0 ? 1 : v < 0 ? -1 : 0);

/** null: nothing to record yet (neither the judge nor a human has labelled the turn). */
export function decideSample(label: TrainingLabel, f: SampleFacts): SampleDecision | null {
  if (label.source === null || label.value === null) return null;
  const staleness = stalenessOf(f.currentVersion, f.servedVersion);
  let { kind, reward, excluded, excludeReason } = label;
  const forced = excludeReason === EXCLUDE.reviewer;
  const rescore = label.needsTeacherRescore && f.method !== "grpo" && !forced;
  if (rescore) {
    const d = dispatchTurn({ method: f.method, hasNextState: true, score: clampVote(label.value), hintUsable: true });
    kind = d.kind;
    reward = d.kind === "OPD" ? 0 : label.value;
    excluded = d.excluded;
    excludeReason = d.excludeReason;
  }
  const finalKind = kind ?? FALLBACK_KIND[f.method];
  const teacher = finalKind === "RL" ? null : rescore ? "rescore" : "judgment";
  const out = (why: string): SampleDecision => ({
    kind: finalKind,
    reward,
    labelSource: label.source!,
    excluded: true,
    excludeReason: why,
    staleness,
    teacher,
  });
  if (excluded) return out(excludeReason ?? "excluded");
  if (f.tokenCount === 0) return out(TRAINER_EXCLUDE.noTokens);
  if (f.logprobCount !== f.tokenCount) return out(TRAINER_EXCLUDE.logprobMismatch);
  if (teacher === "judgment" && label.teacherLogprobs?.length !== f.tokenCount)
    return out(TRAINER_EXCLUDE.teacherMismatch);
  if (isTooStale(staleness, f.maxStaleness) && f.stalePolicy === "drop") return out(TRAINER_EXCLUDE.stale);
  return {
    kind: finalKind,
    reward,
    labelSource: label.source,
    excluded: false,
    excludeReason: null,
    staleness,
    teacher,
  };
}
