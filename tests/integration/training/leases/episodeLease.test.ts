// Episode leases (server/training/leases/episodes.ts): a slime job of an environment experiment leases finished
// GRPO groups — every DONE member's steps with their turns and step scores — and acknowledges them as batches.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../../server/platform/db/client";
import { EnvironmentCreateInput } from "../../../../server/environments/schemas";
import { createEnvironment } from "../../../../server/environments/service";
import { collectRunSamples } from "../../../../server/training/leases/fill";
import { leaseEpisodeGroups } from "../../../../server/training/leases/episodes";
import { EpisodeLeaseInput } from "../../../../server/training/leases/schemas";
import { ackBatch, leaseBatch } from "../../../../server/training/leases/service";
import { examplesTaskSet } from "../../../helpers/environments";
import { startApiServer } from "../../../helpers/apiServer";
import { ADMIN, api, makeExperiment, makeKey, makeRun } from "../../../helpers/fixtures";
import { makeEpisodeGroup, SLIME_EXPERIMENT, trainerKey } from "./helpers";

const lease = (runId: string, input: Record<string, unknown>) =>
  leaseEpisodeGroups(ADMIN, runId, EpisodeLeaseInput.parse(input), { fill: collectRunSamples });

async function setup() {
  const e = await makeExperiment(SLIME_EXPERIMENT);
  const run = await makeRun(e.id);
  const env = await createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: e.id, name: "terminal" }));
  const tasks = await examplesTaskSet(e.id);
  return { e, run, env, taskId: tasks.taskId };
}
let s: Awaited<ReturnType<typeof setup>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  s = await setup();
  server = await startApiServer();
});
afterAll(() => server?.close());

