// One judge job: load the turn, skip what is never judged, reuse a judgment already stored under the
// current judge version (a redelivered job makes no calls), judge, and store idempotently.
// A result that only says "the endpoint was unavailable" is never stored: stored, the (turn,
// judgeVersion) dedup would lock the degraded verdict in for good.
import { db } from "../../platform/db/client";
import { judgeTurn } from "../core/judgeTurn";
import type { JudgmentResult } from "../core/schemas";
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
 * Failures that say "the endpoint is down or overloaded", as judgeTurn's describeError words them:
 * timeouts (per call, or the job's deadline aborting it), open circuits, network errors, 408/425/429
 * and 5xx. Anything else (a 4xx, a malformed answer, a response that does not fit the teacher) will
 * not get better by waiting.
 */
const TRANSIENT =
  /^(timeout after |circuit open|http (408|425|429|5\d\d)\b|(TimeoutError|AbortError): )|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up/i;

export function isTransientFailure(error: string): boolean {
  return TRANSIENT.test(error);
}

export type Unavailability = { reason: string; transient: boolean };

/**
 * Why a result reflects a failure to judge rather than a verdict, or null: every call of one vote
 * kind failed (an unparsable answer is a verdict, a failed call is not), or an accepted hint's teacher
 * scoring failed while a teacher is configured ("no teacher" is permanent, so it is stored as is).
 */
export function unavailability(result: JudgmentResult, hasTeacher: boolean): Unavailability | null {
  for (const kind of ["eval", "hint"] as const) {
    const errors = result.votes.filter((v) => v.kind === kind).map((v) => v.error);
    if (errors.length > 0 && errors.every((e) => e !== null && e !== UNPARSABLE)) {
      return {
        reason: `every ${kind} call failed (${errors[0]})`,
        transient: errors.every((e) => isTransientFailure(e as string)),
      };
    }
  }
  if (hasTeacher && result.hintAccepted && result.teacherLogprobs === null) {
    const error = result.teacherError ?? "unknown error";
    return { reason: `teacher scoring failed (${error})`, transient: isTransientFailure(error) };
  }
  return null;
}

export async function judgeTurnJob(
  runtime: JudgeRuntime,
  turnId: string,
  opts: { finalAttempt: boolean; signal?: AbortSignal },
): Promise<JudgeOutcome> {
  const loaded = await loadTurnForJudging(turnId);
  if (!loaded.ready) return { status: "skipped", reason: loaded.reason };
  const judge = await runtime.forExperimentNow(loaded.experimentId, loaded.config);
  const existing = await db().judgment.findUnique({
    where: { turnId_judgeVersion: { turnId, judgeVersion: judge.version } },
    select: { id: true },
  });
  if (existing) return { status: "duplicate", judgmentId: existing.id, experimentId: loaded.experimentId };

  const result = await judgeTurn(loaded.input, await runtime.deps(judge, opts.signal));
  // Retried with backoff while attempts remain; after the last one an outage still is not stored (the
  // job fails and the sweeper re-queues it later), while a permanent failure is stored as it is.
  const problem = unavailability(result, judge.teacher !== null);
  if (problem && (!opts.finalAttempt || problem.transient)) throw new JudgeUnavailableError(problem.reason);
  const degraded = problem?.reason ?? null;
  const teacherError = result.hintAccepted && result.teacherLogprobs === null ? result.teacherError : null;
  const saved = await saveJudgment(turnId, result, { teacherError, endpoints: judge.endpoints });
  if (!saved.created) return { status: "duplicate", judgmentId: saved.id, experimentId: loaded.experimentId };
  return { status: "stored", judgmentId: saved.id, experimentId: loaded.experimentId, result, degraded };
}
