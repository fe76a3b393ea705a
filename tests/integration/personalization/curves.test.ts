// The Users view's curves (GET …/end-users/curves): each user's mean judged reward per adapter version that served
// them (v0 the base) in a per-user experiment, per policy version in a shared one, beside the shared policy's curve
// of this experiment or of another the caller may read (403 for one of another team's keys).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { startApiServer } from "../../helpers/apiServer";
import { storePromotedAdapter } from "../../helpers/adapters";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("reward curves", () => {
  it("gives each user's reward per version that served them beside the shared policy's", async () => {
    const perUser = await makeExperiment({ personalization: "per-user" });
    const shared = await makeExperiment({});
    const maya = uniq("maya");
    const leo = uniq("leo");
    // Maya: the base twice (−1, then 1: mean 0), then her adapter v1 twice (1 and 1). Each turn is recorded a
    // minute after the one before, so a point's firstAt (its version's first turn) is known.
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    let minute = 0;
    const at = (m: number) => new Date(t0 + m * 60_000).toISOString();
    const turn = async (experimentId: string, endUserId: string, reward: number) => {
      const id = await makeEndUserTurn({ experimentId, endUserId, prompt: "q", reply: "Ok.", reward });
      await db().turn.update({ where: { id }, data: { createdAt: new Date(at(minute++)) } });
      return id;
    };
    await turn(perUser.id, maya, -1);
    await turn(perUser.id, maya, 1);
    const adapter = await storePromotedAdapter(perUser.id, maya);
    for (const r of [1, 1]) {
      const id = await turn(perUser.id, maya, r);
      await db().turn.update({ where: { id }, data: { adapterId: adapter.id } });
    }
    await turn(perUser.id, leo, -1);
    // The same users on one shared policy: version 0 scores −1, version 1 scores 0.5 (mean of 1, 0).
    for (const [version, reward, user] of [
      [0, -1, maya],
      [1, 1, maya],
      [1, 0, leo],
    ] as const) {
      const id = await turn(shared.id, user, reward);
      await db().turn.update({ where: { id }, data: { policyVersion: version } });
    }

    const key = await makeKey(["read"]);
    const get = async (experimentId: string, q = "") => {
      const res = await fetch(`${server.url}/api/v1/experiments/${experimentId}/end-users/curves${q}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const beside = await get(perUser.id, `?sharedExperimentId=${shared.id}`);
    expect(beside.status).toBe(200);
    expect(beside.json).toEqual({
      versionOf: "adapter",
      shared: {
        experimentId: shared.id,
        name: shared.name,
        points: [
          { version: 0, meanReward: -1, turns: 1, firstAt: at(5) },
          { version: 1, meanReward: 0.5, turns: 2, firstAt: at(6) },
        ],
      },
      users: expect.arrayContaining([
        {
          endUserId: maya,
          points: [
            { version: 0, meanReward: 0, turns: 2, firstAt: at(0) },
            { version: 1, meanReward: 1, turns: 2, firstAt: at(2) },
          ],
        },
        { endUserId: leo, points: [{ version: 0, meanReward: -1, turns: 1, firstAt: at(4) }] },
      ]),
    });
    // Unasked, a per-user experiment is drawn beside its twin: the shared experiment its users also talk to (an
    // experiment none of them talks to, newer, is not it).
    await makeExperiment({});
    const twin = await get(perUser.id);
    expect(twin.json).toMatchObject({ versionOf: "adapter", shared: { experimentId: shared.id } });
    // A shared experiment's users are counted per policy version, and its own curve is the default.
    const own = await get(shared.id);
    expect(own.json).toMatchObject({ versionOf: "policy", shared: { experimentId: shared.id } });
    expect((own.json.users as unknown[]).length).toBe(2);

    const other = await makeKey(["read"], perUser.id);
    const refused = await fetch(
      `${server.url}/api/v1/experiments/${perUser.id}/end-users/curves?sharedExperimentId=${shared.id}`,
      { headers: { authorization: `Bearer ${other}` } },
    );
    expect(refused.status).toBe(403);
  });
});
