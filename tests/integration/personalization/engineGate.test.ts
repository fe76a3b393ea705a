// The per-user gate for PEFT-folder versions, scored by the serving engine (server/personalization/engineGate.ts):
// a version registered (REST) or acknowledged (a per-user lease) while its user has held-out turns is a CANDIDATE,
// not served; the gate step loads it into the stand-in engine (held to the contracts extracted from SGLang's and
// vLLM's source: every body field must be one of the engine's, tests/fakes/loraEngine.ts), scores the held-out
// replies with it and with the served version (or the base), and promotes a better one (the served one SUPERSEDED)
// or rejects a worse one (the served one unchanged); a Tinker experiment's sampler paths the same way on the bridge's
// endpoint (integrations/tinker/serve.py on the fake SDK). Real Postgres, Redis and HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateEngineCandidates } from "../../../server/personalization/engineGate";
import { isHeldOut } from "../../../server/personalization/data";
import { db } from "../../../server/platform/db/client";
import { fakeLoraEngine } from "../../fakes/loraEngine";
import { startApiServer } from "../../helpers/apiServer";
import { startFakeTinkerEndpoint, type FakeTinkerEndpoint } from "../../helpers/tinkerEndpoint";
import { ADMIN, api, makeExperiment, makeKey, makeRun, uniq } from "../../helpers/fixtures";
import { makeJudgedSession, trainerKey } from "../training/leases/helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  process.env.ADAPTER_DIRS = "/ckpt";
  server = await startApiServer();
});
afterAll(async () => {
  await server.close();
  delete process.env.ADAPTER_DIRS;
});

const versions = async (experimentId: string) =>
  db().userAdapter.findMany({
    where: { experimentId },
    orderBy: { version: "asc" },
    select: { id: true, version: true, state: true, parentId: true, evalScore: true, servedScore: true },
  });

