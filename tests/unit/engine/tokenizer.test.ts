import { describe, expect, it } from "vitest";
import {
  createStreamDecoder,
  decode,
  encode,
  END_ID,
  parseToolCalls,
  renderChat,
  SPECIAL_TOKENS,
  VOCAB_SIZE,
} from "../../../server/engine/tokenizer";

const bytes = (s: string) => [...Buffer.from(s, "utf8")];

describe("byte tokenizer", () => {
  it("encodes UTF-8 bytes and decodes them back", () => {
    const text = "Café — 5 €, naïve 👍";
    expect(encode(text)).toEqual(bytes(text));
    expect(decode(encode(text))).toBe(text);
    expect(VOCAB_SIZE).toBe(262);
  });

  it("drops specials unless asked to show them", () => {
    const ids = [SPECIAL_TOKENS.user, ...bytes("hi"), END_ID];
    expect(decode(ids)).toBe("hi");
    expect(decode(ids, { keepSpecials: true })).toBe("<|user|>hi<|end|>");
  });

  it("streams multi-byte characters only once complete", () => {
    const dec = createStreamDecoder();
    const pieces = bytes("é👍").map((b) => dec.push(b));
    expect(pieces).toEqual(["", "é", "", "", "", "👍"]);
    expect(dec.push(END_ID)).toBe("");
    expect(dec.flush()).toBe("");
  });
});

describe("chat template", () => {
  it("renders roles as <|role|>content<|end|> and appends the generation prompt", () => {
    const ids = renderChat(
      [
        { role: "developer", content: "Be nice." },
        {
          role: "user",
          content: [
            { type: "text", text: "Hi" },
            { type: "image_url", image_url: { url: "x" } },
          ],
        },
      ],
      { addGenerationPrompt: true },
    );
    expect(ids).toEqual([
      SPECIAL_TOKENS.system,
      ...bytes("Be nice."),
      END_ID,
      SPECIAL_TOKENS.user,
      ...bytes("Hi\n[image]"),
      END_ID,
      SPECIAL_TOKENS.assistant,
    ]);
  });

  it("renders tool calls and tool results as text, and parses generated calls back", () => {
    const ids = renderChat([
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
    ]);
    const call = '<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>';
    expect(decode(ids, { keepSpecials: true })).toBe(
      `<|user|>Weather?<|end|><|assistant|>${call}<|end|><|tool|>sunny<|end|>`,
    );
    const parsed = parseToolCalls(`Checking.\n${call}`);
    expect(parsed.content).toBe("Checking.");
    expect(parsed.toolCalls).toEqual([
      { id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
    expect(parseToolCalls("no calls here")).toEqual({ content: "no calls here", toolCalls: [] });
  });

  it("appends tool definitions to the system message, or adds one", () => {
    const tools = [{ type: "function" as const, function: { name: "f", description: "does f" } }];
    const withSystem = decode(
      renderChat(
        [
          { role: "system", content: "S" },
          { role: "user", content: "u" },
        ],
        { tools },
      ),
      { keepSpecials: true },
    );
    expect(withSystem).toBe('<|system|>S\n\n# Tools\n{"name":"f","description":"does f"}<|end|><|user|>u<|end|>');
    const without = decode(renderChat([{ role: "user", content: "u" }], { tools }), { keepSpecials: true });
    expect(without).toBe('<|system|># Tools\n{"name":"f","description":"does f"}<|end|><|user|>u<|end|>');
  });

  it("rejects unknown roles", () => {
    expect(() => renderChat([{ role: "robot" as "user", content: "x" }])).toThrow();
  });
});
