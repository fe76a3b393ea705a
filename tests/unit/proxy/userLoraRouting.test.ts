// Per-user adapters on SGLang / vLLM multi-LoRA, through the proxy's HTTP upstream, against a stand-in engine held
// to the contracts extracted from each engine's source (tests/fakes/loraEngine.ts): each user's request names that
// user's adapter only; an adapter is loaded once, before its first request; an engine that dropped it (its own LRU,
// a restart) answers with the extracted not-loaded error, and the proxy loads it again and asks once more; when the
// engine refuses or still does not hold it, the base answers and the response says why; the proxy keeps at most
// `loraMaxLoaded` adapters loaded, unloading its least recently used one first.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { createUpstream } from "../../../server/proxy/upstreams/factory";
import { isNotLoaded, notLoadedText, type LoraEngine } from "../../../server/proxy/upstreams/lora";
import type { EngineAdapter, Upstream, UpstreamResponse } from "../../../server/proxy/upstreams/types";
import { fakeLoraEngine, loraContract } from "../../fakes/loraEngine";

const maya: EngineAdapter = { id: "maya1", path: "/ckpt/users/maya/v1" };
const leo: EngineAdapter = { id: "leo1", path: "/ckpt/users/leo/v1" };
const ava: EngineAdapter = { id: "ava1", path: "/ckpt/users/ava/v1" };

function upstreamFor(baseUrl: string, engine: LoraEngine, loraMaxLoaded?: number): Upstream {
  const config = ExperimentConfigSchema.parse({
    method: "grpo",
    personalization: "per-user",
    policy: { kind: "sglang", baseUrl, model: "base-model", loraAdapters: engine, loraMaxLoaded },
    trainer: { backend: "hf-local" },
  });
  return createUpstream({
    policy: config.policy,
    checkpointPath: null,
    version: 0,
    timeoutMs: 5000,
    defaultMaxTokens: 64,
    servedName: "team-agent",
  });
}