for (const engine of ["sglang", "vllm"] as const) {
  describe(`the per-user gate on ${engine}`, () => {
    const fake = fakeLoraEngine(engine);
    let url = "";
    beforeAll(async () => {
      url = await fake.start();
    });
    afterAll(() => fake.stop());

    /** A per-user experiment on the stand-in engine, a run, and `user`'s judged turns: some held out, some not. */
    async function setup(user: string) {
      const e = await makeExperiment(
        {
          method: "grpo",
          personalization: "per-user",
          perUser: { minSamples: 1, heldOutFraction: 0.5, gateTolerance: 0.05 },
          policy: { kind: "sglang", baseUrl: url, model: "base-model", loraAdapters: engine },
          trainer: { backend: "hf-local" },
        },
        { by: ADMIN },
      );
      const run = await makeRun(e.id);
      const { turnIds } = await makeJudgedSession(e.id, run.id, 12);
      await db().turn.updateMany({ where: { id: { in: turnIds } }, data: { endUserId: user } });
      const heldOut = turnIds.filter((id) => isHeldOut(id, 0.5));
      // The split of these 12 ids: the test needs both kinds (all 12 on one side has odds 2 in 4096).
      expect(heldOut.length).toBeGreaterThan(0);
      expect(heldOut.length).toBeLessThan(turnIds.length);
      return { e, run, heldOut };
    }

    it("promotes a better candidate and rejects a worse one, scoring the held-out replies on the engine", async () => {
      const maya = uniq("maya");
      const { e, heldOut } = await setup(maya);
      const key = await makeKey(["write"], e.id);
      const register = async (path: string) => {
        const res = await fetch(`${server.url}/api/v1/experiments/${e.id}/end-users/${maya}/adapters`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ path, rank: 8, alpha: 16 }),
        });
        expect(res.status).toBe(201);
        return (await res.json()) as { adapterId: string; version: number; state: string };
      };
      // Every scored token: −1 on the base, −0.7 with v1, −1.3 with v2, −0.5 with v3 (the fake's skill).
      fake.skill("/ckpt/maya/v1", 0.3);
      fake.skill("/ckpt/maya/v2", -0.3);
      fake.skill("/ckpt/maya/v3", 0.5);

      const v1 = await register("/ckpt/maya/v1");
      expect(v1).toMatchObject({ version: 1, state: "CANDIDATE" });
      fake.calls.length = 0;
      const [d1] = await gateEngineCandidates([e.id]);
      // Against the base (no served version): every held-out turn is judged +1, so S = mean log-prob.
      expect(d1).toMatchObject({ decided: true, version: 1, state: "PROMOTED", servedScore: -1 });
      expect(d1.decided && d1.evalScore).toBeCloseTo(-0.7, 10);
      // The candidate was loaded under the gate's own name, named on one scoring request per held-out turn, unloaded.
      const scoring = fake.calls.filter((c) => c.path === (engine === "sglang" ? "/generate" : "/v1/completions"));
      const named = (b: Record<string, unknown>) => (engine === "sglang" ? b.lora_path : b.model);
      const withCandidate = scoring.filter((c) => named(c.body) === `gate-${v1.adapterId}`);
      expect(withCandidate).toHaveLength(heldOut.length);
      expect([...fake.loaded.keys()].filter((n) => n.startsWith("gate-"))).toEqual([]);

      const v2 = await register("/ckpt/maya/v2");
      expect(v2).toMatchObject({ version: 2, state: "CANDIDATE" });
      const [d2] = await gateEngineCandidates([e.id]);
      expect(d2).toMatchObject({ decided: true, version: 2, state: "REJECTED" });
      expect(d2.decided && d2.evalScore).toBeCloseTo(-1.3, 10);
      expect(d2.decided && d2.servedScore).toBeCloseTo(-0.7, 10);
      expect((await versions(e.id)).map((v) => v.state)).toEqual(["PROMOTED", "REJECTED"]);

      const v3 = await register("/ckpt/maya/v3");
      const [d3] = await gateEngineCandidates([e.id]);
      expect(d3).toMatchObject({ decided: true, version: 3, state: "PROMOTED" });
      const after = await versions(e.id);
      expect(after.map((v) => v.state)).toEqual(["SUPERSEDED", "REJECTED", "PROMOTED"]);
      expect(after[2]).toMatchObject({ id: v3.adapterId, parentId: v1.adapterId });
      expect(after[2]!.evalScore).toBeCloseTo(-0.5, 10);
      expect(after[2]!.servedScore).toBeCloseTo(-0.7, 10);
      const audit = await db().auditLog.findMany({
        where: { action: "endUser.adapter.gate", resourceId: { in: after.map((v) => v.id) } },
      });
      expect(audit).toHaveLength(3);
      expect(await gateEngineCandidates([e.id])).toEqual([]);
    });

    it("leaves a candidate the engine refuses to load undecided, and decides it once the engine takes it", async () => {
      const leo = uniq("leo");
      const { e } = await setup(leo);
      const key = await makeKey(["write"], e.id);
      const res = await fetch(`${server.url}/api/v1/experiments/${e.id}/end-users/${leo}/adapters`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ path: "/ckpt/leo/v1", rank: 8, alpha: 16 }),
      });
      const v1 = (await res.json()) as { adapterId: string; state: string };
      expect(v1.state).toBe("CANDIDATE");
      fake.refuse(true);
      try {
        const [r] = await gateEngineCandidates([e.id]);
        expect(r).toMatchObject({ decided: false, adapterId: v1.adapterId });
        expect((await versions(e.id)).map((v) => v.state)).toEqual(["CANDIDATE"]);
      } finally {
        fake.refuse(false);
      }
      fake.skill("/ckpt/leo/v1", 0.1);
      expect(await gateEngineCandidates([e.id])).toMatchObject([{ decided: true, state: "PROMOTED" }]);
    });

    it("makes a lease's acknowledged folder a candidate, then the gate's decision", async () => {
      const ava = uniq("ava");
      const { e, run } = await setup(ava);
      const call = api(server.url, { bearer: await trainerKey(e.id) });
      const lease = await call("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 64 });
      expect(lease.status, JSON.stringify(lease.body)).toBe(200);
      expect(lease.body.endUserId).toBe(ava);
      const ack = await call("POST", `/api/v1/runs/${run.id}/batches/${String(lease.body.leaseId)}/ack`, {
        step: 1,
        checkpointPath: "/ckpt/ava/step-1",
        metrics: {},
      });
      expect(ack.status, JSON.stringify(ack.body)).toBe(200);
      expect(ack.body).toMatchObject({ adapter: { endUserId: ava, version: 1, state: "CANDIDATE" } });
      // Not served while a candidate: the user is still on the base.
      expect(await db().userAdapter.count({ where: { experimentId: e.id, state: "PROMOTED" } })).toBe(0);
      fake.skill("/ckpt/ava/step-1", -0.2); // worse than the base on Ava's held-out replies
      expect(await gateEngineCandidates([e.id])).toMatchObject([{ decided: true, version: 1, state: "REJECTED" }]);
      expect(await db().userAdapter.count({ where: { experimentId: e.id, state: "PROMOTED" } })).toBe(0);
    });
  });
}

