// Per-user routing in the proxy: an identity key's X-User-Id is served by that user's promoted adapter on the
// embedded base (the response and the recorded turn name the adapter version); a user without one, or after a
// rollback, is served the base, or the shared adapter for new users where the experiment has one; a shared experiment
// ignores adapters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { db } from "../../../server/platform/db/client";
import { ROUTE_TTL_MS } from "../../../server/proxy/adapterRoutes";
import { EVERYONE } from "../../../server/config/experimentConfig";
import { rollbackEndUser } from "../../../server/personalization/service";
import { storePromotedAdapter } from "../../helpers/adapters";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { adminPrincipal, post, tempDataDir } from "./setup";

let proxy: ProxyServer;
beforeAll(async () => {
  await initBackend();
  proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir: await tempDataDir(), metricsIntervalMs: 3_600_000 });
});
afterAll(() => proxy.close());

describe("per-user routing", () => {
  it("serves a user's promoted adapter, records it on the turn, and falls back to the base after a rollback", async () => {
    const e = await makeExperiment({ personalization: "per-user" }, { by: await adminPrincipal() });
    const key = await makeKey(["identity"], e.id);
    const maya = uniq("maya");
    const adapter = await storePromotedAdapter(e.id, maya);
    const ask = (user: string) =>
      post(
        `${proxy.url}/v1/chat/completions`,
        { model: e.slug, messages: [{ role: "user", content: "Plan my day" }], max_tokens: 8, seed: 1, temperature: 0 },
        { authorization: `Bearer ${key}`, "x-user-id": user, "x-session-id": uniq("s") },
      );

    const mine = await ask(maya);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("x-adapter-id")).toBe(adapter.id);
    expect(mine.headers.get("x-adapter-version")).toBe("1");
    const other = await ask(uniq("leo"));
    expect(other.status).toBe(200);
    expect(other.headers.get("x-adapter-id")).toBeNull();
    // The adapter answers differently from the base on the same greedy request.
    const text = (r: typeof mine) => (r.json.choices as { message: { content: string } }[])[0].message.content;
    expect(text(mine)).not.toBe(text(other));

    await proxy.writer.drain();
    const turn = await db().turn.findUniqueOrThrow({ where: { id: mine.headers.get("x-turn-id")! } });
    expect(turn).toMatchObject({ endUserId: maya, adapterId: adapter.id });

    await rollbackEndUser(await adminPrincipal(), { experimentId: e.id, endUserId: maya });
    const after = await waitFor(
      "the rollback to reach the proxy's routes",
      async () => {
        const r = await ask(maya);
        return r.headers.get("x-adapter-id") === null ? r : null;
      },
      ROUTE_TTL_MS * 5,
    );
    expect(text(after)).toBe(text(other));
  });

  it("serves a user without an adapter of their own the shared adapter for new users, when the experiment has one", async () => {
    const e = await makeExperiment(
      { personalization: "per-user", perUser: { newUsers: "shared" } },
      { by: await adminPrincipal() },
    );
    const key = await makeKey(["identity"], e.id);
    const maya = uniq("maya");
    const own = await storePromotedAdapter(e.id, maya);
    const everyone = await storePromotedAdapter(e.id, EVERYONE);
    const ask = (user: string) =>
      post(
        `${proxy.url}/v1/chat/completions`,
        { model: e.slug, messages: [{ role: "user", content: "Plan my day" }], max_tokens: 4 },
        { authorization: `Bearer ${key}`, "x-user-id": user },
      );
    expect((await ask(maya)).headers.get("x-adapter-id")).toBe(own.id);
    const leo = uniq("leo");
    const newcomer = await ask(leo);
    expect(newcomer.headers.get("x-adapter-id")).toBe(everyone.id);
    await proxy.writer.drain();
    const turn = await db().turn.findUniqueOrThrow({ where: { id: newcomer.headers.get("x-turn-id")! } });
    expect(turn).toMatchObject({ endUserId: leo, adapterId: everyone.id });
    // Nobody can be served, or recorded, as everyone: the id is outside what X-User-Id may carry.
    expect((await ask(EVERYONE)).status).toBe(400);
  });

  it("ignores adapters in a shared experiment", async () => {
    const e = await makeExperiment({}, { by: await adminPrincipal() });
    const key = await makeKey(["identity"], e.id);
    await storePromotedAdapter(e.id, "ava");
    const r = await post(
      `${proxy.url}/v1/chat/completions`,
      { model: e.slug, messages: [{ role: "user", content: "Hi" }], max_tokens: 4 },
      { authorization: `Bearer ${key}`, "x-user-id": "ava" },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("x-adapter-id")).toBeNull();
  });
});
