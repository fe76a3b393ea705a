// Standing launches on real Postgres and Redis: the top-up fills up to the cap of groups in flight and no
// further, only while the experiment has a live run, takes the train tasks round-robin and never a held-out
// one, refills as groups end, stops when stopped (or when its task set is deleted), and two concurrent top-ups
// (separate connections' transactions) never exceed the cap. No worker consumes the jobs here: episodes are
// ended by hand.
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { AppError } from "../../../server/platform/errors";
import { topUpStandingLaunch, topUpStandingLaunches } from "../../../server/environments/episodes/standing";
import {
  EnvironmentCreateInput,
  StandingLaunchStartInput,
  TaskSetImportInput,
} from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet } from "../../../server/environments/service";
import { listStandingLaunches, startStandingLaunch, stopStandingLaunch } from "../../../server/environments/standing";
import { ADMIN, deleteExperiments, makeExperiment, makeRun } from "../../helpers/fixtures";

afterAll(() => deleteExperiments());

const TASKS = 12;
const jsonl = Array.from({ length: TASKS }, (_, i) =>
  JSON.stringify({
    id: `t${String(i).padStart(2, "0")}`,
    prompt: `What is ${i} + 1?`,
    answer: String(i + 1),
    tools: ["calc"],
  }),
).join("\n");

async function setup(maxGroupsInFlight: number, n = 2, live = true) {
  const e = await makeExperiment();
  if (live) await makeRun(e.id);
  const env = await createEnvironment(
    ADMIN,
    EnvironmentCreateInput.parse({ experiment: e.id, name: "tools", tools: ["calc"] }),
  );
  const set = await importTaskSet(
    ADMIN,
    TaskSetImportInput.parse({ experiment: e.id, name: "s", format: "jsonl", text: jsonl, heldOutFraction: 0.4 }),
  );
  const tasks = await db().task.findMany({ where: { setVersion: { setId: set.id } }, orderBy: { index: "asc" } });
  const train = tasks.filter((t) => t.split === "train").map((t) => t.key);
  const heldout = tasks.filter((t) => t.split === "heldout").map((t) => t.key);
  const input = StandingLaunchStartInput.parse({
    environmentId: env.id,
    taskSetId: set.id,
    n,
    maxGroupsInFlight,
  });
  return { e, env, set, train, heldout, input };
}

/** The standing launch's groups, oldest first: [group number, task key, member statuses]. */
async function groupsOf(id: string) {
  const eps = await db().episode.findMany({ where: { standingLaunchId: id }, include: { task: true } });
  const byGroup = new Map<string, { g: number; key: string; split: string; size: number }>();
  for (const ep of eps) {
    const g = Number(ep.groupKey!.slice(id.length + 1).split(":")[0]);
    const got = byGroup.get(ep.groupKey!) ?? { g, key: ep.task.key, split: ep.task.split, size: 0 };
    got.size++;
    byGroup.set(ep.groupKey!, got);
  }
  return [...byGroup.values()].sort((a, b) => a.g - b.g);
}

const inFlight = async (id: string) =>
  new Set(
    (
      await db().episode.findMany({
        where: { standingLaunchId: id, status: { in: ["QUEUED", "RUNNING"] } },
        select: { groupKey: true },
      })
    ).map((r) => r.groupKey),
  ).size;

/** Ends every member of the oldest `count` groups still in flight. */
async function endGroups(id: string, count: number) {
  const eps = await db().episode.findMany({
    where: { standingLaunchId: id, status: { in: ["QUEUED", "RUNNING"] } },
    select: { groupKey: true },
    orderBy: { createdAt: "asc" },
  });
  const keys = [...new Set(eps.map((r) => r.groupKey!))]
    .sort((a, b) => Number(a.slice(id.length + 1).split(":")[0]) - Number(b.slice(id.length + 1).split(":")[0]))
    .slice(0, count);
  await db().episode.updateMany({
    where: { groupKey: { in: keys } },
    data: { status: "DONE", outcome: 1, finishedAt: new Date() },
  });
}

