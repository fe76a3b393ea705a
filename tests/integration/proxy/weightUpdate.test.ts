// A weight update under live traffic: slime pauses SGLang in its default "abort" mode, which returns every
// in-flight generation at once with finish_reason "abort" (tests/fakes/sglangPausable.ts). Through the proxy,
// no client request fails or comes back cut: JSON answers are asked again, streams continue from the text the
// client already has.
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";
import { pauseModeOf, REPLY, startFakeSglang, type FakeSglang } from "../../fakes/sglangPausable";
import { adminPrincipal, tempDataDir } from "./setup";

let fake: FakeSglang;
let proxy: ProxyServer;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeSglang();
  const experiment = await makeExperiment(
    { policy: { kind: "sglang", baseUrl: fake.url, model: "qwen" } },
    { by: await adminPrincipal(), name: uniq("weight-update") },
  );
  const key = await makeKey(["proxy"], experiment.id);
  proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir: await tempDataDir(), metricsIntervalMs: 3_600_000 });
  client = new OpenAI({ apiKey: key, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await proxy?.close();
  await fake?.close();
});

async function streamed(i: number): Promise<{ text: string; finish: string | null }> {
  const stream = await client.chat.completions.create({
    model: "m",
    stream: true,
    messages: [{ role: "user", content: `stream ${i}` }],
  });
  let text = "";
  let finish: string | null = null;
  for await (const c of stream) {
    text += c.choices[0]?.delta?.content ?? "";
    finish = c.choices[0]?.finish_reason ?? finish;
  }
  return { text, finish };
}

it("the pinned fork pauses SGLang in abort mode (its pause body sets no mode; SGLang's default is abort)", () => {
  // From tests/fixtures/sglang/pause-contract.json: if slime ever pauses with retract/in_place, this and the
  // stand-in change with the fixture, and the retry below is no longer exercised by a real pause.
  expect(pauseModeOf()).toBe("abort");
  expect(fake.pauseMode).toBe("abort");
});

it("a weight update that aborts every in-flight generation fails no client request", async () => {
  const json = [0, 1, 2, 3].map((i) =>
    client.chat.completions.create({ model: "m", messages: [{ role: "user", content: `json ${i}` }] }),
  );
  const streams = [0, 1, 2, 3].map(streamed);
  await fake.held(8);
  await fake.update();

  const settled = await Promise.allSettled([...json, ...streams]);
  expect(settled.filter((s) => s.status === "rejected")).toEqual([]);
  for (const s of settled.slice(0, 4)) {
    const c = (s as PromiseFulfilledResult<OpenAI.ChatCompletion>).value.choices[0]!;
    expect([c.message.content, c.finish_reason]).toEqual([REPLY, "stop"]);
  }
  for (const s of settled.slice(4)) {
    expect((s as PromiseFulfilledResult<{ text: string; finish: string | null }>).value).toEqual({
      text: REPLY,
      finish: "stop",
    });
  }
  // JSON answers were asked again as they were; streams continued from what their client already had.
  const continued = fake.bodies.filter((b) => b.continue_final_message === true);
  expect(continued).toHaveLength(4);
  for (const b of continued) {
    const messages = b.messages as { role: string; content: string }[];
    expect(messages.at(-1)).toEqual({ role: "assistant", content: REPLY.slice(0, Math.floor(REPLY.length / 2)) });
  }
  expect(fake.bodies).toHaveLength(16);
});
