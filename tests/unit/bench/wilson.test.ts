// The interval the learning bench prints beside each graded version (bench/learning/firstReply.ts wilson95), by hand:
// z = 1.96, centre (p + z²/2n) / (1 + z²/n), half-width z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
import { describe, expect, it } from "vitest";
import { interval95, wilson95 } from "../../../bench/learning/firstReply";

describe("wilson95", () => {
  it("is symmetric about one half: 16 of 32 gives 0.336–0.664", () => {
    const [lo, hi] = wilson95(0.5, 32);
    expect(lo).toBeCloseTo(0.3363, 3);
    expect(hi).toBeCloseTo(0.6637, 3);
  });

  it("stays inside [0, 1] and is not degenerate at a rate of 0: 0 of 10 gives 0–0.278", () => {
    const [lo, hi] = wilson95(0, 10);
    expect(lo).toBeCloseTo(0, 6);
    expect(hi).toBeCloseTo(0.2775, 3);
  });

  it("narrows with more replies: 128 replies give half the width of 32", () => {
    const width = (n: number) => wilson95(0.6, n)[1] - wilson95(0.6, n)[0];
    expect(width(128) / width(32)).toBeGreaterThan(0.45);
    expect(width(128) / width(32)).toBeLessThan(0.55);
  });

  it("prints as the bench prints it", () => {
    expect(interval95({ both: 0.5, replies: 32 })).toBe("0.34–0.66");
  });

  it("says nothing from no replies", () => {
    expect(wilson95(0, 0)).toEqual([0, 1]);
  });
});
