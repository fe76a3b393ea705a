// Eval-set JSONL: the accepted shapes, a round trip, and 400s that name the bad line and field.
import { describe, expect, it } from "vitest";
import { parseEvalJsonl, toEvalJsonl } from "../../../server/evaluation/jsonl";
import { AppError } from "../../../server/platform/errors";

function error(text: string): AppError {
  try {
    parseEvalJsonl(text);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error("expected a 400");
}

describe("eval set JSONL", () => {
  it("round-trips messages, prompt shorthand, reference, rubric and persona", () => {
    const text = [
      JSON.stringify({
        key: "a",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi?" },
        ],
        reference: "Hello.",
        rubric: "Greets back.",
      }),
      "",
      JSON.stringify({ prompt: "How do I boil an egg?", persona: "leo" }),
    ].join("\n");
    const items = parseEvalJsonl(text);
    expect(items.map((i) => i.key)).toEqual(["a", "item-2"]);
    expect(items[1]!.messages).toEqual([{ role: "user", content: "How do I boil an egg?" }]);
    const again = parseEvalJsonl(toEvalJsonl(items));
    expect(again).toEqual(items);
  });

  it("names every bad line with its field, as a BAD_REQUEST", () => {
    const e = error(
      [
        JSON.stringify({ prompt: "fine" }),
        "{not json",
        JSON.stringify({
          messages: [
            { role: "user", content: "q" },
            { role: "assistant", content: "a" },
          ],
        }),
        JSON.stringify({ prompt: "x", persona: "nobody" }),
        JSON.stringify({ prompt: "x", extra: 1 }),
      ].join("\n"),
    );
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.message).toMatch(/^Invalid eval set: line 2: not valid JSON/);
    expect(e.message).toMatch(/and 3 more/);
    expect(e.issues.map((i) => i.path)).toEqual([
      "line 2",
      "line 3: messages.1.role",
      "line 4: persona",
      "line 5: (root)",
    ]);
    expect(e.issues[1]!.message).toMatch(/must end with the user's/);
  });

  it("rejects duplicate keys, a missing prompt and an empty file", () => {
    expect(error(`{"key":"k","prompt":"a"}\n{"key":"k","prompt":"b"}`).issues[0]).toEqual({
      path: "line 2: key",
      message: 'duplicate key "k" (first on line 1)',
    });
    expect(error(`{"reference":"r"}`).issues[0]!.message).toMatch(/give messages/);
    expect(error("\n\n").message).toMatch(/holds no items/);
  });
});