describe("standing launches", () => {
  it("fills up to the cap while a run is live, round-robin over the train split only, refilling as groups end", async () => {
    const { e, train, heldout, input } = await setup(5, 2, false);
    expect(train.length).toBeGreaterThan(0);
    expect(heldout.length).toBeGreaterThan(0);
    // No live run: it waits, launching nothing.
    const waiting = await startStandingLaunch(ADMIN, input);
    expect(waiting).toMatchObject({ active: true, groupsLaunched: 0, groupsInFlight: 0, waitingForRun: true });
    expect(await topUpStandingLaunch(waiting.id)).toEqual({ groups: 0, episodes: 0 });
    const run = await makeRun(e.id);
    expect(await topUpStandingLaunch(waiting.id)).toEqual({ groups: 5, episodes: 10 });
    const s = (await listStandingLaunches(ADMIN, { experiment: e.id }))[0]!;
    expect(s).toMatchObject({ active: true, groupsLaunched: 5, groupsInFlight: 5, version: 1, waitingForRun: false });

    // At the cap, a top-up launches nothing.
    expect(await topUpStandingLaunch(s.id)).toEqual({ groups: 0, episodes: 0 });
    expect(await inFlight(s.id)).toBe(5);

    // Two groups end: exactly two more, continuing the order.
    await endGroups(s.id, 2);
    expect(await topUpStandingLaunch(s.id)).toEqual({ groups: 2, episodes: 4 });
    expect(await inFlight(s.id)).toBe(5);

    // Around the train split more than once: group g is train task g mod (train tasks), never held out.
    for (let i = 0; i < 3; i++) {
      await endGroups(s.id, 5);
      await topUpStandingLaunch(s.id);
    }
    const groups = await groupsOf(s.id);
    expect(groups.length).toBe(22);
    expect(groups.length).toBeGreaterThan(train.length);
    expect(groups.map((g) => g.key)).toEqual(groups.map((_, g) => train[g % train.length]));
    expect(groups.every((g) => g.split === "train" && g.size === 2)).toBe(true);
    expect(groups.some((g) => heldout.includes(g.key))).toBe(false);

    const [listed] = await listStandingLaunches(ADMIN, { experiment: s.experimentId });
    expect(listed).toMatchObject({ id: s.id, groupsLaunched: 22, groupsInFlight: 5 });

    // The run ends: groups that end are not replaced until the next run.
    await db().run.update({ where: { id: run.id }, data: { status: "FINISHED", endedAt: new Date() } });
    await endGroups(s.id, 5);
    expect(await topUpStandingLaunch(s.id)).toEqual({ groups: 0, episodes: 0 });
    expect((await listStandingLaunches(ADMIN, { experiment: e.id }))[0]).toMatchObject({
      active: true,
      groupsLaunched: 22,
      waitingForRun: true,
    });
  });

  it("stops launching once stopped; the groups in flight stay; a second start for the pair is a conflict", async () => {
    const { input } = await setup(3);
    const s = await startStandingLaunch(ADMIN, input);
    const again = await startStandingLaunch(ADMIN, input).catch((err: unknown) => err);
    expect(again).toBeInstanceOf(AppError);
    expect((again as AppError).code).toBe("CONFLICT");

    const stopped = await stopStandingLaunch(ADMIN, { id: s.id });
    expect(stopped).toMatchObject({ active: false, groupsLaunched: 3, groupsInFlight: 3 });
    expect(stopped.stopReason).toMatch(/^stopped by /);
    await endGroups(s.id, 3);
    expect(await topUpStandingLaunch(s.id)).toEqual({ groups: 0, episodes: 0 });
    await topUpStandingLaunches({ experimentIds: [s.experimentId] });
    expect((await groupsOf(s.id)).length).toBe(3);
    // Stopping twice is a no-op; starting anew is allowed once the first is stopped.
    expect(await stopStandingLaunch(ADMIN, { id: s.id })).toMatchObject({ active: false });
    const next = await startStandingLaunch(ADMIN, input);
    expect(next).toMatchObject({ active: true, groupsLaunched: 3 });
  });

  it("two concurrent top-ups never exceed the cap", async () => {
    const { set, input } = await setup(4);
    const s = await startStandingLaunch(ADMIN, input);
    for (let round = 0; round < 5; round++) {
      await endGroups(s.id, 3);
      const results = await Promise.all([topUpStandingLaunch(s.id), topUpStandingLaunch(s.id)]);
      // Between them exactly the three that ended, however the row lock ordered them.
      expect(results.reduce((a, r) => a + r.groups, 0)).toBe(3);
      expect(await inFlight(s.id)).toBe(4);
    }
    const groups = await groupsOf(s.id);
    expect(groups.map((g) => g.g)).toEqual(groups.map((_, i) => i));
    expect((await db().standingLaunch.findUniqueOrThrow({ where: { id: s.id } })).groupsLaunched).toBe(19);

    // Its task set gone, the standing launch is gone with it: nothing left to top up.
    await db().taskSet.delete({ where: { id: set.id } });
    expect(await db().standingLaunch.findUnique({ where: { id: s.id } })).toBeNull();
    expect(await topUpStandingLaunch(s.id)).toEqual({ groups: 0, episodes: 0 });
  });

  it("refuses a start the launch would refuse: no train task, too many episodes in flight", async () => {
    const { e, env } = await setup(1);
    const allHeld = await importTaskSet(
      ADMIN,
      TaskSetImportInput.parse({ experiment: e.id, name: "held", format: "jsonl", text: jsonl, heldOutFraction: 0 }),
    );
    await db().task.updateMany({ where: { setVersion: { setId: allHeld.id } }, data: { split: "heldout" } });
    const err = await startStandingLaunch(
      ADMIN,
      StandingLaunchStartInput.parse({ environmentId: env.id, taskSetId: allHeld.id }),
    ).catch((x: unknown) => x);
    expect((err as AppError).code).toBe("BAD_REQUEST");
    expect(
      StandingLaunchStartInput.safeParse({ environmentId: env.id, taskSetId: allHeld.id, n: 64, maxGroupsInFlight: 64 })
        .success,
    ).toBe(false);
  });
});
