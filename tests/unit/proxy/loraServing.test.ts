// Trained versions served as LoRA adapters hot-loaded into SGLang or vLLM: through the proxy's HTTP upstream and its
// version switch, against a stand-in engine that accepts only the routes and body fields extracted from each
// engine's source (tests/fixtures/lora/*.json): a field the real request class lacks is a 422 here too.
// Adapter folders outside the operator's ADAPTER_DIRS are never sent to the engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { createUpstream } from "../../../server/proxy/upstreams/factory";
import type { LoraEngine } from "../../../server/proxy/upstreams/lora";
import type { Upstream } from "../../../server/proxy/upstreams/types";
import { fakeLoraEngine } from "../../fakes/loraEngine";

function upstreamFor(
  baseUrl: string,
  engine: LoraEngine,
  initial = { version: 0, checkpointPath: null as string | null },
) {
  const config = ExperimentConfigSchema.parse({
    method: "grpo",
    policy: { kind: "sglang", baseUrl, model: "base-model", loraAdapters: engine },
    trainer: { backend: "hf-local" },
  });
  return createUpstream({
    policy: config.policy,
    checkpointPath: initial.checkpointPath,
    version: initial.version,
    timeoutMs: 5000,
    defaultMaxTokens: 64,
    servedName: "leo-agent",
  });
}

async function ask(u: Upstream): Promise<string> {
  const r = await u.send({
    body: { messages: [{ role: "user", content: "hi" }], lora_path: "someone-elses-v9" },
    stream: false,
    signal: new AbortController().signal,
  } as never);
  if (r.kind !== "json") throw new Error(`expected a JSON answer, got ${r.kind}: ${JSON.stringify(r)}`);
  return (r.body as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
}

// The stand-in engine's adapter folders (they need not exist: the engine is the one that reads them).
beforeAll(() => {
  process.env.ADAPTER_DIRS = "/ckpt";
});
afterAll(() => {
  delete process.env.ADAPTER_DIRS;
});

for (const engine of ["sglang", "vllm"] as const) {
  describe(`LoRA hot-loading on ${engine}`, () => {
    const fake = fakeLoraEngine(engine);
    let url = "";
    beforeAll(async () => {
      url = await fake.start();
    });
    afterAll(() => fake.stop());

    it("serves the base, then each new version's adapter once loaded, and unloads all but the last two", async () => {
      const u = upstreamFor(url, engine);
      expect(await ask(u)).toBe("served by base");
      for (const v of [1, 2, 3]) await u.switchVersion!(v, `/ckpt/hf-local/step_${v}`);
      expect(await ask(u)).toBe("served by leo-agent-v3 from /ckpt/hf-local/step_3");
      const load = fake.calls.filter((c) => c.path.endsWith("/load_lora_adapter"));
      expect(load.map((c) => c.body)).toEqual(
        [1, 2, 3].map((v) => ({ lora_name: `leo-agent-v${v}`, lora_path: `/ckpt/hf-local/step_${v}` })),
      );
      expect([...fake.loaded.keys()].sort()).toEqual(["leo-agent-v2", "leo-agent-v3"]);
      // Rolling back to the base: requests name no adapter.
      await u.switchVersion!(0, null);
      expect(await ask(u)).toBe("served by base");
      await u.close();
    });

    it("keeps serving the previous version when the engine refuses the new adapter", async () => {
      const u = upstreamFor(url, engine);
      await u.switchVersion!(4, "/ckpt/step_4");
      fake.refuse(true);
      await expect(u.switchVersion!(5, "/ckpt/missing")).rejects.toThrow(/no such adapter folder/);
      fake.refuse(false);
      expect(await ask(u)).toBe("served by leo-agent-v4 from /ckpt/step_4");
      await u.close();
    });

    it("never asks the engine to load a folder outside ADAPTER_DIRS, and keeps the previous version", async () => {
      const u = upstreamFor(url, engine);
      await u.switchVersion!(8, "/ckpt/step_8");
      const before = fake.calls.length;
      for (const bad of ["/etc/ssh", "/ckpt/../etc/ssh", "ckpt/step_9"])
        await expect(u.switchVersion!(9, bad)).rejects.toThrow(/adapter folder/);
      expect(fake.calls.length).toBe(before);
      expect(await ask(u)).toBe("served by leo-agent-v8 from /ckpt/step_8");
      await u.close();
    });

    it("loads the version live at start-up before its first request", async () => {
      const u = upstreamFor(url, engine, { version: 7, checkpointPath: "/ckpt/step_7" });
      expect(await ask(u)).toBe("served by leo-agent-v7 from /ckpt/step_7");
      await u.close();
    });
  });
}

describe("the loraAdapters option", () => {
  it("is refused for a trainer whose checkpoints are not PEFT adapters", () => {
    const r = ExperimentConfigSchema.safeParse({
      policy: { kind: "sglang", baseUrl: "http://10.0.0.5:30000/v1", model: "m", loraAdapters: "sglang" },
      trainer: { backend: "ray-slime", rayAddress: "http://head:8265" },
    });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("LoRA hot-loading serves hf-local's PEFT adapters");
  });
});
