// A per-user Tinker experiment served through the proxy's multi-LoRA upstream: the bridge's endpoint
// (integrations/tinker/serve.py with TINKER_PER_USER=1, on the fake Tinker SDK) speaks SGLang's LoRA routes, so the
// proxy loads each user's registered tinker:// sampler path under the user's adapter name and names it on that user's
// requests only; each user is answered by their own weights, a user without a version by the base, and an adapter the
// endpoint dropped is loaded again on the user's next request (SGLang's not-loaded answer).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTinkerEndpoint, type FakeTinkerEndpoint } from "../../../helpers/tinkerEndpoint";
import { ExperimentConfigSchema } from "../../../../server/config/experimentConfig";
import { createUpstream } from "../../../../server/proxy/upstreams/factory";
import type { EngineAdapter, Upstream } from "../../../../server/proxy/upstreams/types";

const BASE = "Qwen/Qwen3-4B-Instruct-2507";
const maya: EngineAdapter = { id: "maya1", path: "tinker://run-m/sampler_weights/run-7-u00000000000000aa-v000001" };
const leo: EngineAdapter = { id: "leo1", path: "tinker://run-l/sampler_weights/run-7-u00000000000000bb-v000001" };
let endpoint: FakeTinkerEndpoint;
let url: string;

beforeAll(async () => {
  endpoint = await startFakeTinkerEndpoint({ TINKER_PER_USER: "1", TINKER_BASE_MODEL: BASE });
  url = endpoint.url;
});
afterAll(() => endpoint.stop());

function upstream(): Upstream {
  const config = ExperimentConfigSchema.parse({
    method: "grpo",
    personalization: "per-user",
    policy: { kind: "sglang", baseUrl: url, model: BASE, loraAdapters: "sglang" },
    trainer: { backend: "tinker" },
  });
  return createUpstream({
    policy: config.policy,
    checkpointPath: null,
    version: 0,
    timeoutMs: 10_000,
    defaultMaxTokens: 256,
    servedName: "team-agent",
  });
}

async function ask(u: Upstream, engineAdapter?: EngineAdapter) {
  const r = await u.send({
    body: { messages: [{ role: "user", content: "hi" }] },
    stream: false,
    signal: new AbortController().signal,
    ...(engineAdapter ? { engineAdapter } : {}),
  });
  if (r.kind !== "json") throw new Error(`unexpected answer ${r.kind}: ${JSON.stringify(r)}`);
  const body = r.body as { choices: { message: { content: string } }[] };
  return { text: body.choices[0]!.message.content, adapter: r.adapter };
}

describe("per-user Tinker behind the proxy's multi-LoRA upstream", () => {
  it("answers each user from their own sampler path, and a user without one from the base", async () => {
    const u = upstream();
    expect(await ask(u, maya)).toEqual({ text: `answer from ${maya.path}`, adapter: { served: true } });
    expect(await ask(u, leo)).toEqual({ text: `answer from ${leo.path}`, adapter: { served: true } });
    expect((await ask(u)).text).toBe(`answer from ${BASE}`);
  });

  it("loads a user's sampler again after the endpoint dropped it (a restart of the bridge)", async () => {
    const u = upstream();
    expect((await ask(u, maya)).text).toBe(`answer from ${maya.path}`);
    const dropped = await fetch(new URL("/unload_lora_adapter", url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ lora_name: "ua-maya1" }),
    });
    expect(await dropped.json()).toEqual({ success: true, error_message: null });
    expect(await ask(u, maya)).toEqual({ text: `answer from ${maya.path}`, adapter: { served: true } });
  });
});
