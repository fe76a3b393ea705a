// The embedded upstream answers a reply that holds the chat template's <tool_call> blocks as an OpenAI tool
// call (message.tool_calls, finish_reason "tool_calls"), in full and streamed, so an agent loop through the proxy
// sees the embedded policy call its tools; a reply without one stays plain content.
import { describe, expect, it } from "vitest";
import type { ChatResult } from "../../../../server/engine/engine";
import type { TokenEvent } from "../../../../server/engine/generate";
import { encode } from "../../../../server/engine/tokenizer";
import { EmbeddedUpstream, type EngineLike } from "../../../../server/proxy/upstreams/embedded";

/** An engine that "samples" a fixed text, one event per byte. */
function fixedEngine(text: string): EngineLike {
  const ids = encode(text);
  return {
    loaded: true,
    version: 0,
    load: async () => {},
    swap: async () => {},
    dispose: () => {},
    chatStream() {
      async function* gen(): AsyncGenerator<TokenEvent, ChatResult> {
        for (const [index, tokenId] of ids.entries())
          yield { row: 0, index, tokenId, text: String.fromCharCode(tokenId), logprob: -0.1 };
        return { tokenIds: ids, logprobs: ids.map(() => -0.1), text, finishReason: "stop", promptIds: [1], version: 0 };
      }
      return Object.assign(gen(), { version: 0 });
    },
  };
}

const call = '<tool_call>{"name":"calc","arguments":{"expression":"17 * 23"}}</tool_call>';
const send = (text: string, stream: boolean) =>
  new EmbeddedUpstream({
    model: "m",
    checkpointPath: "unused",
    version: 0,
    defaultMaxTokens: 16,
    engine: fixedEngine(text),
  }).send({
    body: { messages: [{ role: "user", content: "What is 17 * 23?" }] },
    stream,
    signal: new AbortController().signal,
  });

describe("embedded upstream tool calls", () => {
  it("answers a <tool_call> reply as message.tool_calls", async () => {
    const r = await send(call, false);
    expect(r.kind).toBe("json");
    const choice = (r as { body: { choices: Record<string, unknown>[] } }).body.choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_0", type: "function", function: { name: "calc", arguments: '{"expression":"17 * 23"}' } },
      ],
    });
  });

  it("keeps a reply without a call as content", async () => {
    const r = await send("\\boxed{391}", false);
    const choice = (r as { body: { choices: Record<string, unknown>[] } }).body.choices[0];
    expect(choice).toMatchObject({ finish_reason: "stop", message: { role: "assistant", content: "\\boxed{391}" } });
  });

  it("streams the call as one tool_calls delta on the last chunk", async () => {
    const r = await send(call, true);
    expect(r.kind).toBe("stream");
    const chunks: Record<string, unknown>[] = [];
    for await (const c of (r as { chunks: AsyncIterable<{ json: Record<string, unknown> }> }).chunks)
      chunks.push(c.json);
    const last = chunks
      .map((c) => (c.choices as { delta: Record<string, unknown>; finish_reason: string | null }[])[0])
      .filter((c) => c?.finish_reason);
    expect(last).toEqual([
      expect.objectContaining({
        finish_reason: "tool_calls",
        delta: {
          tool_calls: [
            {
              index: 0,
              id: "call_0",
              type: "function",
              function: { name: "calc", arguments: '{"expression":"17 * 23"}' },
            },
          ],
        },
      }),
    ]);
  });
});
