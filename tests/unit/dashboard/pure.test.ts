// Pure dashboard helpers: bucket planning (property test), EMA smoothing, review agreement, keyset cursors,
// and heat-map edge cases, each against hand-computed values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LEVEL_WIDTHS, planBuckets } from "../../../server/metrics/bucket";
import { emaSmooth } from "../../../server/metrics/ema";
import { reviewerAgreement } from "../../../server/review/agreement";
import { decodeCursor, encodeCursor } from "../../../server/trajectories/cursor";
import { opdHeatmap } from "../../../server/trajectories/heatmap";

describe("planBuckets", () => {
  it("never plans more than maxPoints buckets, aligned to a source no coarser than needed", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("step" as const, "time" as const),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 2 ** 36 }),
        fc.integer({ min: 10, max: 5000 }),
        (axis, lo, span, maxPoints) => {
          const hi = lo + span;
          const plan = planBuckets(axis, lo, hi, maxPoints);
          expect(Math.floor((hi - plan.origin) / plan.width) + 1).toBeLessThanOrEqual(maxPoints);
          expect(plan.width % plan.sourceWidth).toBe(0);
          expect(plan.origin % plan.sourceWidth).toBe(0);
          expect(plan.origin).toBeLessThanOrEqual(lo);
          expect(plan.sourceWidth).toBeLessThanOrEqual(Math.max(1, Math.ceil((span + 1) / maxPoints)));
          if (plan.level > 0) expect(plan.sourceWidth).toBe(LEVEL_WIDTHS[axis][plan.level - 1]);
        },
      ),
    );
  });

  it("reads raw points when the range needs buckets finer than the smallest rollup", () => {
    expect(planBuckets("step", 0, 999, 1000)).toEqual({ level: 0, sourceWidth: 1, width: 1, origin: 0 });
    expect(planBuckets("step", 0, 15_999, 1000)).toEqual({ level: 1, sourceWidth: 16, width: 16, origin: 0 });
    // 5 steps per bucket needed: raw points, width 5.
    expect(planBuckets("step", 3, 4_999, 1000)).toMatchObject({ level: 0, width: 5, origin: 3 });
  });
});

describe("emaSmooth", () => {
  it("is the debiased EMA: [1, 2, 3] at 0.5 gives 1, 5/3, 17/7", () => {
    const s = emaSmooth([1, 2, 3], 0.5);
    expect(s[0]).toBeCloseTo(1, 12);
    expect(s[1]).toBeCloseTo(1.25 / 0.75, 12);
    expect(s[2]).toBeCloseTo(2.125 / 0.875, 12);
    expect(emaSmooth([3, 4], 0)).toEqual([3, 4]);
    expect(emaSmooth([2, Number.NaN, 2], 0.9)).toEqual(
      [2, Number.NaN, 2].map((v, i) => (i === 1 ? v : expect.closeTo(2, 12))),
    );
  });
});

describe("reviewerAgreement", () => {
  it("is the share of the most common answer", () => {
    expect(reviewerAgreement([])).toBeNull();
    expect(reviewerAgreement(["1", "1", "-1"])).toEqual({ reviewers: 3, agreeing: 2, ratio: 2 / 3 });
    expect(reviewerAgreement(["x", "1"])).toEqual({ reviewers: 2, agreeing: 1, ratio: 0.5 });
  });
});

describe("keyset cursor", () => {
  it("round-trips and rejects garbage", () => {
    const k = { at: new Date(Date.UTC(2026, 0, 1, 2, 3, 4, 567)), id: "clx.with.dots" };
    expect(decodeCursor(encodeCursor(k))).toEqual(k);
    expect(() => decodeCursor("bm90IGEgY3Vyc29y")).toThrow(/Malformed cursor/);
  });
});

describe("opdHeatmap", () => {
  it("shows ids for other vocabularies, cuts truncated UTF-8, and reports length mismatches", () => {
    const ext = opdHeatmap([1000, 1001], [-1, -1], [0, -2])!;
    expect(ext.decoded).toBe(false);
    expect(ext.cells.map((c) => [c.text, c.gap])).toEqual([
      ["#1000", 1],
      ["#1001", -1],
    ]);
    // 0xE2 0x82 starts a 3-byte sequence that the response cuts off: one cell of 2 bytes.
    const cut = opdHeatmap([0x41, 0xe2, 0x82], [0, 0, 0], [1, 2, 4])!;
    expect(cut.cells.map((c) => [c.tokens, c.gap])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    const mismatch = opdHeatmap([65, 66, 67], [0, 0, 0], [1, 1])!;
    expect(mismatch.tokenCount).toBe(2);
    expect(mismatch.warning).toMatch(/lengths differ/);
    expect(opdHeatmap([65], [0], [])).toBeNull();
  });
});
