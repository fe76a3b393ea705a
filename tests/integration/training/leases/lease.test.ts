// The batch lease API over HTTP, as a trainer job calls it with its experiment-bound write key:
// leasing, concurrency, expiry, idempotent acknowledgement, reports and lease renewal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../../server/platform/db/client";
import { startApiServer } from "../../../helpers/apiServer";
import type { paths } from "../../../generated/openapi";
import { ADMIN, api, makeExperiment, makeKey, makeRun } from "../../../helpers/fixtures";
import { makeJudgedSession, SLIME_EXPERIMENT, SYSTEM, TOOLS, trainerKey } from "./helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

/** The lease response as the generated OpenAPI client types it (tests/integration/openapiClient.test.ts). */
type Lease = paths["/api/v1/runs/{id}/batches/lease"]["post"]["responses"]["200"]["content"]["application/json"];

async function setup(turns: number) {
  const e = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
  const run = await makeRun(e.id);
  const session = turns ? await makeJudgedSession(e.id, run.id, turns) : { turnIds: [] as string[] };
  const call = api(server.url, { bearer: await trainerKey(e.id) });
  const lease = async (body: Record<string, unknown>) => {
    const res = await call("POST", `/api/v1/runs/${run.id}/batches/lease`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as unknown as Lease;
  };
  return { e, run, call, lease, turnIds: session.turnIds };
}

const expireLease = (leaseId: string) =>
  db().batchLease.update({ where: { id: leaseId }, data: { expiresAt: new Date(Date.now() - 60_000) } });

describe("leasing", () => {
  it("hands out the oldest ready samples with everything a trainer needs, and never the same sample twice", async () => {
    const { lease, turnIds } = await setup(5);
    const first = await lease({ size: 2 });
    expect(first.leaseId).toEqual(expect.any(String));
    expect(first.available).toBe(3);
    expect(first.policyVersion).toBe(0);
    expect(first.samples.map((s) => s.turnId)).toEqual(turnIds.slice(0, 2));

    // Turn 1 reassembled from compact storage: system blob + turn 0's delta + turn 1's delta.
    const s1 = first.samples[1]!;
    expect(s1.messages).toEqual([
      SYSTEM,
      { role: "user", content: "question 0" },
      { role: "assistant", content: "answer 0" },
      { role: "user", content: "question 1" },
    ]);
    expect(s1.tools).toEqual(TOOLS);
    expect(s1.response.content).toBe("answer 1");
    expect(s1.responseTokenIds).toEqual([101, 201, 301]);
    expect(s1.lossMask).toEqual([1, 1, 1]);
    expect(s1.rolloutLogprobs).toEqual([-0.5, -0.25, -0.125]);
    expect(s1).toMatchObject({ kind: "RL", reward: 1, attempt: 1, teacherLogprobs: null, policyVersion: 0 });

    const second = await lease({ size: 10 });
    expect(second.samples.map((s) => s.turnId)).toEqual(turnIds.slice(2));
    const third = await lease({ size: 10 });
    expect(third).toMatchObject({ leaseId: null, samples: [], available: 0 });
  });

  it("gives concurrent leases disjoint samples", async () => {
    const { lease } = await setup(10);
    const results = await Promise.all(Array.from({ length: 5 }, () => lease({ size: 3 })));
    const ids = results.flatMap((r) => r.samples.map((s) => s.sampleId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(10);
    expect(results.filter((r) => r.leaseId !== null).length).toBe(4); // 3 + 3 + 3 + 1, and one empty
  });

  it("holds nothing when fewer than minSize samples are ready", async () => {
    const { lease } = await setup(3);
    expect(await lease({ size: 4, minSize: 4 })).toMatchObject({ leaseId: null, samples: [], available: 3 });
    expect((await lease({ size: 4, minSize: 3 })).samples).toHaveLength(3);
  });

  it("returns an expired lease's samples to the pool, as a second attempt", async () => {
    const { lease } = await setup(2);
    const first = await lease({ size: 2 });
    await expireLease(first.leaseId!);
    const again = await lease({ size: 2 });
    expect(again.leaseId).not.toBe(first.leaseId);
    expect(again.samples.map((s) => s.sampleId).sort()).toEqual(first.samples.map((s) => s.sampleId).sort());
    expect(again.samples.map((s) => s.attempt)).toEqual([2, 2]);
  });

  it("answers a retried request (same requestKey) with the same lease", async () => {
    const { lease } = await setup(4);
    const a = await lease({ size: 2, requestKey: "job-1:7" });
    const b = await lease({ size: 2, requestKey: "job-1:7" });
    expect(b.leaseId).toBe(a.leaseId);
    expect(b.samples.map((s) => s.sampleId)).toEqual(a.samples.map((s) => s.sampleId));
    expect(b.available).toBe(2);
  });
});

describe("acknowledging", () => {
  it("records the step, the policy version and the metrics once, however often the job re-acknowledges", async () => {
    const { run, call, lease, e } = await setup(3);
    const l = await lease({ size: 2 });
    const ack = { step: 1, metrics: { "train/loss": 0.5, "train/grad_norm": 2 }, weightVersion: 1 };
    const res = await call("POST", `/api/v1/runs/${run.id}/batches/${l.leaseId}/ack`, ack);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      step: 1,
      policyVersion: 1,
      policyVersionStatus: "ACTIVE",
      trainedSamples: 2,
      lostSamples: 0,
      replayed: false,
    });

    const again = await call("POST", `/api/v1/runs/${run.id}/batches/${l.leaseId}/ack`, ack);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      trainingStepId: res.body.trainingStepId,
      policyVersion: 1,
      trainedSamples: 2,
      replayed: true,
    });

    const steps = await db().trainingStep.findMany({ where: { runId: run.id } });
    expect(steps).toHaveLength(1);
    expect(steps[0]!.metrics).toEqual({ "train/loss": 0.5, "train/grad_norm": 2, weight_version: 1 });
    const trained = await db().sample.findMany({ where: { runId: run.id, stepId: steps[0]!.id } });
    expect(trained.map((s) => s.id).sort()).toEqual(l.samples.map((s) => s.sampleId).sort());
    const versions = await db().policyVersion.findMany({ where: { experimentId: e.id } });
    expect(versions).toMatchObject([{ version: 1, parentVersion: 0, status: "ACTIVE", step: 1, runId: run.id }]);
    const points = await db().metricPoint.findMany({ where: { runId: run.id }, orderBy: { name: "asc" } });
    expect(points.map((p) => [p.name, p.step, p.value])).toEqual([
      ["train/grad_norm", 1, 2],
      ["train/loss", 1, 0.5],
      ["weight_version", 1, 1],
    ]);
    expect(await db().run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      lastStep: 1,
      weightVersion: 1,
    });

    // Trained samples never come back, even after their lease's expiry.
    await expireLease(l.leaseId!);
    const next = await lease({ size: 5 });
    expect(next.samples).toHaveLength(1);
    expect(next.policyVersion).toBe(1);
  });

  it("refuses to acknowledge a lease at another step, or a step twice", async () => {
    const { run, call, lease } = await setup(4);
    const a = await lease({ size: 2 });
    const b = await lease({ size: 2 });
    expect((await call("POST", `/api/v1/runs/${run.id}/batches/${a.leaseId}/ack`, { step: 1 })).status).toBe(200);
    const otherStep = await call("POST", `/api/v1/runs/${run.id}/batches/${a.leaseId}/ack`, { step: 2 });
    expect(otherStep.status).toBe(409);
    const sameStep = await call("POST", `/api/v1/runs/${run.id}/batches/${b.leaseId}/ack`, { step: 1 });
    expect(sameStep.status).toBe(409);
    expect((await call("POST", `/api/v1/runs/${run.id}/batches/${b.leaseId}/ack`, { step: 2 })).body).toMatchObject({
      policyVersion: 2,
      trainedSamples: 2,
    });
    expect((await call("POST", `/api/v1/runs/${run.id}/batches/nope/ack`, { step: 3 })).status).toBe(404);
  });

  it("fences a stale lease: once its samples are leased again it is neither renewed nor acknowledged (409)", async () => {
    const { run, call, lease } = await setup(3);
    const late = await lease({ size: 3 });
    await expireLease(late.leaseId!);
    // Another lease takes two of the three samples back from the pool.
    const retaken = await lease({ size: 2 });
    const renewal = await call("POST", `/api/v1/runs/${run.id}/report`, { renewLeaseIds: [late.leaseId] });
    expect(renewal.body.renewed).toEqual([]);
    const lateAck = await call("POST", `/api/v1/runs/${run.id}/batches/${late.leaseId}/ack`, { step: 1 });
    expect(lateAck.status).toBe(409);
    expect(lateAck.body.error!.message).toMatch(/stale/);
    expect(await db().trainingStep.count({ where: { runId: run.id } })).toBe(0);
    const retakenAck = await call("POST", `/api/v1/runs/${run.id}/batches/${retaken.leaseId}/ack`, { step: 2 });
    expect(retakenAck.body).toMatchObject({ trainedSamples: 2, lostSamples: 0 });
    // The stale lease's third sample goes back to the pool and trains with the next batch.
    const rest = await lease({ size: 3 });
    expect(rest.samples).toHaveLength(1);
    await call("POST", `/api/v1/runs/${run.id}/batches/${rest.leaseId}/ack`, { step: 3 });
    const samples = await db().sample.findMany({ where: { runId: run.id } });
    expect(samples.every((s) => s.stepId !== null)).toBe(true);
  });
});