describe("versions that are not gated on the engine", () => {
  it("serves at once with heldOutFraction 0, and for a user with no held-out turn yet", async () => {
    for (const heldOutFraction of [0, 0.5]) {
      const e = await makeExperiment(
        {
          personalization: "per-user",
          perUser: { heldOutFraction },
          policy: { kind: "sglang", baseUrl: "http://127.0.0.1:1/v1", model: "m", loraAdapters: "sglang" },
          trainer: { backend: "hf-local" },
        },
        { by: ADMIN },
      );
      const run = await makeRun(e.id);
      const { turnIds } = await makeJudgedSession(e.id, run.id, 4);
      await db().turn.updateMany({ where: { id: { in: turnIds } }, data: { endUserId: "sam" } });
      // With 0.5, the user named here has no turn at all (no held-out turn to score).
      const user = heldOutFraction === 0 ? "sam" : "noor";
      const key = await makeKey(["write"], e.id);
      const res = await fetch(`${server.url}/api/v1/experiments/${e.id}/end-users/${user}/adapters`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ path: `/ckpt/${user}/v1`, rank: 8, alpha: 16 }),
      });
      expect(await res.json()).toMatchObject({ version: 1, state: "PROMOTED" });
    }
  });
});

describe("the per-user gate on Tinker (the bridge's endpoint on the fake SDK)", () => {
  const v1 = "tinker://run-abc/sampler_weights/leo-v000001";
  const v2 = "tinker://run-abc/sampler_weights/leo-v000002";
  let endpoint: FakeTinkerEndpoint;
  beforeAll(async () => {
    // integrations/tinker/serve.py per user: SGLang's LoRA routes for sampler paths and /generate scoring through
    // SamplingClient.compute_logprobs; v1 makes every scored token 0.3 likelier than the base, v2 0.3 less likely.
    endpoint = await startFakeTinkerEndpoint({
      TINKER_PER_USER: "1",
      FAKE_TINKER_SKILLS: JSON.stringify({ [v1]: 0.3, [v2]: -0.3 }),
    });
  });
  afterAll(() => endpoint.stop());

  it("scores a user's sampler paths on the bridge: promotes the better one and rejects the worse", async () => {
    const e = await makeExperiment(
      {
        personalization: "per-user",
        perUser: { heldOutFraction: 0.5, gateTolerance: 0.05 },
        policy: { kind: "sglang", baseUrl: endpoint.url, model: "m", loraAdapters: "sglang" },
        trainer: { backend: "tinker" },
      },
      { by: ADMIN },
    );
    const run = await makeRun(e.id);
    const { turnIds } = await makeJudgedSession(e.id, run.id, 12);
    await db().turn.updateMany({ where: { id: { in: turnIds } }, data: { endUserId: "leo" } });
    expect(turnIds.some((id) => isHeldOut(id, 0.5))).toBe(true);
    const key = await makeKey(["write"], e.id);
    const register = async (p: string) => {
      const res = await fetch(`${server.url}/api/v1/experiments/${e.id}/end-users/leo/adapters`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ path: p, rank: 8, alpha: 16 }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { state: string };
    };
    expect(await register(v1)).toMatchObject({ state: "CANDIDATE" });
    const [d1] = await gateEngineCandidates([e.id]);
    expect(d1).toMatchObject({ decided: true, version: 1, state: "PROMOTED" });
    // Every held-out turn is judged +1: the score is the mean token log-prob, 0.3 above the base's.
    if (!d1.decided) throw new Error("undecided");
    expect(d1.evalScore! - d1.servedScore!).toBeCloseTo(0.3, 6);
    expect(await register(v2)).toMatchObject({ state: "CANDIDATE" });
    const [d2] = await gateEngineCandidates([e.id]);
    expect(d2).toMatchObject({ decided: true, version: 2, state: "REJECTED" });
    if (!d2.decided) throw new Error("undecided");
    expect(d2.servedScore! - d2.evalScore!).toBeCloseTo(0.6, 6);
    expect((await versions(e.id)).map((v) => v.state)).toEqual(["PROMOTED", "REJECTED"]);
  });
});
