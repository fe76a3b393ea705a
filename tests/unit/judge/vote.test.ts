import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { VoteValue } from "../../../server/judge/core/schemas";
import { hintCandidates, majorityVote, meanVote, selectBestHint } from "../../../server/judge/core/vote";

describe("majorityVote", () => {
  it.each<[(VoteValue | null)[], VoteValue]>([
    [[1, 1, -1], 1],
    [[-1, -1, 1], -1],
    [[0, 0, 1], 0],
    [[1, 1, 1], 1],
    [[1, -1], 0], // tie for the top count
    [[1, -1, 0], 0], // three-way tie
    [[1, 1, -1, -1, 0], 0],
    [[-1, null, null], -1], // failed votes are dropped
    [[null, null, null], 0], // no valid vote
    [[], 0],
    [[1, null, -1], 0],
    [[-1, -1, 1, 1, 1], 1],
  ])("%j → %i", (votes, expected) => {
    expect(majorityVote(votes)).toBe(expected);
  });

  it("a value held by more than half of the valid votes always wins", () => {
    const vote = fc.constantFrom<VoteValue | null>(1, -1, 0, null);
    fc.assert(
      fc.property(fc.array(vote, { maxLength: 9 }), (votes) => {
        const valid = votes.filter((v) => v !== null);
        const majority = ([1, -1, 0] as const).find((c) => valid.filter((v) => v === c).length * 2 > valid.length);
        fc.pre(majority !== undefined);
        return majorityVote(votes) === majority;
      }),
    );
  });

  it("otherwise the single most frequent valid vote wins, and a tie for the top (or no valid vote) gives 0", () => {
    const vote = fc.constantFrom<VoteValue | null>(1, -1, 0, null);
    fc.assert(
      fc.property(fc.array(vote, { maxLength: 9 }), (votes) => {
        const counts = ([1, -1, 0] as const).map((c) => [c, votes.filter((v) => v === c).length] as const);
        const top = Math.max(...counts.map(([, n]) => n));
        const leaders = counts.filter(([, n]) => n === top && n > 0);
        return majorityVote(votes) === (leaders.length === 1 ? leaders[0][0] : 0);
      }),
    );
  });
});

describe("meanVote", () => {
  it("averages the valid votes only", () => {
    expect(meanVote([1, -1, 1, null])).toBeCloseTo(1 / 3, 12);
    expect(meanVote([0, 0])).toBe(0);
    expect(meanVote([null])).toBeNull();
  });
});

describe("selectBestHint", () => {
  it("picks the longest hint among positive votes", () => {
    const best = selectBestHint([
      { value: 1, hint: "Answer in two sentences." },
      { value: 1, hint: "Answer in at most two sentences and skip the preamble." },
      { value: -1, hint: "A much, much longer hint that came with a negative decision and must be ignored." },
    ]);
    expect(best).toEqual({ index: 1, hint: "Answer in at most two sentences and skip the preamble." });
  });

  it("rejects hints of 10 characters or fewer after trimming", () => {
    expect(selectBestHint([{ value: 1, hint: "   0123456789   " }])).toBeNull();
    expect(selectBestHint([{ value: 1, hint: "0123456789A" }])).toEqual({ index: 0, hint: "0123456789A" });
    expect(
      selectBestHint([
        { value: 1, hint: null },
        { value: null, hint: "long enough hint text" },
      ]),
    ).toBeNull();
  });

  it("picks the shortest instead when asked (upstream's hint-selection option), still above 10 characters", () => {
    const votes = [
      { value: 1, hint: "Answer in at most two sentences and skip the preamble." },
      { value: 1, hint: "too short" },
      { value: 1, hint: "Answer in two sentences." },
      { value: -1, hint: "Be brief now." },
    ];
    expect(selectBestHint(votes, "shortest")).toEqual({ index: 2, hint: "Answer in two sentences." });
    expect(selectBestHint(votes, "longest")?.index).toBe(0);
  });

  it("keeps the first of equally long hints", () => {
    const [a, b] = ["Use the metric system.", "Use metric units only."];
    expect(a.length).toBe(b.length);
    expect(
      selectBestHint([
        { value: 1, hint: a },
        { value: 1, hint: b },
      ])?.index,
    ).toBe(0);
  });
});

describe("hintCandidates (upstream's multi-candidate judge)", () => {
  it("keeps accepted hints once each, trimmed, shortest first, vote order on equal length", () => {
    const votes = [
      { value: 1, hint: "Answer in at most two sentences and skip the preamble." }, // 54
      { value: 1, hint: "  Use metric units only.  " }, // 22 after trimming
      { value: -1, hint: "Rejected by its own vote, however long it is." },
      { value: 1, hint: "Use the metric system." }, // 22
      { value: 1, hint: "too short" },
      { value: 1, hint: "Use metric units only." }, // a duplicate of vote 1 once trimmed
      { value: null, hint: "an unparsable vote's hint" },
    ];
    expect(hintCandidates(votes)).toEqual([
      { index: 1, hint: "Use metric units only." },
      { index: 3, hint: "Use the metric system." },
      { index: 0, hint: "Answer in at most two sentences and skip the preamble." },
    ]);
    // shortest and the train-time modes score candidate 0; longest is the reference's choice
    for (const mode of ["shortest", "token_optimal", "sequence_optimal"] as const)
      expect(selectBestHint(votes, mode)).toEqual({ index: 1, hint: "Use metric units only." });
    expect(selectBestHint(votes, "longest")?.index).toBe(0);
  });

  it("is empty when no hint is accepted", () => {
    expect(
      hintCandidates([
        { value: 1, hint: "0123456789" },
        { value: -1, hint: "long enough to count" },
      ]),
    ).toEqual([]);
  });
});
