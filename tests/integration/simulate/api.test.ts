// Simulated-user controls over REST (the tRPC procedures call the same service): per-experiment settings with
// validation, permissions and audit; the global switch and SIMULATE=0; and the judged reward per policy version,
// checked against hand-computed means over turns and judgments written directly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, type Prisma } from "../../../server/platform/db/client";
import { activeSimulations } from "../../../server/simulation/service";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeKey, uniq } from "../../helpers/fixtures";
import { makeJudgment } from "../../helpers/judgments";

let server: Awaited<ReturnType<typeof startApiServer>>;
let admin: ReturnType<typeof api>;
let writer: ReturnType<typeof api>;
let reader: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startApiServer();
  admin = api(server.url, { bearer: await makeKey(["admin"]) });
  writer = api(server.url, { bearer: await makeKey(["write"]) });
  reader = api(server.url, { bearer: await makeKey(["read"]) });
});
afterAll(async () => {
  await admin("POST", "/api/v1/simulation/global", { enabled: true });
  await server.close();
});

async function experiment(): Promise<{ id: string; slug: string }> {
  const slug = uniq("sim");
  const res = await admin("POST", "/api/v1/experiments", { name: slug, slug });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, slug };
}

describe("REST /api/v1/simulation", () => {
  it("starts an experiment's simulated users with settings, validates, audits, and lists them", async () => {
    const e = await experiment();
    expect((await writer("PATCH", `/api/v1/simulation/experiments/${e.id}`, {})).status).toBe(400);
    const bad = await writer("PATCH", `/api/v1/simulation/experiments/${e.id}`, {
      personas: ["nobody"],
      concurrency: 0,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error!.issues.map((i) => i.path).sort()).toEqual(["concurrency", "personas.0"]);
    expect((await reader("PATCH", `/api/v1/simulation/experiments/${e.id}`, { enabled: true })).status).toBe(403);
    const bound = api(server.url, { bearer: await makeKey(["write"], (await experiment()).id) });
    expect((await bound("PATCH", `/api/v1/simulation/experiments/${e.id}`, { enabled: true })).status).toBe(403);
    expect(await db().simulationControl.findUnique({ where: { experimentId: e.id } })).toBeNull();

    const on = await writer("PATCH", `/api/v1/simulation/experiments/${e.slug}`, {
      enabled: true,
      personas: ["leo", "sam", "leo"],
      perMinute: 30,
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      experimentId: e.id,
      enabled: true,
      settings: { personas: ["leo", "sam"], perMinute: 30, concurrency: 2, seed: 1, maxTurns: 4 },
    });
    // A later change keeps what it does not name.
    const seed = await writer("PATCH", `/api/v1/simulation/experiments/${e.id}`, { seed: 42 });
    expect(seed.body).toMatchObject({ enabled: true, settings: { personas: ["leo", "sam"], perMinute: 30, seed: 42 } });

    const list = await reader("GET", "/api/v1/simulation");
    const item = (list.body.items as { experiment: { id: string }; enabled: boolean; settings: unknown }[]).find(
      (i) => i.experiment.id === e.id,
    );
    expect(item).toMatchObject({ enabled: true, settings: { personas: ["leo", "sam"], seed: 42 } });
    const audit = await db().auditLog.findMany({
      where: { resourceId: e.id, action: "simulation.update" },
      orderBy: { createdAt: "asc" },
    });
    expect(audit.map((a) => (a.after as { seed: number }).seed)).toEqual([1, 42]);

    const active = await activeSimulations({});
    expect(active.items.find((i) => i.experimentId === e.id)).toEqual({
      experimentId: e.id,
      slug: e.slug,
      settings: { perMinute: 30, concurrency: 2, personas: ["leo", "sam"], seed: 42, maxTurns: 4 },
    });
    await writer("PATCH", `/api/v1/simulation/experiments/${e.id}`, { enabled: false });
    expect((await activeSimulations({})).items.find((i) => i.experimentId === e.id)).toBeUndefined();
  });

  it("the global switch (admin only) and SIMULATE=0 turn all simulated traffic off", async () => {
    const e = await experiment();
    await writer("PATCH", `/api/v1/simulation/experiments/${e.id}`, { enabled: true });
    expect((await activeSimulations({ SIMULATE: "0" })).on).toBe(false);
    expect((await activeSimulations({ SIMULATE: "0" })).reason).toBe("SIMULATE=0");
    expect((await writer("POST", "/api/v1/simulation/global", { enabled: false })).status).toBe(403);
    expect((await admin("POST", "/api/v1/simulation/global", {})).status).toBe(400);
    const off = await admin("POST", "/api/v1/simulation/global", { enabled: false });
    expect(off.body).toMatchObject({ globalEnabled: false });
    expect(await activeSimulations({})).toEqual({ on: false, reason: "switched off in the UI", items: [] });
    expect((await reader("GET", "/api/v1/simulation")).body).toMatchObject({ globalEnabled: false });
    await admin("POST", "/api/v1/simulation/global", { enabled: true });
    expect((await activeSimulations({})).items.map((i) => i.experimentId)).toContain(e.id);
    await writer("PATCH", `/api/v1/simulation/experiments/${e.id}`, { enabled: false });
  });

  it("reports the judged reward per policy version: latest judgment per turn, turns with a next state only", async () => {
    const e = await experiment();
    const session = await db().agentSession.create({
      data: { experimentId: e.id, externalId: uniq("s"), simulated: true, persona: "leo" },
    });
    let index = 0;
    const turn = async (version: number, scores: number[], nextState = true) => {
      const t = await db().turn.create({
        data: {
          requestId: uniq("r"),
          experimentId: e.id,
          sessionId: session.id,
          index: index++,
          messagesDelta: [] as Prisma.InputJsonValue,
          policyVersion: version,
          content: "reply",
          simulated: true,
          ...(nextState
            ? { nextState: { role: "user", content: "ok" }, nextStateRole: "user", nextStateAt: new Date() }
            : {}),
        },
      });
      for (const [i, score] of scores.entries()) {
        await makeJudgment(t.id, { judgeVersion: `v${i}`, score, createdAt: new Date(Date.now() + i * 1000) });
      }
    };
    await turn(0, [1]);
    await turn(0, [-1]);
    await turn(0, [-1]);
    await turn(1, [1]);
    await turn(1, [-1, 1]); // re-judged: the newer +1 counts
    await turn(1, [1]);
    await turn(1, [-1], false); // the closing turn: no next state, not counted
    await turn(2, []); // not judged yet
    const res = await reader("GET", `/api/v1/simulation/experiments/${e.id}/progress`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ experimentId: e.id, servedVersion: 0, steps: 0 });
    const versions = (res.body.versions as { version: number; turns: number; reward: number }[]).map(
      ({ version, turns, reward }) => ({ version, turns, reward: Number(reward.toFixed(6)) }),
    );
    expect(versions).toEqual([
      { version: 0, turns: 3, reward: Number((-1 / 3).toFixed(6)) },
      { version: 1, turns: 3, reward: 1 },
    ]);
    expect((await reader("GET", `/api/v1/simulation/experiments/nope-${e.id}/progress`)).status).toBe(404);
  });

  it("counts a per-user experiment's trained adapter versions as its steps (it trains no run)", async () => {
    const slug = uniq("sim-per-user");
    const created = await admin("POST", "/api/v1/experiments", {
      name: slug,
      slug,
      config: { personalization: "per-user" },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    for (const [endUserId, version] of [
      ["maya", 1],
      ["maya", 2],
      ["leo", 1],
    ] as const)
      await db().userAdapter.create({
        data: { experimentId: id, endUserId, version, rank: 2, alpha: 4, state: "PROMOTED", weights: Buffer.from([0]) },
      });
    const res = await reader("GET", `/api/v1/simulation/experiments/${id}/progress`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ versionsOf: "adapter", servedVersion: 0, steps: 3 });
  });
});
