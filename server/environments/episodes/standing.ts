// The standing launch's top-up ("keep launching while training"): the episode worker's sweep calls it, and
// starting one calls it once at once. While its experiment has a live run (pending, running or paused: only
// steps recorded while a run is live train in it, docs/deploy-gpu.md), each active standing launch keeps up to
// `maxGroupsInFlight` GRPO groups (n episodes of one train task) queued or running; group k takes the pinned
// version's train task k mod (train tasks), in index order, so held-out tasks are never launched. The check
// and the launch run in one transaction holding the standing launch's row lock (SELECT … FOR UPDATE): two
// workers topping the same one up serialise, and the second counts the first's groups (read committed: each
// statement sees what committed before it), so the cap holds across processes.
import { enqueueMany } from "../../platform/bus/queues";
import { db } from "../../platform/db/client";
import { LIVE_RUN_STATUSES } from "../../platform/db/runStatus";
import { errorText } from "../../platform/errors";
import { jobIdOf } from "./jobs";

/** The id of standing launch `id`'s group number g (the group key is `<it>:<task key>`, like a launch's). */
export const standingGroupLaunchId = (id: string, g: number) => `${id}-${g}`;

type Client = Pick<ReturnType<typeof db>, "run">;

/** Whether the experiment has a run that may still train on what is launched now. */
export async function hasLiveRun(client: Client, experimentId: string): Promise<boolean> {
  return (await client.run.count({ where: { experimentId, status: { in: LIVE_RUN_STATUSES } } })) > 0;
}

/**
 * Launches what standing launch `id` lacks of its cap; stops it when its version holds no train task. Without a
 * live run it launches nothing (and stays active, for the next run).
 */
export async function topUpStandingLaunch(id: string): Promise<{ groups: number; episodes: number; stopped?: string }> {
  const out = await db().$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "standing_launches" WHERE "id" = ${id} AND "active" FOR UPDATE`;
    if (locked.length === 0) return { rows: [], groups: 0, stopped: undefined };
    const s = await tx.standingLaunch.findUniqueOrThrow({ where: { id } });
    const inFlight = await tx.episode.findMany({
      where: { standingLaunchId: id, status: { in: ["QUEUED", "RUNNING"] } },
      distinct: ["groupKey"],
      select: { groupKey: true },
    });
    const room = s.maxGroupsInFlight - inFlight.length;
    if (room <= 0 || !(await hasLiveRun(tx, s.experimentId))) return { rows: [], groups: 0, stopped: undefined };
    const tasks = await tx.task.findMany({
      where: { split: "train", setVersion: { setId: s.taskSetId, version: s.version } },
      orderBy: { index: "asc" },
      select: { id: true, key: true, index: true },
    });
    if (tasks.length === 0) {
      const stopped = `v${s.version} of its task set holds no train task`;
      await tx.standingLaunch.update({
        where: { id },
        data: { active: false, stoppedAt: new Date(), stopReason: stopped },
      });
      return { rows: [], groups: 0, stopped };
    }
    const rows = Array.from({ length: room }, (_, k) => {
      const g = s.groupsLaunched + k;
      const t = tasks[g % tasks.length]!;
      const launchId = standingGroupLaunchId(id, g);
      return Array.from({ length: s.n }, (_, i) => ({
        id: `${launchId}-${i}`,
        experimentId: s.experimentId,
        environmentId: s.environmentId,
        taskId: t.id,
        groupKey: `${launchId}:${t.key}`,
        sampleIndex: i,
        maxSteps: s.maxSteps,
        maxTokens: s.maxTokens,
        estimator: s.estimator,
        prm: s.prm,
        standingLaunchId: id,
      }));
    }).flat();
    await tx.episode.createMany({ data: rows });
    await tx.standingLaunch.update({ where: { id }, data: { groupsLaunched: s.groupsLaunched + room } });
    return { rows, groups: room, stopped: undefined };
  });
  // After the commit: a job lost between the two is re-enqueued by the sweeper (the job id is deterministic).
  await enqueueMany(
    "episode",
    out.rows.map((r) => ({ payload: { episodeId: r.id, experimentId: r.experimentId }, jobId: jobIdOf(r.id, 0) })),
  );
  return { groups: out.groups, episodes: out.rows.length, ...(out.stopped ? { stopped: out.stopped } : {}) };
}

/** Tops up every active standing launch (of these experiments); one launch's failure does not stop the rest. */
export async function topUpStandingLaunches(opts: {
  experimentIds?: readonly string[];
  log?: (...args: unknown[]) => void;
}) {
  const active = await db().standingLaunch.findMany({
    where: { active: true, ...(opts.experimentIds ? { experimentId: { in: [...opts.experimentIds] } } : {}) },
    select: { id: true },
    orderBy: { createdAt: "asc" },
  });
  let groups = 0;
  for (const { id } of active) {
    try {
      const r = await topUpStandingLaunch(id);
      groups += r.groups;
      if (r.stopped) opts.log?.(`standing launch ${id} stopped: ${r.stopped}`);
    } catch (err) {
      opts.log?.(`topping up standing launch ${id} failed: ${errorText(err)}`);
    }
  }
  return { groups };
}
