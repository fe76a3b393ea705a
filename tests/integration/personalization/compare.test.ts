// Base vs a user's adapter side by side (POST …/end-users/:endUserId/compare): the same prompts, the user's own
// (held out when the gate holds some out), answered greedily by the base and by the base with the user's served
// adapter; a user served the base has nothing to compare (409), an experiment on an engine is refused (400).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { startApiServer } from "../../helpers/apiServer";
import { storePromotedAdapter } from "../../helpers/adapters";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  await initBackend();
  server = await startApiServer();
});
afterAll(() => server.close());

describe("compare base and adapter", () => {
  it("answers the user's prompts with the base and with their adapter", async () => {
    const e = await makeExperiment({ personalization: "per-user", perUser: { heldOutFraction: 0 } });
    const key = await makeKey(["read"], e.id);
    const maya = uniq("maya");
    for (const q of ["Plan my day", "What should I cook?", "Name a film", "Tell me a fact"])
      await makeEndUserTurn({ experimentId: e.id, endUserId: maya, prompt: q, reply: "Ok.", reward: 1 });
    const adapter = await storePromotedAdapter(e.id, maya);
    const compare = (user: string, body: object = {}) =>
      fetch(`${server.url}/api/v1/experiments/${e.id}/end-users/${user}/compare`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    const res = await compare(maya, { limit: 2, maxTokens: 12 });
    expect(res.status).toBe(200);
    const out = (await res.json()) as {
      adapterId: string;
      version: number;
      heldOut: boolean;
      pairs: { prompt: string; base: string; adapter: string }[];
    };
    expect(out).toMatchObject({ adapterId: adapter.id, version: 1, heldOut: false });
    // The newest two prompts, each answered by both; the adapter (B filled) answers differently from the base.
    expect(out.pairs.map((p) => p.prompt)).toEqual(["Name a film", "Tell me a fact"]);
    for (const p of out.pairs) expect(p.adapter).not.toBe(p.base);
    // Greedy: the same call answers the same.
    const again = (await (await compare(maya, { limit: 2, maxTokens: 12 })).json()) as typeof out;
    expect(again.pairs).toEqual(out.pairs);

    const none = await compare(uniq("leo"));
    expect(none.status).toBe(409);
  });

  it("is refused for adapters an engine serves", async () => {
    const e = await makeExperiment({
      personalization: "per-user",
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:9/v1", model: "m", loraAdapters: "sglang" },
      trainer: { backend: "hf-local" },
    });
    const key = await makeKey(["read"], e.id);
    const res = await fetch(`${server.url}/api/v1/experiments/${e.id}/end-users/ava/compare`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { reason: string } }).error.reason).toBe("adapter_not_servable");
  });
});
