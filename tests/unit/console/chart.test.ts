// The metrics charts' helpers: gaps break lines, a non-negative series keeps its axis at or above zero,
// values are rounded, and each axis carries one unit.
import { describe, expect, it } from "vitest";
import { fmtTick, fmtValue, unitOf, withGaps, yDomain } from "../../../app/(console)/metrics/chart";

describe("metrics chart helpers", () => {
  it("puts a null point in a gap much wider than the usual spacing, and nowhere else", () => {
    const pts = [1, 2, 3, 4, 20, 21, 22].map((x) => ({ x, y: x as number | null }));
    expect(withGaps(pts, (x) => ({ x, y: null }))).toEqual([
      { x: 1, y: 1 },
      { x: 2, y: 2 },
      { x: 3, y: 3 },
      { x: 4, y: 4 },
      { x: 12, y: null },
      { x: 20, y: 20 },
      { x: 21, y: 21 },
      { x: 22, y: 22 },
    ]);
    const even = [0, 10, 20, 30].map((x) => ({ x }));
    expect(withGaps(even, (x) => ({ x }))).toEqual(even);
  });

  it("keeps a flat positive series (train/lr) above zero, and pads a signed one both ways", () => {
    const [lo, hi] = yDomain([1e-5, 1e-5]);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeGreaterThan(1e-5);
    expect(yDomain([0, 2])[0]).toBe(0);
    const [a, b] = yDomain([-1, 1]);
    expect(a).toBeLessThan(-1);
    expect(b).toBeGreaterThan(1);
  });

  it("rounds tooltip values and names units from metric names", () => {
    expect(fmtValue(0.31270451843738556)).toBe("0.3127");
    expect(fmtValue([0.123456, 0.98765])).toBe("0.1235 – 0.9877");
    expect(unitOf("proxy.latency_p50_ms")).toBe("ms");
    expect(unitOf("judge/lag_ms")).toBe("ms");
    expect(unitOf("proxy.requests_per_s")).toBe("/s");
    expect(unitOf("train/samples")).toBe("");
    expect(unitOf("judge/queue_depth")).toBe("");
    expect(fmtTick("ms")(1234.5678)).toBe("1235 ms");
  });
});
