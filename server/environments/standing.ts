// Standing launches for tRPC and REST: start one (checked like a launch, over the train split only), stop it,
// list an experiment's with their groups in flight. The worker side, the top-up, is episodes/standing.ts.
// A standing launch stays active until stopped (or its environment or task set is deleted), and launches only
// while its experiment has a live run — the embedded trainer, or a slime track job with driver "console" —
// because only steps recorded while a run is live train in it: between runs it waits, launching nothing.
import type { z } from "zod";
import { audit } from "../access/audit";
import type { Principal } from "../access/principal";
import { authorizeRow, loadExperimentFor } from "../access/scope";
import { db } from "../platform/db/client";
import { badRequest, conflict, notFound } from "../platform/errors";
import { assertFits } from "./episodes/runner";
import { hasLiveRun, topUpStandingLaunch } from "./episodes/standing";
import type { StandingLaunchListInput, StandingLaunchStartInput, StandingLaunchStopInput } from "./schemas";
import { loadVersion } from "./service";
import { taskSpecSchema } from "./tasks/spec";

type In<T extends z.ZodType> = z.output<T>;
type Row = Awaited<ReturnType<ReturnType<typeof db>["standingLaunch"]["findUniqueOrThrow"]>>;

/** Groups with a member queued or running, per standing launch. */
async function inFlightOf(ids: string[]): Promise<Map<string, number>> {
  const groups = await db().episode.findMany({
    where: { standingLaunchId: { in: ids }, status: { in: ["QUEUED", "RUNNING"] } },
    distinct: ["groupKey"],
    select: { standingLaunchId: true },
  });
  const counts = new Map<string, number>();
  for (const g of groups) counts.set(g.standingLaunchId!, (counts.get(g.standingLaunchId!) ?? 0) + 1);
  return counts;
}

/** A row as the API shows it: its groups in flight, and whether it waits for a live run to launch. */
const shown = (r: Row, counts: Map<string, number>, live: boolean) => ({
  ...r,
  groupsInFlight: counts.get(r.id) ?? 0,
  waitingForRun: r.active && !live,
});

export async function startStandingLaunch(p: Principal, input: In<typeof StandingLaunchStartInput>) {
  const { set, sv } = await loadVersion(p, input.taskSetId, input.version);
  const env = await db().environment.findUnique({ where: { id: input.environmentId } });
  if (!env || env.experimentId !== set.experimentId) throw notFound("Environment", input.environmentId);
  const tasks = await db().task.findMany({ where: { setVersionId: sv.id, split: "train" } });
  if (tasks.length === 0) throw badRequest(`The train split of ${set.name} v${sv.version} holds no task`);
  for (const t of tasks) assertFits(env, taskSpecSchema.parse(t.spec), t.key);

  const row = await db().$transaction(async (tx) => {
    // One active standing launch per environment and task set: a second would double the load unasked.
    const running = await tx.standingLaunch.findFirst({
      where: { environmentId: env.id, taskSetId: set.id, active: true },
    });
    if (running)
      throw conflict(`Standing launch ${running.id} already keeps ${set.name} running in ${env.name}: stop it first`);
    const created = await tx.standingLaunch.create({
      data: {
        experimentId: set.experimentId,
        environmentId: env.id,
        taskSetId: set.id,
        version: sv.version,
        n: input.n,
        maxSteps: input.maxSteps,
        maxTokens: input.maxTokens ?? null,
        estimator: input.estimator,
        prm: input.prm,
        maxGroupsInFlight: input.maxGroupsInFlight,
      },
    });
    await audit(tx, p, "standingLaunch.start", "standingLaunch", created.id, null, created);
    return created;
  });
  // The first groups now rather than at the worker's next sweep.
  await topUpStandingLaunch(row.id);
  const fresh = await db().standingLaunch.findUniqueOrThrow({ where: { id: row.id } });
  return shown(fresh, await inFlightOf([row.id]), await hasLiveRun(db(), fresh.experimentId));
}

/** Stops launching (idempotent); the groups already queued or running finish and train as usual. */
export async function stopStandingLaunch(p: Principal, input: In<typeof StandingLaunchStopInput>) {
  const row = authorizeRow(
    p,
    "Standing launch",
    input.id,
    await db().standingLaunch.findUnique({ where: { id: input.id } }),
    (r) => r.experimentId,
  );
  const who = p.kind === "user" ? p.email : `key ${p.prefix}`;
  await db().$transaction(async (tx) => {
    // Conditional, so a stop racing the top-up's row lock waits for it and then wins.
    const r = await tx.standingLaunch.updateMany({
      where: { id: row.id, active: true },
      data: { active: false, stoppedAt: new Date(), stopReason: `stopped by ${who}` },
    });
    if (r.count)
      await audit(tx, p, "standingLaunch.stop", "standingLaunch", row.id, { active: true }, { active: false });
  });
  const fresh = await db().standingLaunch.findUniqueOrThrow({ where: { id: row.id } });
  return shown(fresh, await inFlightOf([row.id]), await hasLiveRun(db(), fresh.experimentId));
}

export async function listStandingLaunches(p: Principal, input: In<typeof StandingLaunchListInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  const rows = await db().standingLaunch.findMany({
    where: { experimentId: e.id },
    orderBy: { createdAt: "desc" },
    take: 100,
  });
  const counts = await inFlightOf(rows.map((r) => r.id));
  const live = await hasLiveRun(db(), e.id);
  return rows.map((r) => shown(r, counts, live));
}
