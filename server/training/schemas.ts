// Shapes the trainer writes and others read: the sample exclusion reasons it adds to the judge's, and the
// JSON stored in TrainingStep.metrics (numeric metrics plus the trace of every sample the step trained).
import { z } from "zod";

/** Exclusions decided by the trainer (the judge's and the reviewer's come from server/labels/effective). */
export const TRAINER_EXCLUDE = {
  /** staler than hyper.maxStaleness with stalePolicy "drop" */
  stale: "stale",
  /** the proxy recorded no token ids / behaviour log-probs (e.g. an upstream without logprobs) */
  noTokens: "no_token_ids",
  /** token ids and log-probs differ in length */
  logprobMismatch: "logprob_length_mismatch",
  /** the judgment's teacher log-probs do not cover the response tokens */
  teacherMismatch: "teacher_length_mismatch",
  /** the recorded request no longer renders with the policy's chat template */
  unrenderable: "unrenderable_request",
} as const;

export const TraceEntrySchema = z.object({
  sampleId: z.string(),
  turnId: z.string(),
  /** the judgment whose verdict (or teacher log-probs) was used; null when a human label alone decided */
  judgmentId: z.string().nullable(),
  /** the winning human label; null when the judge's verdict stood */
  labelId: z.string().nullable(),
  labelSource: z.enum(["REVIEWER", "USER", "JUDGE"]),
  kind: z.enum(["RL", "OPD", "BOTH"]),
  reward: z.number(),
  staleness: z.number().int(),
  /** per-sample loss weight (< 1 only for importance-weighted stale samples) */
  weight: z.number(),
  /** where the teacher log-probs came from */
  /** "step": scored by the trainer at step time (a current-policy teacher, or the topk/full estimators' distribution);
   *  "behaviour": recorded by older steps (combine RL-only samples, before their OPD term became exactly 0) */
  teacher: z.enum(["judgment", "rescored", "step", "behaviour", "none"]),
});
export type TraceEntry = z.infer<typeof TraceEntrySchema>;

/** TrainingStep.metrics */
export const StepRecordSchema = z.object({
  values: z.record(z.string(), z.number()),
  trace: z.array(TraceEntrySchema),
  /** version the step trained from (0 = the base checkpoint) */
  parentVersion: z.number().int().min(0),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;

export interface BatchFill {
  /** effective (non-excluded) samples waiting for a step */
  ready: number;
  /** hyper.batchSize of the run */
  needed: number;
}
