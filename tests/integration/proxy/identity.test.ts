// Identity on every turn: X-User-Id / X-Agent-Id are honoured only from a key with the 'identity' scope, are
// recorded on the turn, and filter the trajectory browser.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { listTurns } from "../../../server/trajectories/service";
import { TurnListInput } from "../../../server/trajectories/schemas";
import { makeKey, uniq } from "../../helpers/fixtures";
import { adminPrincipal, harness, post, type Harness } from "./setup";

let h: Harness;
let identityKey: string;
beforeAll(async () => {
  h = await harness();
  identityKey = await makeKey(["identity"], h.experiment.id);
});
afterAll(() => h.close());

const chat = (key: string, headers: Record<string, string>) =>
  post(
    `${h.proxy.url}/v1/chat/completions`,
    { model: "m", messages: [{ role: "user", content: "hello" }] },
    { authorization: `Bearer ${key}`, "x-session-id": uniq("s"), ...headers },
  );

describe("identity headers", () => {
  it("refuses X-User-Id and X-Agent-Id from a key without the identity scope", async () => {
    const before = h.fake.requests.length;
    const user = await chat(h.key, { "x-user-id": "maya" });
    expect(user.status).toBe(403);
    expect(user.json.error).toMatchObject({ code: "insufficient_scope", param: "x-user-id" });
    const agent = await chat(h.key, { "x-agent-id": "coder" });
    expect(agent.status).toBe(403);
    expect(agent.json.error?.param).toBe("x-agent-id");
    expect(h.fake.requests.length).toBe(before); // refused before reaching the policy
  });

  it("refuses an id with characters outside the allowed set", async () => {
    const r = await chat(identityKey, { "x-user-id": "maya smith" });
    expect(r.status).toBe(400);
    expect(r.json.error?.param).toBe("x-user-id");
  });

  it("records the end user and agent of an identity key's turn, and the browser filters by user", async () => {
    const maya = uniq("maya@example.com:");
    const a = await chat(identityKey, { "x-user-id": maya, "x-agent-id": "writer" });
    const b = await chat(identityKey, { "x-user-id": uniq("leo") });
    const none = await chat(h.key, {});
    for (const r of [a, b, none]) expect(r.status).toBe(200);
    await h.proxy.writer.drain();
    const turnId = a.headers.get("x-turn-id")!;
    const turn = await db().turn.findUniqueOrThrow({ where: { id: turnId } });
    expect(turn).toMatchObject({ endUserId: maya, agentId: "writer", adapterId: null });
    const plain = await db().turn.findUniqueOrThrow({ where: { id: none.headers.get("x-turn-id")! } });
    expect(plain).toMatchObject({ endUserId: null, agentId: null });

    const list = await listTurns(
      await adminPrincipal(),
      TurnListInput.parse({ experimentId: h.experiment.id, endUserId: maya }),
    );
    expect(list.items.map((t) => t.id)).toEqual([turnId]);
  });
});
