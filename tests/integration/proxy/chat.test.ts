// The proxy driven by the official `openai` client: non-streaming and streaming answers, tools,
// reasoning, what reaches the upstream, and what is recorded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { fakeLogprob, fakeTokenId, pieces } from "../../../bench/lib/fakeOpenaiUpstream";
import { uniq } from "../../helpers/fixtures";
import { harness, type Harness } from "./setup";

let h: Harness;
beforeAll(async () => {
  h = await harness({ fake: { tokenIds: true } });
});
afterAll(() => h.close());

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

async function turnById(id: string) {
  await h.proxy.writer.drain();
  return db().turn.findUniqueOrThrow({ where: { id } });
}

describe("POST /v1/chat/completions", () => {
  it("answers a non-streaming request with a tool call in OpenAI's shape and records it", async () => {
    const session = uniq("s");
    h.fake.enqueue({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "system", content: "You are a helpful agent." },
      { role: "user", content: "What is the weather in Paris?" },
    ];
    const { data, response } = await h.client.chat.completions
      .create(
        { model: "whatever", messages, tools: [weatherTool] },
        { headers: { "X-Session-Id": session, "X-Turn-Type": "main" } },
      )
      .withResponse();
    expect(data.choices[0]!.message.tool_calls![0]).toMatchObject({
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    });
    expect(data.choices[0]!.finish_reason).toBe("tool_calls");
    expect(data.choices[0]!.logprobs).toBeNull(); // asked by the proxy, not by the client
    expect((data as unknown as { session_id: string }).session_id).toBe(session);
    expect(response.headers.get("x-session-id")).toBe(session);

    const sent = h.fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe("Bearer upstream-secret");
    expect(sent.body).toMatchObject({
      model: h.fake.model,
      logprobs: true,
      top_logprobs: 0,
      stream: false,
      messages,
      tools: [weatherTool],
    });
    expect(sent.body).not.toHaveProperty("session_id");

    const turn = await turnById(response.headers.get("x-turn-id")!);
    expect(turn).toMatchObject({
      turnType: "MAIN",
      typeSource: "header",
      status: "OK",
      finishReason: "tool_calls",
      upstreamModel: h.fake.model,
      policyVersion: 0,
    });
    expect(turn.toolCalls).toEqual([
      {
        id: data.choices[0]!.message.tool_calls![0]!.id,
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(await reassembleMessages(turn)).toEqual(messages);
    const tools = await db().blob.findUniqueOrThrow({ where: { hash: turn.toolsHash! } });
    expect(tools.content).toEqual([weatherTool]);
    const session_ = await db().agentSession.findUniqueOrThrow({ where: { id: turn.sessionId } });
    expect(session_).toMatchObject({ externalId: session, idSource: "header", turnCount: 1 });
  });

  it("streams real deltas (content, reasoning_content), records log-probs, token ids and usage", async () => {
    const content = "Hello there my friend";
    h.fake.enqueue({ content, reasoning: "thinking about it", chunkDelayMs: 2 });
    const { data: stream, response } = await h.client.chat.completions
      .create(
        {
          model: "x",
          messages: [{ role: "user", content: "hi" }],
          stream: true,
          stream_options: { include_usage: true },
        },
        { headers: { "X-Session-Id": uniq("s") } },
      )
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    const reasoning = chunks
      .map((c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "")
      .join("");
    expect(text).toBe(content);
    expect(reasoning).toBe("thinking about it");
    // One chunk per piece the upstream sent: real streaming, not one buffered blob.
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(pieces(content).length);
    expect(chunks.every((c) => !c.choices[0]?.logprobs)).toBe(true);
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: pieces(content).length });

    const turn = await turnById(response.headers.get("x-turn-id")!);
    expect(turn.content).toBe(content);
    expect(turn.reasoning).toBe("thinking about it");
    expect(turn.logprobs).toEqual(pieces(content).map((_, i) => fakeLogprob(i)));
    expect(turn.tokenIds).toEqual(pieces(content).map((_, i) => fakeTokenId(i)));
    expect(turn.completionTokens).toBe(pieces(content).length);
    expect(turn.promptTokens).toBeGreaterThan(0);
    expect(turn.ttftMs).not.toBeNull();
    expect(turn.finishReason).toBe("stop");
    // The default turn type of this experiment is main (stock clients), decided by default.
    expect(turn).toMatchObject({ turnType: "MAIN", typeSource: "default" });
  });

  it("records usage from the stream even when the client did not ask for the usage chunk", async () => {
    const { data: stream, response } = await h.client.chat.completions
      .create(
        { model: "x", messages: [{ role: "user", content: "count to three" }], stream: true },
        { headers: { "X-Session-Id": uniq("s") } },
      )
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.some((c) => c.usage)).toBe(false);
    const sent = h.fake.requests.at(-1)!.body;
    expect(sent.stream_options).toEqual({ include_usage: true });
    const turn = await turnById(response.headers.get("x-turn-id")!);
    expect(turn.completionTokens).toBe(pieces("echo: count to three").length);
  });

  it("passes through what stock clients send: max_completion_tokens, store, tool_choice, content arrays; logprobs when asked", async () => {
    const { data } = await h.client.chat.completions
      .create({
        model: "x",
        messages: [{ role: "user", content: [{ type: "text", text: "array content" }] }],
        max_completion_tokens: 77,
        store: false,
        tool_choice: "auto",
        tools: [weatherTool],
        logprobs: true,
      })
      .withResponse();
    const sent = h.fake.requests.at(-1)!.body;
    expect(sent).toMatchObject({
      max_completion_tokens: 77,
      store: false,
      tool_choice: "auto",
      messages: [{ role: "user", content: [{ type: "text", text: "array content" }] }],
    });
    expect(sent).not.toHaveProperty("max_tokens");
    expect(data.choices[0]!.logprobs!.content!.map((t) => t.logprob)).toEqual(
      pieces("echo: array content").map((_, i) => fakeLogprob(i)),
    );
  });

  it("lists models and reports health", async () => {
    const models = await h.client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([h.experiment.slug]);
    expect((await fetch(`${h.proxy.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.proxy.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, database: "ok" });
  });
});

describe("an SGLang upstream (every optional field serialised, null when unset)", () => {
  let sg: Harness;
  beforeAll(async () => {
    sg = await harness({ fake: { tokenIds: true, flavor: "sglang" } });
  });
  afterAll(() => sg.close());
  const turnById = async (id: string) => {
    await sg.proxy.writer.drain();
    return db().turn.findUniqueOrThrow({ where: { id } });
  };

  it("streams content, reasoning and a tool call whose deltas carry explicit nulls, and records them", async () => {
    sg.fake.enqueue({
      content: "Let me look",
      reasoning: "the user wants the weather",
      toolCalls: [{ name: "get_weather", arguments: '{"city":"Oslo"}' }],
    });
    const { data: stream, response } = await sg.client.chat.completions
      .create(
        { model: "x", messages: [{ role: "user", content: "weather in Oslo?" }], tools: [weatherTool], stream: true },
        { headers: { "X-Session-Id": uniq("s") } },
      )
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("Let me look");
    // SGLang's explicit nulls reach the client as sent (the SDK's own types allow them).
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls === null)).toBe(true);
    const turn = await turnById(response.headers.get("x-turn-id")!);
    expect(turn).toMatchObject({
      content: "Let me look",
      reasoning: "the user wants the weather",
      finishReason: "tool_calls",
      status: "OK",
    });
    expect(turn.toolCalls).toEqual([
      { id: expect.any(String), type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ]);
    expect(turn.tokenIds).toEqual(pieces("Let me look").map((_, i) => fakeTokenId(i)));
  });

  it('answers a non-streaming request (content "" beside tool calls, reasoning_content null) and records it', async () => {
    sg.fake.enqueue({ toolCalls: [{ name: "get_weather", arguments: '{"city":"Rome"}' }] });
    const { data, response } = await sg.client.chat.completions
      .create(
        { model: "x", messages: [{ role: "user", content: "weather in Rome?" }], tools: [weatherTool] },
        { headers: { "X-Session-Id": uniq("s") } },
      )
      .withResponse();
    expect(data.choices[0]!.message.tool_calls![0]).toMatchObject({
      function: { name: "get_weather", arguments: '{"city":"Rome"}' },
    });
    const turn = await turnById(response.headers.get("x-turn-id")!);
    expect(turn).toMatchObject({ reasoning: null, finishReason: "tool_calls", status: "OK" });
    expect(turn.content ?? "").toBe("");
    expect(turn.toolCalls).toHaveLength(1);
  });
});
