// Every change of a run's status, each a named function: the one place that writes `Run.status`.
//
//   PENDING ──startEmbeddedRuns / markExternalRunning──► RUNNING ⇄ PAUSED      (pause / resume: the user)
//      │                                                    │
//      └──────── endRun (FINISHED | FAILED | CRASHED | KILLED) ◄┘                 (stop: the user → KILLED)
//
// Who calls what: the user's actions (runs/service.ts → applyUserAction); the train worker for embedded runs
// (startEmbeddedRuns, heartbeatRuns, crashStaleRuns: a run whose heartbeat stopped because its train worker
// died is CRASHED by the next sweep); the supervisor for external runs (markExternalRunning, endRun,
// crashOwnedRuns on shutdown). Every write is guarded by the status it leaves (`where: {status}`), so two
// processes racing on one run cannot both move it.
import type { Prisma } from "../platform/db/client";
import { db } from "../platform/db/client";
import type { Run, RunStatus } from "../platform/db/generated/client";
import { LIVE_RUN_STATUSES, STARTED_RUN_STATUSES } from "../platform/db/runStatus";
import { appError } from "../platform/errors";

/** What a user may do to a run, from which statuses, and where it leads. */
export const USER_ACTIONS = {
  stop: { from: LIVE_RUN_STATUSES, to: "KILLED" },
  pause: { from: ["RUNNING"], to: "PAUSED" },
  resume: { from: ["PAUSED"], to: "RUNNING" },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: RunStatus }>;

export type UserAction = keyof typeof USER_ACTIONS;

const MESSAGE_MAX = 2000;
const clip = (message: string) => message.slice(0, MESSAGE_MAX);

/** A user's stop/pause/resume of `before` (already loaded and authorized in `tx`); 409 from any other status. */
export async function applyUserAction(tx: Prisma.TransactionClient, before: Run, action: UserAction): Promise<Run> {
  const t = USER_ACTIONS[action];
  if (!(t.from as readonly RunStatus[]).includes(before.status)) {
    throw appError("invalid_transition", `Cannot ${action} a run that is ${before.status.toLowerCase()}`);
  }
  return tx.run.update({
    where: { id: before.id },
    data: {
      status: t.to,
      ...(t.to === "KILLED" ? { endedAt: new Date(), statusMessage: "stopped by user" } : {}),
    },
  });
}

/** The train worker takes its PENDING embedded runs: RUNNING, started and heartbeating now. Returns how many. */
export async function startEmbeddedRuns(where: Prisma.RunWhereInput, now: Date): Promise<number> {
  const started = await db().run.updateMany({
    where: { ...where, trainerBackend: "embedded", status: "PENDING" },
    data: { status: "RUNNING", startedAt: now, heartbeatAt: now },
  });
  return started.count;
}

/** The train worker is alive for its started runs (not a transition: what crashStaleRuns reads). */
export async function heartbeatRuns(where: Prisma.RunWhereInput, now: Date): Promise<void> {
  await db().run.updateMany({ where: { ...where, status: { in: STARTED_RUN_STATUSES } }, data: { heartbeatAt: now } });
}

/**
 * Started runs whose last heartbeat is older than `staleMs` are CRASHED: the process that trained them is gone
 * (a run that never heartbeat is left alone: it was not started by a trainer that beats). Returns their ids.
 */
export async function crashStaleRuns(
  where: Prisma.RunWhereInput,
  opts: { now: Date; staleMs: number },
): Promise<string[]> {
  const cutoff = new Date(opts.now.getTime() - opts.staleMs);
  const stale = await db().run.findMany({
    where: { ...where, status: { in: STARTED_RUN_STATUSES }, heartbeatAt: { lt: cutoff } },
    select: { id: true, heartbeatAt: true },
  });
  const crashed: string[] = [];
  for (const run of stale) {
    const silentS = Math.round((opts.now.getTime() - run.heartbeatAt!.getTime()) / 1000);
    // Guarded by the heartbeat read: a worker that beat in between keeps its run.
    const res = await db().run.updateMany({
      where: { id: run.id, status: { in: STARTED_RUN_STATUSES }, heartbeatAt: { lt: cutoff } },
      data: {
        status: "CRASHED",
        endedAt: opts.now,
        statusMessage: clip(
          `no heartbeat from its train worker for ${silentS} s (last at ${run.heartbeatAt!.toISOString()}): the worker stopped`,
        ),
      },
    });
    if (res.count) crashed.push(run.id);
  }
  return crashed;
}

/** An external trainer's job reports RUNNING: its PENDING run starts. False when the run had left PENDING. */
export async function markExternalRunning(runId: string, now: Date, message: string): Promise<boolean> {
  const moved = await db().run.updateMany({
    where: { id: runId, status: "PENDING" },
    data: { status: "RUNNING", startedAt: now, statusMessage: clip(message) },
  });
  return moved.count > 0;
}

/** The statuses a run ends in. */
export type EndStatus = Exclude<RunStatus, "PENDING" | "RUNNING" | "PAUSED">;

/** A live run ends with `status`. False when it had already ended (a user stop won the race). */
export async function endRun(runId: string, status: EndStatus, message: string, now: Date): Promise<boolean> {
  const res = await db().run.updateMany({
    where: { id: runId, status: { in: LIVE_RUN_STATUSES } },
    data: { status, statusMessage: clip(message), endedAt: now },
  });
  return res.count > 0;
}

/** The supervisor shuts down and ends the trainer processes it owned: their live runs are CRASHED. */
export async function crashOwnedRuns(runIds: string[], message: string, now: Date): Promise<void> {
  if (!runIds.length) return;
  await db().run.updateMany({
    where: { id: { in: runIds }, status: { in: LIVE_RUN_STATUSES } },
    data: { status: "CRASHED", statusMessage: clip(message), endedAt: now },
  });
}

/** A live external run was launched as `jobId` (its status stays PENDING). False when it was stopped meanwhile. */
export async function recordLaunch(runId: string, jobId: string, message: string): Promise<boolean> {
  const res = await db().run.updateMany({
    where: { id: runId, status: "PENDING" },
    data: { externalJobId: jobId, statusMessage: clip(message) },
  });
  return res.count > 0;
}

/** What a live run is doing or waiting for (null clears it); an ended run keeps the message it ended with. */
export async function setRunMessage(runId: string, message: string | null): Promise<void> {
  await db().run.updateMany({
    where: { id: runId, status: { in: LIVE_RUN_STATUSES } },
    data: { statusMessage: message === null ? null : clip(message) },
  });
}
