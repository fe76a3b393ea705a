// The slime integration's Python tests (integrations/slime/tests, `python3 -m unittest`) against the running
// API: this starts it, prepares a run with judged turns and an experiment-bound trainer key, runs the suite
// with the job's environment, then checks what the module did in the database.
import { afterAll, beforeAll, expect, it } from "vitest";
import { db } from "../../../../server/platform/db/client";
import { startApiServer } from "../../../helpers/apiServer";
import { ADMIN, makeExperiment, makeRun } from "../../../helpers/fixtures";
import { makeJudgedSession, runSlimePython, SLIME_EXPERIMENT, trainerKey } from "./helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

it("passes python3 -m unittest against the running API, training each leased sample once", async () => {
  const e = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
  const run = await makeRun(e.id);
  // 1 (client) + 2 (lease book) + 6 (three rollouts of 2) + 2 (a fenced lease and one still held) samples.
  await makeJudgedSession(e.id, run.id, 11);
  const { code, output } = await runSlimePython({
    CONTROL_PLANE_URL: server.url,
    CONTROL_PLANE_API_KEY: await trainerKey(e.id),
    RUN_ID: run.id,
  });
  expect(code, output).toBe(0);
  expect(output).not.toMatch(/skipped/);

  const steps = await db().trainingStep.findMany({
    where: { runId: run.id },
    include: { samples: { select: { id: true } } },
    orderBy: { step: "asc" },
  });
  // rollout 0 → step 1 (two samples), the restarted lease book's rollout 10 → step 11, the lease held next to
  // a fenced one (whose 409 dropped it) → step 32, the client's step 1000.
  expect(steps.map((s) => [s.step, s.samples.length])).toEqual([
    [1, 2],
    [11, 1],
    [32, 1],
    [1000, 1],
  ]);
  expect(steps[3]!.metrics).toEqual({ "train/loss": 0.5, weight_version: 7 });
  const stored = await db().run.findUniqueOrThrow({ where: { id: run.id } });
  expect(stored.rolloutUrl).toBe("http://127.0.0.1:30000/v1");
  expect(stored.heartbeatAt).not.toBeNull();
  // Rollout metrics reported for the steps that will train them.
  const reward = await db().metricPoint.findMany({
    where: { runId: run.id, name: "rollout/raw_reward" },
    orderBy: { step: "asc" },
  });
  expect(reward.map((p) => [p.step, p.value])).toEqual([
    [1, 1],
    [2, 1],
    [3, 1],
  ]);
  const trained = await db().sample.count({ where: { runId: run.id, stepId: { not: null } } });
  expect(trained).toBe(5);
});
