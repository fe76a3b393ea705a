// Which evaluations the scheduler queues: the base and every N-th version (newest first, a few per pass),
// never one already evaluated on the current set version; under gated promotion the served version and the
// newest candidates whatever their number.
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { closeQueues, queue } from "../../../server/platform/bus/queues";
import { createPersonaEvalSet } from "../../../server/evaluation/service";
import { scheduleEvaluations } from "../../../server/evaluation/schedule";
import { isolateRedis } from "../../helpers/isolate";
import { makeExperiment } from "../../helpers/fixtures";

isolateRedis("eval-schedule");
afterAll(() => closeQueues());

async function versions(experimentId: string, spec: [number, "ACTIVE" | "RETIRED" | "CANDIDATE"][]) {
  for (const [version, status] of spec)
    await db().policyVersion.create({
      data: { experimentId, version, status, checkpointPath: `/nowhere/v${version}`, runId: null },
    });
}

describe("evaluation scheduler", () => {
  it("queues the base and every N-th version, newest first, skipping evaluated ones", async () => {
    const e = await makeExperiment({ method: "grpo", evaluation: { enabled: true, every: 2 } });
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    await versions(e.id, [
      [1, "RETIRED"],
      [2, "RETIRED"],
      [3, "RETIRED"],
      [4, "RETIRED"],
      [5, "RETIRED"],
      [6, "ACTIVE"],
    ]);
    await db().evaluation.create({
      data: {
        experimentId: e.id,
        policyVersion: 6,
        setVersionId: set.setVersionId,
        status: "DONE",
        grader: "persona",
        graderVersion: "persona-v1",
      },
    });
    const r = await scheduleEvaluations({ experimentIds: [e.id] });
    expect(r.queued.map((q) => q.version)).toEqual([4, 2, 0]);
    const jobs = await queue("evaluate").getJobs(["waiting", "prioritized", "delayed"]);
    expect(
      jobs
        .filter((j) => j.data.experimentId === e.id)
        .map((j) => j.data.version)
        .sort(),
    ).toEqual([0, 2, 4]);
    // Queueing again is a no-op while the jobs exist.
    await scheduleEvaluations({ experimentIds: [e.id] });
    expect(
      (await queue("evaluate").getJobs(["waiting", "prioritized", "delayed"])).filter(
        (j) => j.data.experimentId === e.id,
      ),
    ).toHaveLength(3);
  });

  it("under gated promotion, queues the served version and the newest candidates whatever N is", async () => {
    const e = await makeExperiment({
      method: "grpo",
      serving: { promotion: "gated" },
      evaluation: { enabled: true, every: 10 },
    });
    await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    await versions(e.id, [
      [1, "ACTIVE"],
      [2, "CANDIDATE"],
      [3, "CANDIDATE"],
      [4, "CANDIDATE"],
    ]);
    const r = await scheduleEvaluations({ experimentIds: [e.id] });
    // three per pass: the base comes on a later pass
    expect(r.queued.map((q) => q.version)).toEqual([1, 4, 3]);
  });

  it("queues nothing without an eval set or with evaluation off", async () => {
    const noSet = await makeExperiment({ method: "grpo", evaluation: { enabled: true } });
    const off = await makeExperiment({ method: "grpo" });
    await createPersonaEvalSet(null, { experimentId: off.id, name: "held-out personas", personas: ["leo"] });
    expect((await scheduleEvaluations({ experimentIds: [noSet.id, off.id] })).queued).toEqual([]);
  });
});
