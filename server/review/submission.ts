// Submission: the reviewer's verdict becomes a reviewer label (audited, and what training uses from now on);
// the item is done once it has all its reviews.
import type { z } from "zod";
import { db } from "../platform/db/client";
import type { Principal } from "../access/principal";
import { appError, notFound } from "../platform/errors";
import { writeReviewerLabel } from "../labels/reviewerLabels";
import { effectiveLabelsForTurns } from "../labels/effective";
import { itemView, lockIfRoom, reviewerId } from "./claims";
import { assertAssigned, loadQueue, NOW } from "./queues";
import type { SubmitInput } from "./schemas";

/**
 * Records the reviewer's verdict as a reviewer label (audited, and what training uses from now on). The
 * reviewer must hold a live lock, or the item must still have room (their lock expired but nobody took it).
 */
export async function submitReview(p: Principal, input: z.output<typeof SubmitInput>) {
  let userId = "";
  const result = await db().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ queueId: string; turnId: string; status: string }[]>`
      SELECT "queueId", "turnId", status::text FROM review_items WHERE id = ${input.itemId} FOR UPDATE`;
    if (!row) throw notFound("Review item", input.itemId);
    const q = await loadQueue(p, row.queueId, tx);
    userId = reviewerId(p);
    assertAssigned(q, userId);
    if (await tx.reviewSubmission.findUnique({ where: { itemId_userId: { itemId: input.itemId, userId } } })) {
      throw appError("already_reviewed", "You already reviewed this item");
    }
    if (row.status !== "PENDING") throw appError("already_reviewed", "This item already has all its reviews");
    if (!(await lockIfRoom(tx, input.itemId, userId, q.reviewersPerItem, q.lockTtlS))) {
      throw appError("lock_lost", "Your lock on this item expired and other reviewers took it");
    }
    const current = (await effectiveLabelsForTurns([row.turnId], tx)).get(row.turnId);
    const value =
      input.verdict === "ACCEPT"
        ? clampVote(current?.value ?? input.value ?? 0)
        : (input.value ?? clampVote(current?.value ?? 0));
    // Reject forces exclusion; Fix may force (true) or lift (false) it; Accept leaves the dispatch's decision alone.
    const exclude = input.verdict === "REJECT" ? true : input.verdict === "ACCEPT" ? null : (input.exclude ?? null);
    const hint = input.verdict === "FIX" ? input.hint : undefined;
    const { label, after } = await writeReviewerLabel(
      tx,
      p,
      { turnId: row.turnId, value, hint, exclude, comment: input.comment ?? `review: ${input.verdict.toLowerCase()}` },
      { via: "review", queueId: q.id, itemId: input.itemId, verdict: input.verdict },
    );
    await tx.reviewSubmission.create({
      data: {
        itemId: input.itemId,
        userId,
        verdict: input.verdict,
        value,
        hint: label.hint,
        exclude: exclude === true,
        labelId: label.id,
      },
    });
    await tx.reviewSeen.upsert({
      where: { itemId_userId: { itemId: input.itemId, userId } },
      create: { itemId: input.itemId, userId, action: "submitted" },
      update: { action: "submitted", at: new Date() },
    });
    await tx.reviewLock.deleteMany({ where: { itemId: input.itemId, userId } });
    const [updated] = await tx.$queryRaw<{ submittedCount: number }[]>`
      UPDATE review_items SET "submittedCount" = "submittedCount" + 1,
        status = CASE WHEN "submittedCount" + 1 >= ${q.reviewersPerItem}::int THEN 'DONE'::"ReviewItemStatus" ELSE status END,
        "completedAt" = CASE WHEN "submittedCount" + 1 >= ${q.reviewersPerItem}::int THEN ${NOW} ELSE "completedAt" END
      WHERE id = ${input.itemId} RETURNING "submittedCount"`;
    return { labelId: label.id, training: after ?? null, submittedCount: updated!.submittedCount };
  });
  return { ...result, item: await itemView(input.itemId, userId, null) };
}

function clampVote(v: number): -1 | 0 | 1 {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}
