import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  appendHint,
  differsOnlyByInsertion,
  hintInsertion,
  renderChatTemplate,
  renderPolicyAndHinted,
  templateRenderer,
  type TemplateMessage,
} from "../../../server/judge/core/chatTemplate";

// Fixtures: template texts (see SOURCES.md for where each came from), conversations, and the
// strings Python Jinja2 renders for them when configured as transformers' apply_chat_template
// (tests/fixtures/chat-templates/render_reference.py).
const DIR = join(import.meta.dirname, "../../fixtures/chat-templates");
const TEMPLATES = ["Qwen3-4B-Instruct-2507", "Qwen3-4B-Thinking-2507", "Qwen3.5-4B"] as const;
const SPECIAL_TOKENS = { eos_token: "<|im_end|>", pad_token: "<|endoftext|>" };

type Conversation = {
  name: string;
  templates: string[];
  add_generation_prompt: boolean;
  tools?: unknown[];
  extra?: Record<string, unknown>;
  messages: TemplateMessage[];
};
type ExpectedCase = { conversation: string; template: string; text: string };

const conversations = (
  JSON.parse(readFileSync(join(DIR, "conversations.json"), "utf8")) as { conversations: Conversation[] }
).conversations;
const expected = (JSON.parse(readFileSync(join(DIR, "expected.json"), "utf8")) as { cases: ExpectedCase[] }).cases;
const templateText = (name: string) => readFileSync(join(DIR, `${name}.jinja`), "utf8");
const byName = new Map(conversations.map((c) => [c.name, c]));

describe("renderChatTemplate: byte-identical to the Python Jinja2 reference", () => {
  it("covers every conversation × template pair the fixtures declare", () => {
    const declared = conversations.flatMap((c) => c.templates.map((t) => `${c.name} ${t}`)).sort();
    expect(expected.map((e) => `${e.conversation} ${e.template}`).sort()).toEqual(declared);
    for (const t of TEMPLATES) expect(expected.some((e) => e.template === t)).toBe(true);
  });

  it.each(expected.map((e) => [e.template, e.conversation, e] as const))("%s · %s", (_t, _c, e) => {
    const conv = byName.get(e.conversation)!;
    const out = renderChatTemplate({
      template: templateText(e.template),
      messages: conv.messages,
      tools: conv.tools,
      addGenerationPrompt: conv.add_generation_prompt,
      specialTokens: SPECIAL_TOKENS,
      extra: conv.extra,
    });
    expect(out).toBe(e.text);
  });

  it("templateRenderer binds one template and renders like renderChatTemplate", () => {
    const conv = byName.get("tools_round_trip_generation")!;
    const render = templateRenderer({ template: templateText("Qwen3.5-4B"), specialTokens: SPECIAL_TOKENS });
    const want = expected.find((e) => e.conversation === conv.name && e.template === "Qwen3.5-4B")!.text;
    expect(render(conv.messages, conv.tools)).toBe(want);
  });

  it("surfaces the template's raise_exception", () => {
    expect(() =>
      renderChatTemplate({ template: templateText("Qwen3.5-4B"), messages: [{ role: "assistant", content: "hi" }] }),
    ).toThrow(/No user query found in messages/);
  });

  it("refuses to let extra kwargs override the reserved variables", () => {
    expect(() => renderChatTemplate({ template: "{{ messages }}", messages: [], extra: { messages: [] } })).toThrow(
      /reserved/,
    );
  });
});

describe("hinted teacher context differs from the policy prompt only by the hint", () => {
  const hint = "  The user prefers answers in Celsius and one sentence.  ";
  const insertion = hintInsertion(hint);
  // Conversations that end where a teacher scores the next reply (generation prompt on).
  const promptCases = conversations.filter((c) => c.add_generation_prompt);

  it("appendHint follows the teacher's semantics (last user message, marker, trimmed hint)", () => {
    const msgs: TemplateMessage[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "ok" },
      { role: "user", content: "second" },
      { role: "tool", content: "result" },
    ];
    const hinted = appendHint(msgs, hint);
    expect(hinted[2].content).toBe(`second${insertion}`);
    expect(hinted[0]).toEqual(msgs[0]);
    expect(msgs[2].content).toBe("second"); // deep copy
    expect(appendHint([], hint)).toEqual([{ role: "user", content: `[user's hint / instruction]\n${hint.trim()}` }]);
  });

  for (const conv of promptCases) {
    for (const t of conv.templates) {
      it(`${t} · ${conv.name}`, () => {
        const { policy, hinted } = renderPolicyAndHinted({
          template: templateText(t),
          messages: conv.messages,
          tools: conv.tools,
          addGenerationPrompt: true,
          specialTokens: SPECIAL_TOKENS,
          extra: conv.extra,
          hint,
        });
        expect(policy).toBe(expected.find((e) => e.conversation === conv.name && e.template === t)!.text);
        expect(hinted).not.toBe(policy);
        expect(differsOnlyByInsertion(policy, hinted, insertion)).toBe(true);
      });
    }
  }

  it("differsOnlyByInsertion rejects any other change", () => {
    expect(differsOnlyByInsertion("ab", "aXb", "X")).toBe(true);
    expect(differsOnlyByInsertion("ab", "Xab", "X")).toBe(true);
    expect(differsOnlyByInsertion("ab", "abX", "X")).toBe(true);
    expect(differsOnlyByInsertion("aab", "aaab", "a")).toBe(true);
    expect(differsOnlyByInsertion("ab", "aXc", "X")).toBe(false);
    expect(differsOnlyByInsertion("ab", "aYb", "X")).toBe(false);
    expect(differsOnlyByInsertion("ab", "ab", "")).toBe(true);
  });

  // Known gap for whoever wires this in: the teacher flattens the hinted message's content parts
  // with a space (reference behaviour), while Qwen3.5's template concatenates text parts without
  // one, so a multi-part last user message changes by more than the hint.
  it("known gap: multi-part user content is re-joined with a space by the hint step", () => {
    const messages: TemplateMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Look at" },
          { type: "text", text: "this." },
        ],
      },
    ];
    const { policy, hinted } = renderPolicyAndHinted({ template: templateText("Qwen3.5-4B"), messages, hint });
    expect(policy).toContain("Look atthis.");
    expect(hinted).toContain("Look at this.");
    expect(differsOnlyByInsertion(policy, hinted, insertion)).toBe(false);
  });
});
