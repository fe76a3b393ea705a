// Stock OpenClaw deployments mapped to end users: OpenClaw sends no user id of its own (bench/lib/openclawShapes.ts:
// the request shapes of 2026.3.1 and 2026.9.6), so each person's OpenClaw holds a key bound to that person
// (docs/connect-openclaw.md). Two of them talk through the proxy to one per-user experiment served by SGLang
// multi-LoRA (the contract-held stand-in): each conversation is stitched into its own session, every turn is
// recorded as its person's, and each person's requests are answered by their own adapter only.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, OpenClawAgent, type Body } from "../../../bench/lib/openclawShapes";
import { createApiKey } from "../../../server/apiKeys/service";
import { db } from "../../../server/platform/db/client";
import { registerEndUserAdapter } from "../../../server/personalization/service";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { fakeLoraEngine } from "../../fakes/loraEngine";
import { makeExperiment, uniq } from "../../helpers/fixtures";
import { adminPrincipal, tempDataDir } from "../proxy/setup";

let proxy: ProxyServer;
const engine = fakeLoraEngine("sglang");
beforeAll(async () => {
  process.env.ADAPTER_DIRS = "/ckpt";
  proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir: await tempDataDir(), metricsIntervalMs: 3_600_000 });
});
afterAll(async () => {
  await proxy.close();
  await engine.stop();
  delete process.env.ADAPTER_DIRS;
});

describe("OpenClaw deployments as end users", () => {
  it("records and serves each person's OpenClaw as that person", async () => {
    const url = await engine.start();
    const admin = await adminPrincipal();
    const e = await makeExperiment(
      {
        personalization: "per-user",
        policy: { kind: "sglang", baseUrl: url, model: "base-model", loraAdapters: "sglang" },
        trainer: { backend: "hf-local" },
      },
      { by: admin },
    );
    const people = [uniq("maya"), uniq("leo")] as const;
    const adapters = await Promise.all(
      people.map((p) =>
        registerEndUserAdapter(admin, {
          experimentId: e.id,
          endUserId: p,
          path: `/ckpt/${p}/v1`,
          rank: 8,
          alpha: 16,
        }),
      ),
    );
    const agents = await Promise.all(
      people.map(async (endUserId, i) => {
        const { key } = await createApiKey(null, {
          name: uniq("openclaw"),
          scopes: ["proxy"],
          experimentId: e.id,
          endUserId,
        });
        const client = new OpenAI({ apiKey: key, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
        const send = async (body: Body) => {
          const { data, response } = await client.chat.completions
            .create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming)
            .withResponse();
          return { ...(await collect(data)), turnId: response.headers.get("x-turn-id")! };
        };
        return new OpenClawAgent(i === 0 ? "2026.3.1" : "2026.9.6", send, { systemChars: 2000, tools: 2 });
      }),
    );
    // Interleaved, as two people's assistants would be.
    for (const [a, b] of [
      ["Plan my day", "What's for dinner?"],
      ["Shorter please", "Make it a list"],
      ["Thanks", "Thanks"],
    ])
      await Promise.all([agents[0].say(a), agents[1].say(b)]);
    await proxy.writer.drain();

    for (const [i, agent] of agents.entries()) {
      const turns = await db().turn.findMany({ where: { id: { in: agent.sent.map((s) => s.reply.turnId!) } } });
      expect(turns.length).toBe(3);
      expect(new Set(turns.map((t) => t.sessionId)).size).toBe(1);
      expect(turns.every((t) => t.endUserId === people[i] && t.adapterId === adapters[i].adapterId)).toBe(true);
      expect(
        agent.sent.every((s) => s.reply.content === `served by ua-${adapters[i].adapterId} from /ckpt/${people[i]}/v1`),
      ).toBe(true);
    }
  });
});
