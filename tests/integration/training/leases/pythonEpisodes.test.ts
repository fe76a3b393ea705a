// The slime rollout function's episode path (integrations/slime/episodes.py, OPENCLAW_LEASE_UNIT=episodes)
// against the running API: four finished GRPO groups of an environment experiment are stored as the
// episode worker leaves them, the Python suite leases them in two rollouts of two groups and acknowledges
// both, and the database then holds two training steps that trained every step of every DONE member once.
import { afterAll, beforeAll, expect, it } from "vitest";
import { db } from "../../../../server/platform/db/client";
import { EnvironmentCreateInput } from "../../../../server/environments/schemas";
import { createEnvironment } from "../../../../server/environments/service";
import { startApiServer } from "../../../helpers/apiServer";
import { examplesTaskSet } from "../../../helpers/environments";
import { ADMIN, makeExperiment, makeRun } from "../../../helpers/fixtures";
import { makeEpisodeGroup, runSlimePython, SLIME_EXPERIMENT, trainerKey } from "./helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

it("leases finished episode groups from Python, converts them for step_wise, and trains each step once", async () => {
  const e = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
  const run = await makeRun(e.id);
  const env = await createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: e.id, name: "terminal" }));
  const { taskId } = await examplesTaskSet(e.id);
  const task = taskId("examples/count-errors");
  const groups = [
    await makeEpisodeGroup(e.id, run.id, env.id, task, [
      { outcome: 1, prm: [0.5, null] },
      { outcome: 0, prm: [null] },
    ]),
    await makeEpisodeGroup(e.id, run.id, env.id, task, [
      { outcome: 1, prm: [null] },
      { status: "FAILED", outcome: 0, prm: [null] },
    ]),
    await makeEpisodeGroup(e.id, run.id, env.id, task, [
      { outcome: 1, prm: [null] },
      { outcome: 1, prm: [null] },
    ]),
    await makeEpisodeGroup(e.id, run.id, env.id, task, [
      { outcome: 0, prm: [null, null] },
      { outcome: 1, prm: [null] },
    ]),
  ];
  // advantagesAt orders the groups: written in the order above.
  for (const [i, g] of groups.entries())
    await db().episode.updateMany({
      where: { groupKey: g.groupKey },
      data: { advantagesAt: new Date(Date.UTC(2026, 0, 1, 0, i)) },
    });

  const { code, output } = await runSlimePython(
    {
      CONTROL_PLANE_URL: server.url,
      CONTROL_PLANE_API_KEY: await trainerKey(e.id),
      RUN_ID: run.id,
    },
    "episodes_api.py",
  );
  expect(code, output).toBe(0);
  expect(output).not.toMatch(/skipped/);

  const steps = await db().trainingStep.findMany({
    where: { runId: run.id },
    include: { samples: { select: { turnId: true } } },
    orderBy: { step: "asc" },
  });
  const turnsOf = (gs: typeof groups) => gs.flatMap((g) => g.episodes.flatMap((ep) => ep.turnIds));
  const failedTurn = groups[1]!.episodes[1]!.turnIds[0]!;
  expect(steps.map((s) => s.step)).toEqual([1, 2]);
  expect(new Set(steps[0]!.samples.map((s) => s.turnId))).toEqual(
    new Set(turnsOf(groups.slice(0, 2)).filter((t) => t !== failedTurn)),
  );
  expect(new Set(steps[1]!.samples.map((s) => s.turnId))).toEqual(new Set(turnsOf(groups.slice(2))));
  // The FAILED member's turn never trains; the dashboard still has it as a recorded turn.
  expect(
    await db().sample.findFirst({ where: { runId: run.id, turnId: failedTurn, stepId: { not: null } } }),
  ).toBeNull();
  const reward = await db().metricPoint.findMany({
    where: { runId: run.id, name: "rollout/raw_reward" },
    orderBy: { step: "asc" },
  });
  expect(reward.map((p) => [p.step, p.value])).toEqual([
    [1, 2 / 3],
    [2, 0.75],
  ]);
});
