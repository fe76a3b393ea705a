import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../server/judge/core/schemas";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";

const HINT = "The user wants shorter answers: two sentences at most.";
const SUFFIX = `\n\n[user's hint / instruction]\n${HINT}`;

describe("hintedTeacherMessages", () => {
  it("appends the hint to the last user message, leaving later messages alone", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are helpful." },
      { role: "user", content: "First question" },
      { role: "assistant", content: "First answer" },
      { role: "user", content: "Explain photosynthesis." },
      { role: "tool", content: '{"ok":true}', tool_call_id: "c1" },
    ];
    const out = hintedTeacherMessages(messages, `  ${HINT}\n`);
    expect(out[3]).toEqual({ role: "user", content: `Explain photosynthesis.${SUFFIX}` });
    expect(out[1].content).toBe("First question");
    expect(out[4]).toEqual({ role: "tool", content: '{"ok":true}', tool_call_id: "c1" });
  });

  it("deep-copies: the original messages are not modified", () => {
    const messages: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    const snapshot = structuredClone(messages);
    const out = hintedTeacherMessages(messages, HINT);
    expect(messages).toEqual(snapshot);
    expect(out).not.toBe(messages);
  });

  it("flattens text-part content (joined by a space) before appending", () => {
    const messages: ChatMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Describe" },
          { type: "image_url", image_url: { url: "data:..." } },
          { type: "text", text: "this chart." },
        ],
      },
    ];
    expect(hintedTeacherMessages(messages, HINT)).toEqual([{ role: "user", content: `Describe this chart.${SUFFIX}` }]);
  });

  it("uses the last message when there is no user message", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "tool", content: "result" },
    ];
    const out = hintedTeacherMessages(messages, HINT);
    expect(out[0].content).toBe("sys");
    expect(out[1]).toEqual({ role: "tool", content: `result${SUFFIX}` });
  });

  it("creates a user message when the list is empty", () => {
    expect(hintedTeacherMessages([], HINT)).toEqual([
      { role: "user", content: `[user's hint / instruction]\n${HINT}` },
    ]);
  });

  it("trims the result, so an empty or null target content yields just the marker and hint", () => {
    const out = hintedTeacherMessages([{ role: "user", content: null }], HINT);
    expect(out[0].content).toBe(`[user's hint / instruction]\n${HINT}`);
  });
});
