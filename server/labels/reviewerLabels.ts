// Writing a reviewer label: the relabel form, the review queue and the API all come through here, so every
// relabel is audited the same way, with the effective training label before and after it.
import type { Prisma } from "../platform/db/client";
import type { Label } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { assertExperimentAccess, can, type Principal, actorUserId } from "../access/principal";
import { appError, notFound } from "../platform/errors";
import { effectiveLabelsForTurns } from "./effective";
import type { TrainingLabel } from "./trainingLabel";

type Tx = Prisma.TransactionClient;

export interface ReviewerLabelInput {
  turnId: string;
  value: -1 | 0 | 1;
  hint?: string | null;
  /** true forces exclusion, false lifts the dispatch's exclusion, null/absent leaves it alone */
  exclude?: boolean | null;
  comment?: string | null;
}

export const RELABEL_ACTION = "label.create";

/** What the audit log shows of a training label: enough to see what changed for training. */
export function labelSnapshot(l: TrainingLabel | undefined) {
  if (!l) return null;
  return {
    value: l.value,
    source: l.source,
    hint: l.hint,
    kind: l.kind,
    reward: l.reward,
    excluded: l.excluded,
    excludeReason: l.excludeReason,
  };
}

/**
 * A reviewer (review permission without write) outside a turn's review queues does not relabel it directly: when
 * the turn sits in open queues with assigned reviewers, only those reviewers may. Editors relabel any turn; a turn
 * in no such queue stays open to every reviewer.
 */
export async function assertMayRelabel(tx: Tx, p: Principal, turnId: string): Promise<void> {
  if (can(p, "write")) return;
  const queues = await tx.reviewQueue.findMany({
    where: { archivedAt: null, items: { some: { turnId } }, assignees: { some: {} } },
    select: { assignees: { select: { userId: true } } },
  });
  const userId = actorUserId(p);
  if (queues.length && !queues.some((q) => q.assignees.some((a) => a.userId === userId)))
    throw appError(
      "not_assigned",
      "This turn is in review queues with assigned reviewers, and you are not one of them: ask an editor or a queue's reviewer",
    );
}

export async function writeReviewerLabel(
  tx: Tx,
  p: Principal,
  input: ReviewerLabelInput,
  context: Record<string, unknown> = {},
): Promise<{ label: Label; before: TrainingLabel | undefined; after: TrainingLabel | undefined }> {
  // Row lock: concurrent relabels of one turn serialize, so each audit entry's "before" is the previous "after".
  const locked = await tx.$queryRaw<
    { id: string; experimentId: string }[]
  >`SELECT id, "experimentId" FROM turns WHERE id = ${input.turnId} FOR UPDATE`;
  const turn = locked[0];
  if (!turn) throw notFound("Turn", input.turnId);
  assertExperimentAccess(p, turn.experimentId);
  const before = (await effectiveLabelsForTurns([turn.id], tx)).get(turn.id);
  const hint = input.hint?.trim() ? input.hint.trim() : null;
  const label = await tx.label.create({
    data: {
      turnId: turn.id,
      source: "REVIEWER",
      value: input.value,
      hint,
      exclude: input.exclude ?? null,
      comment: input.comment?.trim() || null,
      userId: actorUserId(p),
      apiKeyId: p.kind === "apiKey" ? p.keyId : null,
    },
  });
  const after = (await effectiveLabelsForTurns([turn.id], tx)).get(turn.id);
  await audit(tx, p, RELABEL_ACTION, "turn", turn.id, labelSnapshot(before), {
    ...labelSnapshot(after),
    labelId: label.id,
    labelValue: label.value,
    labelExclude: label.exclude,
    comment: label.comment,
    ...context,
  });
  return { label, before, after };
}
