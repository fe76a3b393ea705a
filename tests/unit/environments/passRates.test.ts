// pass@k on hand-computed cases.
import { describe, expect, it } from "vitest";
import { passAtK, taskPassAtK, wilson } from "../../../server/environments/passRates";

describe("pass@k", () => {
  it("per task: 1 − C(n−c, k)/C(n, k)", () => {
    // n 4, c 1, k 2: 1 − C(3,2)/C(4,2) = 1 − 3/6 = 0.5. k 1 is c/n.
    expect(taskPassAtK({ n: 4, c: 1 }, 2)).toBeCloseTo(0.5, 12);
    expect(taskPassAtK({ n: 4, c: 1 }, 1)).toBeCloseTo(0.25, 12);
    // n 8, c 2, k 4: 1 − C(6,4)/C(8,4) = 1 − 15/70.
    expect(taskPassAtK({ n: 8, c: 2 }, 4)).toBeCloseTo(1 - 15 / 70, 12);
    expect(taskPassAtK({ n: 3, c: 2 }, 2)).toBe(1); // one failure cannot fill a draw of 2
    expect(taskPassAtK({ n: 4, c: 0 }, 2)).toBe(0);
    expect(taskPassAtK({ n: 1, c: 1 }, 2)).toBeNull();
  });

  it("over tasks: the mean, with a 95% interval from the spread across tasks", () => {
    // pass@1 of the tasks: 0.25, 0.75 → mean 0.5, sample sd √0.125, half-width 1.96·√(0.125/2) = 0.49.
    const r = passAtK(
      [
        { n: 4, c: 1 },
        { n: 4, c: 3 },
      ],
      1,
    );
    expect(r.mean).toBeCloseTo(0.5, 12);
    expect(r.low).toBeCloseTo(0.5 - 0.49, 12);
    expect(r.high).toBeCloseTo(0.5 + 0.49, 12);
    expect(passAtK([{ n: 1, c: 0 }], 2)).toEqual({ k: 2, tasks: 0, mean: null, low: null, high: null });
  });

  it("the gate's pass@1: passes over attempts with the Wilson score interval", () => {
    // 8 of 10: centre (0.8 + 1.96²/20)/(1 + 1.96²/10), half-width 1.96/(1 + 1.96²/10)·√(0.016 + 1.96²/400).
    const r = wilson(8, 10);
    expect(r.mean).toBe(0.8);
    expect(r.low).toBeCloseTo(0.4902, 4);
    expect(r.high).toBeCloseTo(0.9433, 4);
    // 0 of 12: not degenerate, upper bound (z²/n)/(1 + z²/n).
    expect(wilson(0, 12)).toMatchObject({ mean: 0, low: 0 });
    expect(wilson(0, 12).high).toBeCloseTo(3.8416 / 12 / (1 + 3.8416 / 12), 10);
    expect(wilson(12, 12).high).toBe(1);
    expect(wilson(0, 0)).toEqual({ n: 0, c: 0, mean: null, low: null, high: null });
  });
});