describe("episode leases", () => {
  it("hands out ready groups whole: DONE members' steps in order, step scores, failed members counted", async () => {
    const { e, run, env, taskId } = await setup();
    const g = await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/count-errors"), [
      { outcome: 1, prm: [0.5, null] },
      { outcome: 0, prm: [null] },
      { status: "FAILED", outcome: 0, prm: [0.2] },
    ]);
    // Not ready: advantages not written yet (a member still runs). Held out: never trains.
    await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/sort-names"), [{ outcome: 1, prm: [null] }], {
      ready: false,
    });
    const heldOut = taskId("examples/make-tree");
    await db().task.update({ where: { id: heldOut }, data: { split: "heldout" } });
    await makeEpisodeGroup(e.id, run.id, env.id, heldOut, [{ outcome: 1, prm: [null] }]);

    const res = await lease(run.id, { groups: 4 });
    expect(res.leaseId).not.toBeNull();
    expect(res.available).toBe(0);
    expect(res.groups).toHaveLength(1);
    const [group] = res.groups;
    expect(group).toMatchObject({ groupKey: g.groupKey, taskKey: "examples/count-errors", failed: 1 });
    expect(group!.episodes.map((ep) => ep.episodeId)).toEqual([g.episodes[0]!.id, g.episodes[1]!.id]);
    const [first, second] = group!.episodes;
    expect(first!.steps.map((st) => [st.index, st.prmScore, st.score])).toEqual([
      [0, 0.5, 0.5],
      [1, null, 1],
    ]);
    expect(second!.steps.map((st) => st.score)).toEqual([0]);
    // Each step carries its turn as the sample lease does: the prompt as served, tokens and log-probs.
    const step1 = first!.steps[1]!.sample;
    expect(step1.turnId).toBe(g.episodes[0]!.turnIds[1]);
    expect(step1.messages).toEqual([
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: `task ${taskId("examples/count-errors")}` },
      { role: "assistant", content: "cmd 0.0" },
      { role: "tool", content: "out 0.0" },
    ]);
    expect(step1.responseTokenIds).toEqual([11, 21]);
    expect(step1.rolloutLogprobs).toEqual([-0.5, -0.25]);
  });

  it("holds nothing below minGroups, renews on a retried key, trains each step once on acknowledgement", async () => {
    const { e, run, env, taskId } = await setup();
    const a = await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/count-errors"), [
      { outcome: 1, prm: [null, null] },
      { outcome: 0, prm: [null] },
    ]);
    const b = await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/sort-names"), [
      { outcome: 1, prm: [null] },
      { outcome: 1, prm: [null] },
    ]);
    expect(await lease(run.id, { groups: 3, minGroups: 3 })).toMatchObject({ leaseId: null, groups: [], available: 2 });

    const first = await lease(run.id, { groups: 1, requestKey: "job:0" });
    expect(first.groups.map((g) => g.groupKey)).toEqual([a.groupKey]);
    expect(first.available).toBe(1);
    const again = await lease(run.id, { groups: 1, requestKey: "job:0" });
    expect(again.leaseId).toBe(first.leaseId);
    expect(again.groups).toEqual(first.groups);

    const second = await lease(run.id, { groups: 2 });
    expect(second.groups.map((g) => g.groupKey)).toEqual([b.groupKey]);
    expect(await lease(run.id, { groups: 1 })).toMatchObject({ leaseId: null, available: 0 });

    const ack = await ackBatch(ADMIN, run.id, first.leaseId!, { step: 1, metrics: {} });
    expect(ack).toMatchObject({ trainedSamples: 3, lostSamples: 0 });
    const trained = await db().sample.findMany({ where: { runId: run.id, stepId: { not: null } } });
    expect(new Set(trained.map((t) => t.turnId))).toEqual(new Set(a.episodes.flatMap((ep) => ep.turnIds)));

    // An expired, unacknowledged lease lets its group go again; a trained group never comes back.
    await db().batchLease.update({ where: { id: second.leaseId! }, data: { expiresAt: new Date(0) } });
    const retaken = await lease(run.id, { groups: 2 });
    expect(retaken.groups.map((g) => g.groupKey)).toEqual([b.groupKey]);
    expect(retaken.groups[0]!.episodes[0]!.steps[0]!.sample.attempt).toBe(2);
  });

  it("shares the Sample rows with the sample lease: what an episode lease holds, a sample lease cannot take", async () => {
    const { e, run, env, taskId } = await setup();
    await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/count-errors"), [
      { outcome: 1, prm: [null] },
      { outcome: 0, prm: [null] },
    ]);
    const held = await lease(run.id, { groups: 1 });
    expect(held.groups).toHaveLength(1);
    const plain = await leaseBatch(ADMIN, run.id, { size: 10, minSize: 1, leaseSeconds: 60 });
    expect(plain.leaseId).toBeNull();
  });

  it("refuses the embedded trainer's runs as the sample lease does", async () => {
    const emb = await makeRun(s.e.id, { trainerBackend: "embedded" });
    await expect(lease(emb.id, { groups: 1 })).rejects.toMatchObject({ reason: "not_leasable" });
  });

  it("over REST: a trainer key of the run's experiment leases and acknowledges; bad input is a 400, others are refused", async () => {
    const { e, run, env, taskId } = await setup();
    const g = await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/count-errors"), [
      { outcome: 1, prm: [null] },
      { outcome: 0, prm: [null] },
    ]);
    const trainer = api(server.url, { bearer: await trainerKey(e.id) });
    const path = `/api/v1/runs/${run.id}/batches/lease-episodes`;
    const bad = await trainer("POST", path, { groups: 1, minGroups: 2 });
    expect(bad.status).toBe(400);
    const other = await api(server.url, { bearer: await trainerKey(s.e.id) })("POST", path, { groups: 1 });
    expect(other.status).toBe(403);
    const reader = await api(server.url, { bearer: await makeKey(["read"], e.id) })("POST", path, { groups: 1 });
    expect(reader.status).toBe(403);

    const leased = await trainer("POST", path, { groups: 1, requestKey: "rest:0" });
    expect(leased.status).toBe(200);
    expect((leased.body.groups as { groupKey: string }[]).map((x) => x.groupKey)).toEqual([g.groupKey]);
    const ack = await trainer("POST", `/api/v1/runs/${run.id}/batches/${leased.body.leaseId}/ack`, { step: 7 });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ step: 7, trainedSamples: 2 });
  });
});
