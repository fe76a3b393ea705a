// Keys bound to an end user (the key an agent or app holds for one person): created over REST with an experiment
// binding and the proxy scope only; the proxy serves and records their traffic as that user with no header, routes
// it to that user's promoted adapter, and refuses an X-User-Id naming someone else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { db } from "../../../server/platform/db/client";
import { storePromotedAdapter } from "../../helpers/adapters";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeExperiment, makeKey, uniq } from "../../helpers/fixtures";
import { adminPrincipal, post, tempDataDir } from "../proxy/setup";

let proxy: ProxyServer;
let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  await initBackend();
  server = await startApiServer();
  proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir: await tempDataDir(), metricsIntervalMs: 3_600_000 });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

describe("keys bound to an end user", () => {
  it("are created only with an experiment binding and the proxy scope", async () => {
    const e = await makeExperiment({ personalization: "per-user" }, { by: await adminPrincipal() });
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const unbound = await admin("POST", "/api/v1/api-keys", { name: uniq("k"), scopes: ["proxy"], endUserId: "maya" });
    expect(unbound.status).toBe(400);
    expect(JSON.stringify(unbound.body)).toMatch(/experimentId/);
    const broad = await admin("POST", "/api/v1/api-keys", {
      name: uniq("k"),
      scopes: ["proxy", "read"],
      experimentId: e.id,
      endUserId: "maya",
    });
    expect(broad.status).toBe(400);
    expect(JSON.stringify(broad.body)).toMatch(/proxy scope only/);
    const badId = await admin("POST", "/api/v1/api-keys", {
      name: uniq("k"),
      scopes: ["proxy"],
      experimentId: e.id,
      endUserId: "maya/../noor",
    });
    expect(badId.status).toBe(400);
    expect(await db().apiKey.count({ where: { experimentId: e.id } })).toBe(0);
  });

  it("serve and record their user without a header, route to the user's adapter, and refuse another X-User-Id", async () => {
    const e = await makeExperiment({ personalization: "per-user" }, { by: await adminPrincipal() });
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const maya = uniq("maya");
    const created = await admin("POST", "/api/v1/api-keys", {
      name: uniq("maya-agent"),
      scopes: ["proxy"],
      experimentId: e.id,
      endUserId: maya,
    });
    expect(created.status).toBe(201);
    expect(created.body.endUserId).toBe(maya);
    const adapter = await storePromotedAdapter(e.id, maya);
    const ask = (headers: Record<string, string> = {}) =>
      post(
        `${proxy.url}/v1/chat/completions`,
        { model: e.slug, messages: [{ role: "user", content: "Plan my day" }], max_tokens: 8, seed: 1, temperature: 0 },
        { authorization: `Bearer ${created.body.key as string}`, "x-session-id": uniq("s"), ...headers },
      );

    const plain = await ask();
    expect(plain.status).toBe(200);
    expect(plain.headers.get("x-adapter-id")).toBe(adapter.id);
    const named = await ask({ "x-user-id": maya });
    expect(named.status).toBe(200);
    const other = await ask({ "x-user-id": uniq("noor") });
    expect(other.status).toBe(403);
    expect(JSON.stringify(other.json)).toMatch(/serves one end user/);

    await proxy.writer.drain();
    const turns = await db().turn.findMany({ where: { experimentId: e.id }, select: { endUserId: true } });
    expect(turns.map((t) => t.endUserId)).toEqual([maya, maya]);

    // A plain proxy key of the same experiment still cannot assert a user at all.
    const plainKey = await makeKey(["proxy"], e.id);
    const refused = await post(
      `${proxy.url}/v1/chat/completions`,
      { model: e.slug, messages: [{ role: "user", content: "Hi" }], max_tokens: 4 },
      { authorization: `Bearer ${plainKey}`, "x-user-id": maya },
    );
    expect(refused.status).toBe(403);
  });
});
