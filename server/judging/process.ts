// One judge job: load the turn, skip what is never judged, reuse a judgment already stored under the
// current judge version (a redelivered job makes no calls), judge, and store idempotently.
// A result that only says "the endpoint was unavailable" is not stored until the last attempt:
// stored, the (turn, judgeVersion) dedup would lock the degraded verdict in for good.
import { db } from "../db/client";
import { judgeTurn } from "../judge/judgeTurn";
import type { JudgmentResult } from "../judge/schemas";
import { loadTurnForJudging, type SkipReason } from "./load";
import { saveJudgment } from "./persist";
import type { JudgeRuntime } from "./runtime";

/** Thrown to have the queue retry the job later (with backoff) instead of storing a degraded result. */
export class JudgeUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgeUnavailableError";
  }
}

export type JudgeOutcome =
  | { status: "skipped"; reason: SkipReason }
  | { status: "duplicate"; judgmentId: string; experimentId: string }
  | { status: "stored"; judgmentId: string; experimentId: string; result: JudgmentResult; degraded: string | null };

const UNPARSABLE = "unparsable answer";

/**
 * Why a result reflects an outage rather than a verdict, or null: every call of one vote kind failed
 * (an unparsable answer is a verdict, a failed call is not), or an accepted hint's teacher scoring
 * failed while a teacher is configured ("no teacher" is permanent, so it is stored as is).
 */
export function unavailability(result: JudgmentResult, hasTeacher: boolean): string | null {
  for (const kind of ["eval", "hint"] as const) {
    const votes = result.votes.filter((v) => v.kind === kind);
    if (votes.length > 0 && votes.every((v) => v.error !== null && v.error !== UNPARSABLE)) {
      return `every ${kind} call failed (${votes[0].error})`;
    }
  }
  if (hasTeacher && result.hintAccepted && result.teacherLogprobs === null) return `teacher scoring failed (${result.teacherError})`;
  return null;
}

export async function judgeTurnJob(
  runtime: JudgeRuntime,
  turnId: string,
  opts: { finalAttempt: boolean; signal?: AbortSignal },
): Promise<JudgeOutcome> {
  const loaded = await loadTurnForJudging(turnId);
  if (!loaded.ready) return { status: "skipped", reason: loaded.reason };
  const judge = runtime.forExperiment(loaded.experimentId, loaded.config);
  const existing = await db().judgment.findUnique({
    where: { turnId_judgeVersion: { turnId, judgeVersion: judge.version } },
    select: { id: true },
  });
  if (existing) return { status: "duplicate", judgmentId: existing.id, experimentId: loaded.experimentId };

  const result = await judgeTurn(loaded.input, await runtime.deps(judge, opts.signal));
  const degraded = unavailability(result, judge.teacher !== null);
  if (degraded && !opts.finalAttempt) throw new JudgeUnavailableError(degraded);
  const teacherError = result.hintAccepted && result.teacherLogprobs === null ? result.teacherError : null;
  const saved = await saveJudgment(turnId, result, { teacherError });
  if (!saved.created) return { status: "duplicate", judgmentId: saved.id, experimentId: loaded.experimentId };
  return { status: "stored", judgmentId: saved.id, experimentId: loaded.experimentId, result, degraded };
}