describe("reports", () => {
  it("stores the heartbeat, rollout URL, weight version and metrics, and renews leases the trainer still holds", async () => {
    const { run, call, lease } = await setup(2);
    const l = await lease({ size: 2 });
    await expireLease(l.leaseId!);
    const res = await call("POST", `/api/v1/runs/${run.id}/report`, {
      metrics: { "rollout/raw_reward": 0.75 },
      step: 3,
      weightVersion: 4,
      rolloutUrl: "http://127.0.0.1:30000/v1",
      message: "waiting for samples",
      renewLeaseIds: [l.leaseId],
      leaseSeconds: 120,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ runStatus: "RUNNING", stop: false, paused: false, policyVersion: 0 });
    const renewed = (res.body.renewed as { leaseId: string; expiresAt: string; held: number }[])[0]!;
    expect(renewed).toMatchObject({ leaseId: l.leaseId, held: 2 });
    expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.now());
    // Renewed: its samples are held again, so nothing is free.
    expect(await lease({ size: 2 })).toMatchObject({ leaseId: null, available: 0 });

    const stored = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored).toMatchObject({
      rolloutUrl: "http://127.0.0.1:30000/v1",
      weightVersion: 4,
      statusMessage: "waiting for samples",
    });
    expect(stored.heartbeatAt).not.toBeNull();
    const points = await db().metricPoint.findMany({ where: { runId: run.id } });
    expect(points.map((p) => [p.name, p.step, p.value])).toEqual([["rollout/raw_reward", 3, 0.75]]);
  });

  it("tells a restarted trainer where the run stands: its last step, and the newest checkpoint to resume from", async () => {
    const { run, call, lease } = await setup(3);
    const fresh = await call("POST", `/api/v1/runs/${run.id}/report`, {});
    expect(fresh.body).toMatchObject({ lastStep: 0, resume: null });

    const ack = (leaseId: string, body: Record<string, unknown>) =>
      call("POST", `/api/v1/runs/${run.id}/batches/${leaseId}/ack`, body);
    const first = await lease({ size: 1 });
    expect((await ack(first.leaseId!, { step: 1, checkpointPath: "/ckpt/step-000001" })).status).toBe(200);
    // A later step without a checkpoint: the resume point stays at the newest version that has one.
    const second = await lease({ size: 1 });
    expect((await ack(second.leaseId!, { step: 2 })).status).toBe(200);
    const res = await call("POST", `/api/v1/runs/${run.id}/report`, {});
    expect(res.body).toMatchObject({
      lastStep: 2,
      resume: { policyVersion: 1, step: 1, checkpointPath: "/ckpt/step-000001" },
    });
    // Why a trainer must number past it: the same step again is refused, and its batch would be lost.
    const third = await lease({ size: 1 });
    expect((await ack(third.leaseId!, { step: 1 })).status).toBe(409);
    expect((await ack(third.leaseId!, { step: 3 })).status).toBe(200);
  });

  it("refuses a rollout URL on a metadata address", async () => {
    const { run, call } = await setup(0);
    const res = await call("POST", `/api/v1/runs/${run.id}/report`, { rolloutUrl: "http://169.254.169.254/latest" });
    expect(res.status).toBe(400);
    expect(res.body.error?.issues[0]?.path).toBe("rolloutUrl");
  });

  it("tells the trainer to stop once the run is over, and to wait while it is paused", async () => {
    const { run, call, lease } = await setup(2);
    await db().run.update({ where: { id: run.id }, data: { status: "PAUSED" } });
    expect(await lease({ size: 2 })).toMatchObject({ paused: true, leaseId: null, samples: [] });
    expect((await call("POST", `/api/v1/runs/${run.id}/report`, {})).body).toMatchObject({ paused: true, stop: false });

    await db().run.update({ where: { id: run.id }, data: { status: "KILLED" } });
    expect((await call("POST", `/api/v1/runs/${run.id}/report`, {})).body).toMatchObject({
      runStatus: "KILLED",
      stop: true,
    });
    expect((await call("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 2 })).status).toBe(409);
  });
});

describe("access", () => {
  it("needs a write key of the run's own experiment, and an external trainer", async () => {
    const { run, e } = await setup(1);
    const other = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
    const foreign = api(server.url, { bearer: await makeKey(["write"], other.id) });
    expect((await foreign("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 1 })).status).toBe(403);
    const reader = api(server.url, { bearer: await makeKey(["read"], e.id) });
    expect((await reader("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 1 })).status).toBe(403);
    expect((await reader("GET", `/api/v1/runs/${run.id}/batches`)).status).toBe(200);

    const embedded = await makeRun(e.id, { trainerBackend: "embedded" });
    const owner = api(server.url, { bearer: await trainerKey(e.id) });
    expect((await owner("POST", `/api/v1/runs/${embedded.id}/batches/lease`, { size: 1 })).status).toBe(409);
  });

  it("lists leases with their state", async () => {
    const { run, call, lease } = await setup(3);
    const a = await lease({ size: 1 });
    const b = await lease({ size: 1 });
    await lease({ size: 1 });
    await call("POST", `/api/v1/runs/${run.id}/batches/${a.leaseId}/ack`, { step: 1 });
    await expireLease(b.leaseId!);
    const res = await call("GET", `/api/v1/runs/${run.id}/batches`);
    const states = (res.body.items as { id: string; state: string }[]).map((i) => i.state);
    expect(states).toEqual(["active", "expired", "acknowledged"]);
  });
});
