// The trainer key is minted per run with scope "trainer": it leases, acks and reports for its run and nothing
// else (no config, no other run, no reads). The endpoints it reports are accepted only on the cluster's private
// network or inside TRAINER_ENDPOINT_ALLOWLIST, a rollout URL change is recorded on the run and audited, and an
// ack after Stop is refused.
import { afterEach, beforeAll, afterAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { issueTrainerKey, revokeTrainerKeys } from "../../../server/runs/keys";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, api, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { makeJudgedSession, SLIME_EXPERIMENT } from "../training/leases/helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());
afterEach(() => {
  delete process.env.TRAINER_ENDPOINT_ALLOWLIST;
});

async function setup() {
  const e = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
  const run = await makeRun(e.id);
  const key = await issueTrainerKey(run);
  return { e, run, key, call: api(server.url, { bearer: key }) };
}

describe("trainer keys", () => {
  it("reach only their own run's lease, ack and report", async () => {
    const { e, run, call } = await setup();
    const other = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
    const otherRun = await makeRun(other.id);
    expect((await call("POST", `/api/v1/runs/${run.id}/report`, {})).status).toBe(200);
    expect((await call("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 1 })).status).toBe(200);
    expect((await call("POST", `/api/v1/runs/${otherRun.id}/report`, {})).status).toBe(403);
    expect((await call("GET", `/api/v1/experiments/${e.id}`)).status).toBe(403);
    expect((await call("PATCH", `/api/v1/experiments/${e.id}`, { description: "taken" })).status).toBe(403);
    expect((await call("GET", `/api/v1/turns?experimentId=${e.id}`)).status).toBe(403);
    const second = await makeRun(e.id, { status: "PAUSED" });
    expect((await call("POST", `/api/v1/runs/${second.id}/report`, {})).status).toBe(403);
  });

  it("report only cluster-internal or allow-listed endpoints; a rollout URL change is recorded and audited", async () => {
    const { run, call } = await setup();
    const publicHost = await call("POST", `/api/v1/runs/${run.id}/report`, { rolloutUrl: "http://93.184.216.34/v1" });
    expect(publicHost.status).toBe(400);
    expect(publicHost.body.error!.issues[0]).toMatchObject({ path: "rolloutUrl" });
    const prm = await call("POST", `/api/v1/runs/${run.id}/report`, { prmUrl: "http://93.184.216.34:30000" });
    expect(prm.status).toBe(400);

    expect(
      (await call("POST", `/api/v1/runs/${run.id}/report`, { rolloutUrl: "http://127.0.0.1:30001/v1" })).status,
    ).toBe(200);
    expect(
      (await call("POST", `/api/v1/runs/${run.id}/report`, { rolloutUrl: "http://127.0.0.1:30002/v1" })).status,
    ).toBe(200);
    const row = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row).toMatchObject({
      rolloutUrl: "http://127.0.0.1:30002/v1",
      rolloutUrlPrevious: "http://127.0.0.1:30001/v1",
    });
    expect(row.rolloutUrlChangedAt).toBeInstanceOf(Date);
    // The run as the dashboard reads it shows the change.
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    expect((await admin("GET", `/api/v1/runs/${run.id}`)).body).toMatchObject({
      rolloutUrl: "http://127.0.0.1:30002/v1",
      rolloutUrlPrevious: "http://127.0.0.1:30001/v1",
      rolloutUrlChangedAt: row.rolloutUrlChangedAt!.toISOString(),
    });
    const audits = await db().auditLog.findMany({
      where: { resourceId: run.id, action: "run.rolloutUrl" },
      orderBy: { createdAt: "asc" },
    });
    expect(audits.map((a) => a.after)).toEqual([
      { rolloutUrl: "http://127.0.0.1:30001/v1" },
      { rolloutUrl: "http://127.0.0.1:30002/v1" },
    ]);

    process.env.TRAINER_ENDPOINT_ALLOWLIST = "10.0.0.0/8";
    const outside = await call("POST", `/api/v1/runs/${run.id}/report`, { rolloutUrl: "http://127.0.0.1:30003/v1" });
    expect(outside.status).toBe(400);
    expect(outside.body.error!.message).toMatch(/TRAINER_ENDPOINT_ALLOWLIST/);
    expect((await db().run.findUniqueOrThrow({ where: { id: run.id } })).rolloutUrl).toBe("http://127.0.0.1:30002/v1");
  });

  it("cannot acknowledge a batch after the run is stopped, and dies with the run", async () => {
    const { e, run, call } = await setup();
    await makeJudgedSession(e.id, run.id, 2);
    const lease = await call("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 2 });
    expect(lease.body.leaseId).toEqual(expect.any(String));
    await db().run.update({ where: { id: run.id }, data: { status: "KILLED", endedAt: new Date() } });
    const ack = await call("POST", `/api/v1/runs/${run.id}/batches/${lease.body.leaseId as string}/ack`, { step: 1 });
    expect(ack.status).toBe(409);
    expect(await db().policyVersion.count({ where: { runId: run.id } })).toBe(0);
    expect(await revokeTrainerKeys(run.id)).toBe(1);
    expect((await call("POST", `/api/v1/runs/${run.id}/report`, {})).status).toBe(401);
  });
});