async function ask(u: Upstream, engineAdapter?: EngineAdapter, stream = false) {
  const r: UpstreamResponse = await u.send({
    // A client naming an adapter itself is ignored: the proxy picks it from the caller's identity.
    body: { messages: [{ role: "user", content: "hi" }], lora_path: "ua-leo1" },
    stream,
    signal: new AbortController().signal,
    ...(engineAdapter ? { engineAdapter } : {}),
  });
  if (r.kind === "error") throw new Error(`engine error ${r.status}: ${JSON.stringify(r.body)}`);
  let text = "";
  if (r.kind === "json") text = (r.body as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
  else
    for await (const c of r.chunks) {
      const ch = (c.json.choices as { delta?: { content?: string } }[] | undefined)?.[0];
      text += ch?.delta?.content ?? "";
    }
  return { text, adapter: r.adapter };
}

beforeAll(() => {
  process.env.ADAPTER_DIRS = "/ckpt";
});
afterAll(() => {
  delete process.env.ADAPTER_DIRS;
});

for (const engine of ["sglang", "vllm"] as const) {
  describe(`per-user adapters on ${engine}`, () => {
    let fake = fakeLoraEngine(engine);
    let url = "";
    beforeEach(async () => {
      await fake.stop().catch(() => {});
      fake = fakeLoraEngine(engine);
      url = await fake.start();
    });
    afterAll(() => fake.stop());

    it("serves each user their own adapter, loaded once before its first request", async () => {
      const u = upstreamFor(url, engine);
      expect(await ask(u, maya)).toEqual({
        text: "served by ua-maya1 from /ckpt/users/maya/v1",
        adapter: { served: true },
      });
      expect(await ask(u, leo)).toEqual({
        text: "served by ua-leo1 from /ckpt/users/leo/v1",
        adapter: { served: true },
      });
      expect((await ask(u, maya)).text).toBe("served by ua-maya1 from /ckpt/users/maya/v1");
      // A user without an adapter is served the base, whatever the client named.
      expect(await ask(u)).toEqual({ text: "served by base", adapter: undefined });
      expect(fake.served()).toEqual(["ua-maya1", "ua-leo1", "ua-maya1", null]);
      const loads = fake.calls.filter((c) => c.path.endsWith("/load_lora_adapter")).map((c) => c.body);
      expect(loads).toEqual([
        { lora_name: "ua-maya1", lora_path: "/ckpt/users/maya/v1" },
        { lora_name: "ua-leo1", lora_path: "/ckpt/users/leo/v1" },
      ]);
    });

    it("loads an adapter the engine dropped again and still serves its user, never another's", async () => {
      const u = upstreamFor(url, engine);
      fake.limit(1); // the engine holds one adapter: every switch of user evicts the other
      for (let i = 0; i < 3; i++) {
        expect((await ask(u, maya)).text).toBe("served by ua-maya1 from /ckpt/users/maya/v1");
        expect((await ask(u, leo, true)).text).toBe("served by ua-leo1 from /ckpt/users/leo/v1");
      }
      fake.evict("ua-leo1");
      expect(await ask(u, leo)).toEqual({
        text: "served by ua-leo1 from /ckpt/users/leo/v1",
        adapter: { served: true },
      });
      // After the first two loads, each request found its adapter evicted and was asked again on the same adapter:
      // never of the base, never of the other user's.
      expect(fake.served()).toEqual([
        "ua-maya1",
        "ua-leo1",
        ...Array.from({ length: 4 }, (_, i) =>
          i % 2 === 0 ? ["ua-maya1", "ua-maya1"] : ["ua-leo1", "ua-leo1"],
        ).flat(),
        "ua-leo1",
        "ua-leo1",
      ]);
    });

    it("falls back to the base, saying why, when the engine refuses the adapter or keeps losing it", async () => {
      const u = upstreamFor(url, engine);
      fake.refuse(true);
      expect(await ask(u, maya)).toEqual({
        text: "served by base",
        adapter: { served: false, fallback: "adapter_load_failed" },
      });
      fake.refuse(false);
      fake.lose(true);
      expect(await ask(u, leo)).toEqual({
        text: "served by base",
        adapter: { served: false, fallback: "adapter_not_loaded" },
      });
      fake.lose(false);
      // Once the engine holds it again, the user's adapter serves.
      expect(await ask(u, leo)).toEqual({
        text: "served by ua-leo1 from /ckpt/users/leo/v1",
        adapter: { served: true },
      });
    });

    it("never asks the engine to load a folder outside ADAPTER_DIRS", async () => {
      const u = upstreamFor(url, engine);
      expect(await ask(u, { id: "eve1", path: "/etc/ssh" })).toEqual({
        text: "served by base",
        adapter: { served: false, fallback: "adapter_load_failed" },
      });
      expect(fake.calls.filter((c) => c.path.includes("lora_adapter"))).toEqual([]);
    });

    it("keeps at most loraMaxLoaded adapters loaded, unloading its least recently used first", async () => {
      const u = upstreamFor(url, engine, 2);
      await ask(u, maya);
      await ask(u, leo);
      await ask(u, maya);
      await ask(u, ava); // leo is the least recently used
      expect([...fake.loaded.keys()].sort()).toEqual(["ua-ava1", "ua-maya1"]);
      const unloads = fake.calls.filter((c) => c.path.endsWith("/unload_lora_adapter")).map((c) => c.body);
      expect(unloads).toEqual([{ lora_name: "ua-leo1" }]);
      expect((await ask(u, leo)).text).toBe("served by ua-leo1 from /ckpt/users/leo/v1");
    });

    it("loads again an adapter the engine still holds from before a restart of the proxy", async () => {
      await ask(upstreamFor(url, engine), maya);
      const restarted = upstreamFor(url, engine);
      expect(await ask(restarted, maya)).toEqual({
        text: "served by ua-maya1 from /ckpt/users/maya/v1",
        adapter: { served: true },
      });
    });
  });

  describe(`${engine}'s not-loaded answer`, () => {
    const c = loraContract(engine);
    it("is the extracted one, and names the adapter exactly", () => {
      // The text the proxy looks for is the extracted f-string's literal part(s) around the name.
      expect(notLoadedText(engine, "X")).toBe(
        engine === "sglang" ? `${c.notLoaded.parts[0]}X` : `${c.notLoaded.parts[0]}X${c.notLoaded.parts[1]}`,
      );
      if (engine === "vllm") expect(c.notLoaded.status).toBe(404);
      const answer = (name: string) => JSON.stringify({ error: { message: c.notLoaded.parts.join(name) } });
      expect(isNotLoaded(engine, 404, answer("ua-a"), "ua-a")).toBe(true);
      expect(isNotLoaded(engine, 404, answer("ua-ab"), "ua-a")).toBe(false);
      expect(isNotLoaded(engine, 404, JSON.stringify({ error: { message: "boom" } }), "ua-a")).toBe(false);
    });
  });
}
