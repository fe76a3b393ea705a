// Idempotent write of a judgment and its votes in one transaction. The insert is ON CONFLICT DO
// NOTHING on (turnId, judgeVersion): a second delivery, even a concurrent one, finds the first
// judgment instead of adding another, and votes are written only by the transaction that created it.
import { db, type Prisma } from "../../platform/db/client";
import type { JudgmentResult } from "../core/schemas";
import type { JudgeEndpoints } from "./endpoints";

export type SavedJudgment = { id: string; created: boolean };

/**
 * Stored in the settings record, visible with it: `teacherError` (teacher scoring failed for good) and
 * `endpoints` (which judge and teacher endpoints scored the turn: the experiment's, or a live run's PRM).
 */
export async function saveJudgment(
  turnId: string,
  r: JudgmentResult,
  opts: { teacherError?: string | null; endpoints?: JudgeEndpoints } = {},
): Promise<SavedJudgment> {
  const settings = {
    ...r.settings,
    ...(opts.teacherError ? { teacherError: opts.teacherError } : {}),
    ...(opts.endpoints ? { endpoints: opts.endpoints } : {}),
  } as Prisma.InputJsonValue;
  return db().$transaction(async (tx) => {
    const inserted = await tx.judgment.createManyAndReturn({
      data: [
        {
          turnId,
          judgeVersion: r.judgeVersion,
          judgeKind: r.judgeKind,
          model: r.model,
          promptVersion: r.promptVersion,
          settings,
          score: r.score,
          evalScore: r.evalScore,
          hint: r.hint,
          hintAccepted: r.hintAccepted,
          teacherLogprobs: r.teacherLogprobs ?? [],
          dispatch: r.dispatch.kind,
          excluded: r.dispatch.excluded,
          excludeReason: r.dispatch.excludeReason,
          latencyMs: r.latencyMs,
        },
      ],
      skipDuplicates: true,
      select: { id: true },
    });
    const created = inserted[0];
    if (!created) {
      const existing = await tx.judgment.findUniqueOrThrow({
        where: { turnId_judgeVersion: { turnId, judgeVersion: r.judgeVersion } },
        select: { id: true },
      });
      return { id: existing.id, created: false };
    }
    if (r.votes.length > 0) {
      await tx.judgeVote.createMany({
        data: r.votes.map((v) => ({
          judgmentId: created.id,
          kind: v.kind,
          index: v.index,
          raw: v.raw,
          value: v.value,
          hint: v.hint,
          latencyMs: v.latencyMs,
          error: v.error,
        })),
      });
    }
    return { id: created.id, created: true };
  });
}
