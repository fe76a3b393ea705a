// The interval the learning bench prints beside each graded version (bench/learning/firstReply.ts interval95): the
// Wilson score interval of server/environments/passRates.ts, checked by hand on the bench's sizes — z = 1.96, centre
// (p + z²/2n) / (1 + z²/n), half-width z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
import { describe, expect, it } from "vitest";
import { interval95 } from "../../../bench/learning/firstReply";
import { wilson } from "../../../server/environments/passRates";

describe("the bench's 95 % interval", () => {
  it("is symmetric about one half: 16 of 32 gives 0.336–0.664", () => {
    const { low, high } = wilson(16, 32);
    expect(low).toBeCloseTo(0.3363, 3);
    expect(high).toBeCloseTo(0.6637, 3);
    expect(interval95({ both: 0.5, replies: 32 })).toBe("0.34–0.66");
  });

  it("stays inside [0, 1] and is not degenerate at a rate of 0: 0 of 10 gives 0–0.278", () => {
    const { low, high } = wilson(0, 10);
    expect(low).toBeCloseTo(0, 6);
    expect(high).toBeCloseTo(0.2775, 3);
    expect(interval95({ both: 0, replies: 10 })).toBe("0.00–0.28");
  });

  it("narrows with more replies: 128 replies give half the width of 32", () => {
    const width = (c: number, n: number) => wilson(c, n).high! - wilson(c, n).low!;
    expect(width(77, 128) / width(19, 32)).toBeGreaterThan(0.45);
    expect(width(77, 128) / width(19, 32)).toBeLessThan(0.55);
  });

  it("says nothing from no replies", () => {
    expect(interval95({ both: 0, replies: 0 })).toBe("—");
  });
});
