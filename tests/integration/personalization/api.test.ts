// The end-user endpoints over REST with a key: train due users, list them with their adapter and trend,
// roll one back, delete one (the answers validated by the procedures' output schemas).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("end-user endpoints", () => {
  it("trains, lists, rolls back and deletes end users of a per-user experiment", async () => {
    const e = await makeExperiment({ personalization: "per-user", perUser: { minSamples: 2, heldOutFraction: 0 } });
    const key = await makeKey(["write"], e.id);
    const call = async (method: string, path: string) => {
      const res = await fetch(`${server.url}/api/v1/experiments/${e.id}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(method === "POST" ? { "content-type": "application/json" } : {}),
        },
        body: method === "POST" ? "{}" : undefined,
      });
      return { status: res.status, json: (await res.json()) as unknown };
    };
    const maya = uniq("maya");
    for (const i of [0, 1])
      await makeEndUserTurn({ experimentId: e.id, endUserId: maya, prompt: `q${i}`, reply: "Short.", reward: 1 });
    await makeEndUserTurn({ experimentId: e.id, endUserId: "leo", prompt: "q", reply: "- a", reward: 1 });
    // Ava's sessions, oldest first: disliked, then liked three times in a row — stable after 1 session.
    const ava = uniq("ava");
    for (const reward of [-1, 1, 1, 1])
      await makeEndUserTurn({ experimentId: e.id, endUserId: ava, prompt: "q", reply: "Hi. — Cheers!", reward });

    const trained = await call("POST", "/end-users/train");
    expect(trained.status).toBe(200);
    expect(trained.json).toEqual(
      expect.arrayContaining([
        { endUserId: maya, trained: true, version: 1, state: "PROMOTED", samples: 2 },
        { endUserId: "leo", trained: false, version: null, state: null, samples: 1 },
      ]),
    );
    const list = await call("GET", "/end-users");
    expect(list.status).toBe(200);
    const row = (list.json as { endUserId: string }[]).find((u) => u.endUserId === maya);
    expect(row).toMatchObject({ servedVersion: 1, turns: 2, judgedTurns: 2, trainedSamples: 2 });
    // Sessions until a stable effect, per user: Maya's two liked sessions are not three in a row yet.
    expect(row).toMatchObject({ sessions: 2, sessionsUntilStable: null });
    const avaRow = (list.json as { endUserId: string }[]).find((u) => u.endUserId === ava);
    expect(avaRow).toMatchObject({ sessions: 4, sessionsUntilStable: 1 });
    expect((row as unknown as { trend: unknown[] }).trend).toEqual([
      expect.objectContaining({ version: 1, state: "PROMOTED", meanReward: 1 }),
    ]);

    expect((await call("POST", `/end-users/${maya}/rollback`)).json).toEqual({
      endUserId: maya,
      rolledBack: 1,
      served: null,
    });
    expect((await call("POST", `/end-users/${maya}/rollback`)).status).toBe(409);
    expect((await call("DELETE", `/end-users/${maya}`)).json).toMatchObject({ adapters: 1, turns: 2 });
    const after = (await call("GET", "/end-users")).json as { endUserId: string }[];
    expect(after.map((u) => u.endUserId).sort()).toEqual([ava, "leo"].sort());
  });

  it("rolls back the shared adapter for new users as `*`, which cannot be deleted as a user", async () => {
    const e = await makeExperiment({
      personalization: "per-user",
      perUser: { minSamples: 2, heldOutFraction: 0, newUsers: "shared" },
    });
    const key = await makeKey(["write"], e.id);
    const call = (method: string, path: string) =>
      fetch(`${server.url}/api/v1/experiments/${e.id}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as unknown }));
    for (const user of [uniq("maya"), uniq("leo")])
      await makeEndUserTurn({ experimentId: e.id, endUserId: user, prompt: "q", reply: "Ok.", reward: 1 });
    expect((await call("POST", "/end-users/train")).json).toEqual(
      expect.arrayContaining([{ endUserId: "*", trained: true, version: 1, state: "PROMOTED", samples: 2 }]),
    );
    expect((await call("GET", "/end-users")).json).toEqual(
      expect.arrayContaining([expect.objectContaining({ endUserId: "*", servedVersion: 1, turns: 2 })]),
    );
    expect((await call("POST", "/end-users/*/rollback")).json).toEqual({ endUserId: "*", rolledBack: 1, served: null });
    expect((await call("DELETE", "/end-users/*")).status).toBe(400);
  });
});
