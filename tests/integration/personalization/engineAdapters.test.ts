// Per-user adapters served by SGLang / vLLM multi-LoRA, end to end: a user's PEFT folder registered over REST
// (POST …/end-users/:endUserId/adapters) is loaded into the stand-in engine (held to the extracted contracts) as soon
// as it is registered (or on the user's next request), named on their requests only; the response and the recorded turn
// say which adapter version served; an engine that refuses it leaves the user on the base with
// `x-adapter-fallback`; a rollback returns the user to their previous version; deleting the user unloads theirs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { ROUTE_TTL_MS } from "../../../server/proxy/adapterRoutes";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { fakeLoraEngine } from "../../fakes/loraEngine";
import { startApiServer } from "../../helpers/apiServer";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { adminPrincipal, post, tempDataDir } from "../proxy/setup";

let proxy: ProxyServer;
let api: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  process.env.ADAPTER_DIRS = "/ckpt";
  proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir: await tempDataDir(), metricsIntervalMs: 3_600_000 });
  api = await startApiServer();
});
afterAll(async () => {
  await proxy.close();
  await api.close();
  delete process.env.ADAPTER_DIRS;
});

for (const engine of ["sglang", "vllm"] as const) {
  describe(`per-user adapters on ${engine} through the proxy`, () => {
    const fake = fakeLoraEngine(engine);
    let url = "";
    beforeAll(async () => {
      url = await fake.start();
    });
    afterAll(() => fake.stop());

    it("routes each user to their registered adapter, says which version served, and falls back with a reason", async () => {
      const e = await makeExperiment(
        {
          personalization: "per-user",
          policy: { kind: "sglang", baseUrl: url, model: "base-model", loraAdapters: engine },
          trainer: { backend: "hf-local" },
        },
        { by: await adminPrincipal() },
      );
      const writeKey = await makeKey(["write"], e.id);
      const register = async (user: string, body: Record<string, unknown>) => {
        const res = await fetch(`${api.url}/api/v1/experiments/${e.id}/end-users/${user}/adapters`, {
          method: "POST",
          headers: { authorization: `Bearer ${writeKey}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: res.status, json: (await res.json()) as Record<string, unknown> };
      };
      const proxyKey = await makeKey(["identity"], e.id);
      const ask = (user: string) =>
        post(
          `${proxy.url}/v1/chat/completions`,
          { model: e.slug, messages: [{ role: "user", content: "Plan my day" }], lora_path: "ua-someone-else" },
          { authorization: `Bearer ${proxyKey}`, "x-user-id": user, "x-session-id": uniq("s") },
        );
      const text = (r: Awaited<ReturnType<typeof ask>>) =>
        (r.json.choices as { message: { content: string } }[])[0].message.content;

      const maya = uniq("maya");
      const leo = uniq("leo");
      const v1 = await register(maya, { path: "/ckpt/maya/v1", rank: 8, alpha: 16 });
      expect(v1).toMatchObject({ status: 201, json: { endUserId: maya, version: 1, state: "PROMOTED" } });
      const refused = await register(leo, { path: "/etc/ssh", rank: 8, alpha: 16 });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatchObject({ reason: "adapter_not_servable" });

      // Loaded into the engine when it is registered (channel userAdapter), before Maya's first request.
      await waitFor(
        "the registered adapter to be preloaded",
        async () => fake.loaded.has(`ua-${String(v1.json.adapterId)}`) || null,
      );
      expect(fake.served()).toEqual([]);
      const mine = await ask(maya);
      expect(mine.status).toBe(200);
      expect(mine.headers.get("x-adapter-id")).toBe(v1.json.adapterId);
      expect(mine.headers.get("x-adapter-version")).toBe("1");
      expect(text(mine)).toBe(`served by ua-${String(v1.json.adapterId)} from /ckpt/maya/v1`);
      const other = await ask(leo);
      expect(other.headers.get("x-adapter-id")).toBeNull();
      expect(text(other)).toBe("served by base");

      await proxy.writer.drain();
      const turn = await db().turn.findUniqueOrThrow({ where: { id: mine.headers.get("x-turn-id")! } });
      expect(turn).toMatchObject({ endUserId: maya, adapterId: v1.json.adapterId });

      // A second version serves once the proxy's route sees it; the engine refusing it leaves Maya on the base.
      fake.refuse(true);
      const v2 = await register(maya, { path: "/ckpt/maya/v2", rank: 8, alpha: 16 });
      expect(v2.json).toMatchObject({ version: 2, state: "PROMOTED" });
      const fellBack = await waitFor(
        "the new version to reach the proxy's routes",
        async () => {
          const r = await ask(maya);
          return r.headers.get("x-adapter-fallback") ? r : null;
        },
        ROUTE_TTL_MS * 5,
      );
      expect(fellBack.status).toBe(200);
      expect(fellBack.headers.get("x-adapter-fallback")).toBe("adapter_load_failed");
      expect(fellBack.headers.get("x-adapter-id")).toBeNull();
      expect(text(fellBack)).toBe("served by base");
      await proxy.writer.drain();
      const baseTurn = await db().turn.findUniqueOrThrow({ where: { id: fellBack.headers.get("x-turn-id")! } });
      expect(baseTurn.adapterId).toBeNull();
      fake.refuse(false);

      const rolled = await fetch(`${api.url}/api/v1/experiments/${e.id}/end-users/${maya}/rollback`, {
        method: "POST",
        headers: { authorization: `Bearer ${writeKey}`, "content-type": "application/json" },
        body: "{}",
      });
      expect(await rolled.json()).toEqual({ endUserId: maya, rolledBack: 2, served: 1 });
      const back = await waitFor(
        "the rollback to reach the proxy's routes",
        async () => {
          const r = await ask(maya);
          return r.headers.get("x-adapter-version") === "1" ? r : null;
        },
        ROUTE_TTL_MS * 5,
      );
      expect(text(back)).toBe(`served by ua-${String(v1.json.adapterId)} from /ckpt/maya/v1`);
      // Every adapter the engine was asked for on a chat request was Maya's (v2 may serve once the engine takes it,
      // until the rollback reaches the routes); Leo's requests went to the base.
      const named = new Set(fake.served().filter((n) => n !== null));
      expect(named.has(`ua-${String(v1.json.adapterId)}`)).toBe(true);
      for (const n of named)
        expect([`ua-${String(v1.json.adapterId)}`, `ua-${String(v2.json.adapterId)}`]).toContain(n);

      // Deleting Maya unloads every adapter of hers from the engine; nobody else's is touched.
      const hers = [`ua-${String(v1.json.adapterId)}`, `ua-${String(v2.json.adapterId)}`];
      expect(hers.some((n) => fake.loaded.has(n))).toBe(true);
      fake.calls.length = 0;
      const deleted = await fetch(`${api.url}/api/v1/experiments/${e.id}/end-users/${maya}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${writeKey}` },
      });
      expect(deleted.status).toBe(200);
      await waitFor("Maya's adapters to be unloaded", async () => !hers.some((n) => fake.loaded.has(n)) || null);
      expect(fake.calls.length).toBeGreaterThan(0);
      expect(fake.calls.every((c) => c.path.endsWith("/unload_lora_adapter"))).toBe(true);
    });

    it("refuses to register a folder for an experiment whose adapters the embedded engine serves", async () => {
      const e = await makeExperiment({ personalization: "per-user" }, { by: await adminPrincipal() });
      const key = await makeKey(["write"], e.id);
      const res = await fetch(`${api.url}/api/v1/experiments/${e.id}/end-users/ava/adapters`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ path: "/ckpt/ava/v1", rank: 8, alpha: 16 }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { reason: string } }).error.reason).toBe("adapter_not_servable");
    });
  });
}
