import { describe, expect, it } from "vitest";
import { assistantOutputText, flattenContent, normalizeForTemplate } from "../../../server/judge/core/messages";
import { buildEvalMessages, buildHintMessages, PROMPT_VERSION } from "../../../server/judge/core/prompts";

const task = {
  responseText: "Here is the summary.",
  nextState: { role: "tool", text: '{"status":"ok"}' },
  requestText: null,
};

describe("PRM eval prompt", () => {
  it("shows the assistant output and the next state with its role, and asks for a boxed score", () => {
    const [system, user] = buildEvalMessages(task);
    expect(system.role).toBe("system");
    for (const phrase of [
      "\\boxed{1}",
      "\\boxed{-1}",
      "\\boxed{0}",
      "A change request IS negative feedback",
      "non-error tool result is progress",
    ]) {
      expect(system.content).toContain(phrase);
    }
    expect(user.content).toBe(
      '## Assistant output\nHere is the summary.\n\n## Next state [role: tool]\n{"status":"ok"}\n\n' +
        "Classify the next state as (a) progress, (b) correction/redo, or (c) ambiguous, then assign \\boxed{1}, \\boxed{-1} or \\boxed{0}.",
    );
  });

  it("includes the original request only when enabled", () => {
    expect(buildEvalMessages(task)[1].content).not.toContain("## Original request");
    const withRequest = buildEvalMessages({ ...task, requestText: "Summarise the report." })[1].content;
    expect(withRequest.startsWith("## Original request\nSummarise the report.\n\n## Assistant output\n")).toBe(true);
  });
});

describe("hint judge prompt", () => {
  it("asks for \\boxed{1} with a [HINT_START]…[HINT_END] hint or \\boxed{-1}", () => {
    const [system, user] = buildHintMessages({ ...task, nextState: { role: "user", text: "no, shorter" } });
    for (const phrase of ["[HINT_START]", "[HINT_END]", "\\boxed{1}", "\\boxed{-1}", "1-3 sentences"])
      expect(system.content).toContain(phrase);
    expect(user.content).toContain("## Next state (turn t+1) [role: user]\nno, shorter");
  });

  it("has a version string", () => {
    expect(PROMPT_VERSION).toMatch(/^ocrl-judge-v\d+$/);
  });
});

describe("message helpers", () => {
  it("flattens content and normalises roles for chat templates", () => {
    expect(flattenContent([{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }])).toBe(
      "a b",
    );
    expect(flattenContent(null)).toBe("");
    expect(normalizeForTemplate([{ role: "developer", content: [{ type: "text", text: "be brief" }] }])).toEqual([
      { role: "system", content: "be brief" },
    ]);
  });

  it("renders tool calls into the judged assistant output", () => {
    const calls = [{ id: "1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }];
    expect(assistantOutputText("", calls)).toBe('[tool call] get_weather({"city":"Paris"})');
    expect(assistantOutputText("Checking.", calls)).toBe('Checking.\n[tool call] get_weather({"city":"Paris"})');
  });
});
