// The judge's own safety net: turns that have been ready for a while with no judgment under the
// current judge version are (re)queued. This covers a Redis outage when the proxy enqueued, a job
// completed as "not ready" before its next state arrived, and a judge config change (a new judge
// version re-judges). Job ids are turn ids, so a job still waiting or running is left alone; a
// finished one must be removed first, or the add would be a no-op while BullMQ keeps it.
import { enqueue, queue } from "../../platform/bus/queues";
import { activeExperiments, staleUnjudgedTurns } from "./backlog";

export type SweepOptions = {
  /** Only turns ready for at least this long (fresh ones are the proxy's to enqueue). */
  minAgeMs: number;
  /** Turns per experiment per sweep. */
  limit: number;
  /** A job that failed for good is retried by the sweeper no sooner than this after it failed. */
  failedRetryAfterMs: number;
  experimentIds?: readonly string[];
};

/** Queues a judge job for the turn unless one is pending; true when it queued one. */
export async function requeueTurn(turnId: string, experimentId: string, failedRetryAfterMs: number): Promise<boolean> {
  const job = await queue("judgeTurn").getJob(turnId);
  if (job) {
    const state = await job.getState();
    const finishedAgo = Date.now() - (job.finishedOn ?? 0);
    const removable = state === "completed" || (state === "failed" && finishedAgo >= failedRetryAfterMs);
    if (!removable) return false;
    await job.remove();
  }
  await enqueue("judgeTurn", { turnId, experimentId }, turnId);
  return true;
}

export async function sweepUnjudged(opts: SweepOptions): Promise<{ queued: number }> {
  let queued = 0;
  for (const e of await activeExperiments(opts.experimentIds)) {
    for (const turnId of await staleUnjudgedTurns(e.id, e.judgeVersion, opts.minAgeMs, opts.limit)) {
      if (await requeueTurn(turnId, e.id, opts.failedRetryAfterMs)) queued++;
    }
  }
  return { queued };
}
