// What training does with one turn once every label has been weighed (effective.ts for chat turns, episodes.ts for
// agent episode steps): the shape both produce and the trainers read.
import type { LabelSource } from "./precedence";

export interface TrainingLabel {
  turnId: string;
  experimentId: string;
  /** The label that trains the turn; null when nobody (judge or human) has labelled it yet. */
  value: number | null;
  source: LabelSource | null;
  /** The human label that won (null when the judge's verdict stands). */
  labelId: string | null;
  judgmentId: string | null;
  /** OPD hint: the reviewer's when given, else the judge's accepted hint. */
  hint: string | null;
  /**
   * Every hint the judge accepted, shortest first (server/judge/core/vote.ts hintCandidates), when `hint` is the
   * judge's and it accepted more than one: hint selection token_optimal / sequence_optimal choose among them at
   * train time. Absent otherwise.
   */
  hintCandidates?: string[];
  /** The end user's earlier turn whose accepted hint `hint` is (hint memory, `hyper.hintMemory`); null otherwise. */
  hintFromTurnId: string | null;
  /** The hint is not the judgment's own (a reviewer's, or remembered): its teacher log-probs must be computed. */
  needsTeacherRescore: boolean;
  /** Teacher log-probs that go with `hint` (null when there are none yet). */
  teacherLogprobs: number[] | null;
  kind: "RL" | "OPD" | "BOTH" | null;
  reward: number;
  /** `reward` is an agent episode step's advantage, already normalised within its task group (labels/episodes.ts). */
  groupNormalized?: boolean;
  excluded: boolean;
  excludeReason: string | null;
}
