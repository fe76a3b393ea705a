import { describe, expect, it } from "vitest";
import { parseEvalVote, parseHintVote } from "../../../server/judge/core/parse";

describe("parseEvalVote", () => {
  it("takes the last boxed value", () => {
    expect(parseEvalVote("Maybe \\boxed{1}? On reflection, no: \\boxed{-1}")).toBe(-1);
    expect(parseEvalVote("\\boxed{-1} ... final: \\boxed{0}")).toBe(0);
  });

  it("accepts an explicit plus sign and normalises -0", () => {
    expect(parseEvalVote("\\boxed{+1}")).toBe(1);
    expect(Object.is(parseEvalVote("\\boxed{-0}"), 0)).toBe(true);
  });

  it("rejects values outside {1,-1,0}, even when an earlier box was valid", () => {
    expect(parseEvalVote("\\boxed{2}")).toBeNull();
    expect(parseEvalVote("\\boxed{1} then \\boxed{5}")).toBeNull();
  });

  it("ignores multi-digit or non-numeric boxes and garbage", () => {
    // `\boxed{10}` does not match the single-digit pattern, so the earlier valid box is the last match.
    expect(parseEvalVote("\\boxed{-1} and \\boxed{10}")).toBe(-1);
    expect(parseEvalVote("\\boxed{yes}")).toBeNull();
    expect(parseEvalVote("")).toBeNull();
    expect(parseEvalVote("<html>502 Bad Gateway</html>")).toBeNull();
    expect(parseEvalVote("boxed{1}")).toBeNull();
  });
});

describe("parseHintVote", () => {
  it("parses a positive decision with the last hint block, trimmed", () => {
    const text =
      "[HINT_START]draft[HINT_END]\n\\boxed{1}\n[HINT_START]\n  Use metric units.\n Keep it brief. [HINT_END]";
    expect(parseHintVote(text)).toEqual({ value: 1, hint: "Use metric units.\n Keep it brief." });
  });

  it("only ±1 are valid hint decisions", () => {
    expect(parseHintVote("\\boxed{0} [HINT_START]something useful[HINT_END]").value).toBeNull();
    expect(parseHintVote("\\boxed{-1}")).toEqual({ value: -1, hint: "" });
  });

  it("returns an empty hint when the block is missing or unterminated", () => {
    expect(parseHintVote("\\boxed{1} [HINT_START]never closed")).toEqual({ value: 1, hint: "" });
  });
});
