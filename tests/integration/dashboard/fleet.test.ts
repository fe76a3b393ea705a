// The Workers page's data: queue stats, judge backlog, live runs with their training backlog and GPU plan,
// and the latest gauges the workers publish.
import { afterAll, describe, expect, it } from "vitest";
import { isolateRedis } from "../../helpers/isolate";
import { db } from "../../../server/platform/db/client";
import { closeQueues, consume, enqueue, queue } from "../../../server/platform/bus/queues";
import { fleetOverview } from "../../../server/metrics/fleet";
import type { Principal } from "../../../server/access/principal";
import { seedJudgment } from "../../helpers/judgments";
import { seedSession } from "./seed";
import { makeExperiment } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";

// This file runs queue workers that fail every job: its own queue namespace keeps them off other files' jobs.
isolateRedis("fleet");

const reader: Principal = {
  kind: "apiKey",
  keyId: "k",
  prefix: "p",
  scopes: ["read"],
  experimentId: null,
  runId: null,
  createdById: null,
};

afterAll(() => closeQueues());

describe("fleet overview", () => {
  it("reports judge backlog, a live run's batch fill and GPU plan, and fresh gauges", async () => {
    const config = {
      method: "grpo" as const,
      policy: { kind: "sglang" as const, baseUrl: "http://127.0.0.1:30001/v1", model: "policy" },
      trainer: {
        backend: "ray-slime" as const,
        rayAddress: "http://127.0.0.1:8265",
        gpu: { nodes: 1, gpusPerNode: 8, actorGpus: 4, rolloutGpus: 2, prmGpus: 2 },
      },
      hyper: { batchSize: 8 },
    };
    const exp = await makeExperiment(config);
    const run = await db().run.create({
      data: {
        experimentId: exp.id,
        number: 1,
        config: exp.config ?? {},
        status: "RUNNING",
        trainerBackend: "ray-slime",
        startedAt: new Date(),
      },
    });
    const { turns } = await seedSession(exp.id, [
      { user: "a", reply: "b" },
      { user: "c", reply: "d" },
      { user: "e", reply: "f" },
    ]);
    // Turns 0 and 1 have next states; 0 is judged, 1 waits for the judge; 2 has none (session open).
    await seedJudgment(turns[0]!.id, { score: 1, votes: [1] });
    await db().sample.createMany({
      data: [
        { runId: run.id, turnId: turns[0]!.id, kind: "RL", reward: 1, labelSource: "JUDGE" },
        { runId: run.id, turnId: turns[1]!.id, kind: "RL", reward: -1, labelSource: "JUDGE" },
        {
          runId: run.id,
          turnId: turns[2]!.id,
          kind: "RL",
          reward: 0,
          labelSource: "JUDGE",
          excluded: true,
          excludeReason: "zero_score",
        },
      ],
    });
    await db().metricPoint.create({ data: { experimentId: exp.id, name: "proxy/buffer_depth", value: 7 } });
    await db().metricPoint.create({ data: { experimentId: exp.id, name: "proxy/requests_per_s", value: 3 } });

    // Two judge jobs wait in this file's own queue namespace (no consumer runs yet); every other queue is empty.
    await enqueue("judgeTurn", { turnId: turns[0]!.id, experimentId: exp.id }, `w-${turns[0]!.id}`);
    await enqueue("judgeTurn", { turnId: turns[1]!.id, experimentId: exp.id }, `w-${turns[1]!.id}`);

    const f = await fleetOverview(reader);
    expect(f.queues.map((q) => q.name)).toContain("judge-turn");
    for (const q of f.queues) expect([q.name, q.waiting]).toEqual([q.name, q.name === "judge-turn" ? 2 : 0]);
    await queue("judgeTurn").drain(); // the next test's failing consumer must not take them
    // Turn 1 is ready (next state arrived) and unjudged under the experiment's judge version; so is turn 0,
    // whose seeded judgment carries another version.
    expect(f.backlogs.find((b) => b.experimentId === exp.id)).toMatchObject({ judgeDepth: 2 });
    const live = f.runs.find((r) => r.id === run.id)!;
    expect(live).toMatchObject({
      pendingSamples: 2,
      batchSize: 8,
      trainerBackend: "ray-slime",
      gpu: { actorGpus: 4, rolloutGpus: 2, prmGpus: 2 },
    });
    expect(live.gpuSummary).toContain("actor 4");
    const gauges = f.gauges.filter((g) => g.experimentId === exp.id);
    expect(gauges.map((g) => [g.name, g.value])).toEqual([["proxy/buffer_depth", 7]]);
  });

  it("names the last error of retried and failed jobs, and puts a retried judge job's reason on its backlog row", async () => {
    const exp = await makeExperiment({ method: "grpo" });
    const other = await makeExperiment({ method: "grpo" });
    const { turns } = await seedSession(exp.id, [
      { user: "a", reply: "b" },
      { user: "c", reply: "d" },
    ]);
    const worker = consume("judgeTurn", async () => {
      throw new Error("judge endpoint http://127.0.0.1:1/v1 refused the connection");
    });
    const evalWorker = consume("evaluate", async () => {
      throw new Error("eval set version gone");
    });
    try {
      await enqueue("judgeTurn", { turnId: turns[0]!.id, experimentId: exp.id }, turns[0]!.id);
      // One attempt only, so it ends in BullMQ's failed state rather than retrying.
      await queue("evaluate").add(
        "evaluate",
        { experimentId: exp.id, version: 1, setVersionId: "sv", target: "evalSet" },
        { jobId: `e-${exp.id}`, attempts: 1 },
      );
      const problems = async () => (await fleetOverview(reader)).problems.filter((j) => j.experimentId === exp.id);
      await waitFor("both jobs to have failed once", async () => (await problems()).length === 2);
      const f = await fleetOverview(reader);
      const mine = f.problems.filter((j) => j.experimentId === exp.id);
      const judgeJob = mine.find((j) => j.queue === "judge-turn");
      // Retrying with backoff: by the time it is read a loaded machine may have made the second attempt too.
      expect(judgeJob?.attemptsMade).toBeGreaterThanOrEqual(1);
      expect(judgeJob?.attemptsMade).toBeLessThan(8);
      expect(judgeJob).toMatchObject({
        jobId: turns[0]!.id,
        state: "retrying",
        attempts: 8,
        experimentName: exp.name,
        reason: "judge endpoint http://127.0.0.1:1/v1 refused the connection",
      });
      // The stack is for administrators only; a reader sees the reason.
      expect(mine.find((j) => j.queue === "judge-turn")!.stack).toBeNull();
      const asAdmin = (await fleetOverview({ ...reader, scopes: ["admin"] })).problems;
      expect(asAdmin.find((j) => j.experimentId === exp.id && j.queue === "judge-turn")!.stack).toContain(
        "refused the connection",
      );
      expect(mine.find((j) => j.queue === "evaluate")).toMatchObject({
        state: "failed",
        attemptsMade: 1,
        attempts: 1,
        reason: "eval set version gone",
      });
      expect(f.backlogs.find((b) => b.experimentId === exp.id)?.lastError).toBe(
        "judge endpoint http://127.0.0.1:1/v1 refused the connection",
      );
      // A key bound to another experiment does not see this one's errors.
      const bound: Principal = { ...reader, experimentId: other.id };
      expect((await fleetOverview(bound)).problems).toEqual([]);
    } finally {
      await Promise.all([worker.close(), evalWorker.close()]);
    }
  });
});
