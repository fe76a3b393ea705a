// Runs as the API sees them: start a run (one live run per experiment), the user's stop/pause/resume, read
// and list. The status transitions themselves live in lifecycle.ts; the train worker drives embedded runs
// (start, heartbeat, CRASHED when the heartbeat goes stale) and the supervisor drives external ones.
import type { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import type { Run } from "../platform/db/generated/client";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";
import { serializable } from "../platform/db/serializable";
import { audit } from "../access/audit";
import { assertExperimentAccess, boundExperimentId, type Principal, actorUserId } from "../access/principal";
import { appError, notFound } from "../platform/errors";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import type { RunActionInput, RunListInput } from "../experiments/schemas";
import { authorizeRow, loadRunFor } from "../access/scope";
import { applyUserAction } from "./lifecycle";

export function runView(r: Run) {
  return {
    id: r.id,
    experimentId: r.experimentId,
    number: r.number,
    status: r.status,
    trainerBackend: r.trainerBackend,
    externalJobId: r.externalJobId,
    statusMessage: r.statusMessage,
    config: ExperimentConfigSchema.parse(r.config),
    createdAt: r.createdAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    endedAt: r.endedAt?.toISOString() ?? null,
    heartbeatAt: r.heartbeatAt?.toISOString() ?? null,
    lastStep: r.lastStep,
    rolloutUrl: r.rolloutUrl,
    rolloutUrlPrevious: r.rolloutUrlPrevious,
    rolloutUrlChangedAt: r.rolloutUrlChangedAt?.toISOString() ?? null,
  };
}

export async function startRun(p: Principal, experimentId: string) {
  assertExperimentAccess(p, experimentId);
  // Serializable so two concurrent starts cannot both see "no live run"; the loser is retried and then gets the 409.
  const run = await serializable(async (tx) => {
    const e = await tx.experiment.findUnique({ where: { id: experimentId } });
    if (!e) throw notFound("Experiment", experimentId);
    if (e.status === "ARCHIVED") throw appError("archived", "Archived experiments cannot start runs");
    const live = await tx.run.findFirst({ where: { experimentId, status: { in: LIVE_RUN_STATUSES } } });
    if (live)
      throw appError("run_in_progress", `Run #${live.number} is still ${live.status.toLowerCase()}: stop it first`);
    const last = await tx.run.findFirst({
      where: { experimentId },
      orderBy: { number: "desc" },
      select: { number: true },
    });
    const config = ExperimentConfigSchema.parse(e.config);
    const r = await tx.run.create({
      data: {
        experimentId,
        number: (last?.number ?? 0) + 1,
        config: config as unknown as Prisma.InputJsonValue,
        trainerBackend: config.trainer.backend,
        createdById: actorUserId(p),
      },
    });
    await audit(tx, p, "run.start", "run", r.id, null, {
      experimentId,
      number: r.number,
      trainerBackend: r.trainerBackend,
    });
    return r;
  });
  return runView(run);
}

export async function actOnRun(p: Principal, input: z.output<typeof RunActionInput>) {
  const run = await db().$transaction(async (tx) => {
    const before = authorizeRow(
      p,
      "Run",
      input.id,
      await tx.run.findUnique({ where: { id: input.id } }),
      (r) => r.experimentId,
    );
    const after = await applyUserAction(tx, before, input.action);
    await audit(tx, p, `run.${input.action}`, "run", after.id, { status: before.status }, { status: after.status });
    return after;
  });
  return runView(run);
}

export async function getRun(p: Principal, id: string) {
  const r = await loadRunFor(p, id);
  return runView(r);
}

export async function listRuns(p: Principal, input: z.output<typeof RunListInput>) {
  const bound = boundExperimentId(p);
  if (bound && input.experimentId && input.experimentId !== bound) assertExperimentAccess(p, input.experimentId);
  const experimentId = bound ?? input.experimentId;
  const rows = await db().run.findMany({
    where: experimentId ? { experimentId } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const hasMore = rows.length > input.limit;
  const items = rows.slice(0, input.limit).map(runView);
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}
