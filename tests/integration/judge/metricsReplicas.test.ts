// Several judge workers, one metric series: each flush, one worker (the Redis lease holder) writes the
// judge/* points over its own samples and those the others handed it; the others write nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgmentsOf } from "./helpers";
import { deleteExperiments, makeExperiment } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { makeTurn } from "../../helpers/turns";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("judge-metrics-replicas");

const { enqueue, closeQueues } = await import("../../../server/platform/bus/queues");
const { db } = await import("../../../server/platform/db/client");
const { startJudgeWorker } = await import("../../../server/judge/worker/worker");

type Worker = ReturnType<typeof startJudgeWorker>;
let workers: Worker[] = [];
let exp: string;

beforeAll(async () => {
  exp = (await makeExperiment({ method: "grpo" })).id;
  // metricsIntervalMs 0: no flush loop, the test flushes by hand in a chosen order.
  const start = () =>
    startJudgeWorker({
      concurrency: 1,
      lockDurationMs: 5000,
      jobTimeoutMs: 60_000,
      sweepIntervalMs: 0,
      sweepMinAgeMs: 30_000,
      failedRetryAfterMs: 0,
      metricsIntervalMs: 0,
      experimentIds: [exp],
    });
  workers = [start(), start()];
});

afterAll(async () => {
  for (const w of workers) await w.close();
  await deleteExperiments();
  await closeQueues();
});

const points = () => db().metricPoint.findMany({ where: { experimentId: exp }, orderBy: { id: "asc" } });

describe("judge metrics from two workers", () => {
  it("form one series: the follower hands its samples over and writes nothing; the counts add up", async () => {
    const next = ["thanks, perfect", "no, that is wrong", "hmm", "ok", "great", "wrong again"];
    const ids: string[] = [];
    for (const content of next)
      ids.push(await makeTurn({ experimentId: exp, content: "answer", next: { role: "user", content } }));
    for (const id of ids) await enqueue("judgeTurn", { turnId: id, experimentId: exp }, id);
    for (const id of ids) await waitFor(`a judgment of ${id}`, async () => (await judgmentsOf(id))[0]);
    const [leader, follower] = workers as [Worker, Worker];

    await leader.flushMetrics(); // takes the lease, writes its own samples
    const afterLeader = (await points()).length;
    await follower.flushMetrics(); // lease taken: hands over, writes nothing
    expect((await points()).length).toBe(afterLeader);
    await leader.flushMetrics(); // writes the follower's samples too

    const all = await points();
    const sum = (name: string) => all.filter((p) => p.name === name).reduce((n, p) => n + p.value, 0);
    expect(sum("judge/score_pos") + sum("judge/score_neg") + sum("judge/score_zero")).toBe(ids.length);
    // At most one point per name per leader flush (two flushes), never one per worker on top.
    for (const name of new Set(all.map((p) => p.name)))
      expect(all.filter((p) => p.name === name).length).toBeLessThanOrEqual(2);
    expect(workers[0]!.totals.stored + workers[1]!.totals.stored).toBe(ids.length);
  });
});
