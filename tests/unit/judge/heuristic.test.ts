import { describe, expect, it } from "vitest";
import {
  classifyNextState,
  createHeuristicJudge,
  deriveHint,
  HEURISTIC_JUDGE_LABEL,
} from "../../../server/judge/core/heuristic";
import { parseEvalVote, parseHintVote } from "../../../server/judge/core/parse";
import { buildJudgeMessages, type JudgeTask } from "../../../server/judge/core/prompts";

describe("classifyNextState", () => {
  it.each([
    ["Thanks, that's perfect!", 1],
    ["great, works now 👍", 1],
    ["no — shorter please, two sentences at most", -1],
    ["No, I meant Python, not JavaScript", -1],
    ["That's not what I asked. I wanted a list of my meetings", -1],
    ["try again", -1],
    ["It doesn't work, still failing on line 3", -1],
    ["let me rephrase: list only the overdue invoices", -1],
    ["please don't use markdown", -1],
    ["thanks, but that's wrong — the deadline is Friday", -1],
    ["What about tomorrow's weather?", 0],
    ["no problem. Next: what is 2+2?", 0],
    ["", 0],
  ])("user %j → %i", (text, expected) => {
    expect(classifyNextState("user", text).value).toBe(expected);
  });

  it.each([
    ["Error: ENOENT: no such file or directory, open 'a.txt'", -1],
    ['Traceback (most recent call last):\n  File "x.py"', -1],
    ["HTTP 404 Not Found", -1],
    ['{"error": "rate limited"}', -1],
    ["process finished with exit code 2", -1],
    ['{"ok":true,"items":3}', 1],
    ["Tests passed: 12, 0 failures", 1],
    ["status: 200 OK", 1],
    ["process finished with exit code 0", 1],
    ["   ", 0],
  ])("tool %j → %i", (text, expected) => {
    expect(classifyNextState("tool", text).value).toBe(expected);
  });

  it("treats a restatement of the original request as a rephrase when the request is visible", () => {
    const request = "Find cheap flights from Paris to Rome next weekend";
    expect(classifyNextState("user", "find cheap flights from paris to rome for next weekend", request).value).toBe(-1);
    expect(classifyNextState("user", "find cheap flights from paris to rome for next weekend").value).toBe(0);
  });
});

describe("deriveHint", () => {
  it.each([
    ["no — shorter please, two sentences at most", "The user wants shorter answers: two sentences at most."],
    ["No, more formal please", "The user wants more formal answers."],
    ["No, I meant Python, not JavaScript", "The user meant Python, not JavaScript."],
    ["That's not what I asked. I wanted a list of my meetings", "The user wanted a list of their meetings."],
    ["please don't use markdown", "Follow the user's feedback: don't use markdown."],
    ["Can you use metric units instead?", "Follow the user's feedback: Can you use metric units instead?"],
    // The quoted sign-off keeps its em dash; "myself" and a lowercase "i" are put in the third person too.
    [
      'please always end your reply with "— Cheers!"',
      'Follow the user\'s feedback: always end your reply with "— Cheers!".',
    ],
    [
      "no — i want a hint so I can work it out myself",
      "Follow the user's feedback: they want a hint so they can work it out themselves.",
    ],
    [
      "no — can you put that as a bullet list? one point per line",
      "Follow the user's feedback: can you put that as a bullet list, one point per line.",
    ],
  ])("%j → %j", (text, hint) => {
    expect(deriveHint(text)).toBe(hint);
  });

  it("gives no hint for a bare redo request or a complaint that names nothing to do", () => {
    expect(deriveHint("try again")).toBeNull();
    expect(deriveHint("No.")).toBeNull();
    // "that doesn't answer my question" says the reply missed, not what to write instead.
    expect(deriveHint("no — that doesn't answer my question")).toBeNull();
    expect(deriveHint("That does not answer the question.")).toBeNull();
    expect(deriveHint("no — that doesn't answer my question, use a bullet list")).toBe(
      "Follow the user's feedback: that doesn't answer their question, use a bullet list.",
    );
  });
});

describe("heuristic judge backend", () => {
  const judge = createHeuristicJudge();
  const run = (task: JudgeTask) => judge.complete(buildJudgeMessages(task), { temperature: 0.6, maxTokens: 512, task });
  const base = { responseText: "A long, three-paragraph explanation…", requestText: null };

  it("writes its reasoning and a boxed verdict the standard parser reads", async () => {
    const raw = await run({
      kind: "eval",
      ...base,
      nextState: { role: "user", text: "no — shorter please, two sentences at most" },
    });
    expect(raw.startsWith(HEURISTIC_JUDGE_LABEL)).toBe(true);
    expect(raw).toContain("Classification: (b) correction/redo.");
    expect(parseEvalVote(raw)).toBe(-1);
    expect(parseEvalVote(await run({ kind: "eval", ...base, nextState: { role: "tool", text: '{"ok":true}' } }))).toBe(
      1,
    );
  });

  it("answers hint votes in the HINT block format", async () => {
    const raw = await run({
      kind: "hint",
      ...base,
      nextState: { role: "user", text: "no — shorter please, two sentences at most" },
    });
    expect(parseHintVote(raw)).toEqual({ value: 1, hint: "The user wants shorter answers: two sentences at most." });
    const approval = await run({ kind: "hint", ...base, nextState: { role: "user", text: "Thanks!" } });
    expect(parseHintVote(approval)).toEqual({ value: -1, hint: "" });
    const toolError = await run({ kind: "hint", ...base, nextState: { role: "tool", text: "Error: timeout" } });
    expect(parseHintVote(toolError)).toEqual({ value: -1, hint: "" });
  });

  it("refuses to guess without the structured task", async () => {
    await expect(judge.complete([], { temperature: 0, maxTokens: 1 })).rejects.toThrow(/structured task/);
  });
});
