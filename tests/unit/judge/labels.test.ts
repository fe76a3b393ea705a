import { describe, expect, it } from "vitest";
import { effectiveLabel, latestLabels, type LabelSource } from "../../../server/labels/precedence";

describe("effectiveLabel", () => {
  it("reviewer relabel beats user feedback and the judge, carrying its hint and exclude override", () => {
    expect(
      effectiveLabel({
        reviewer: { value: 1, hint: "  Cite the source.  ", exclude: false },
        user: { value: -1 },
        judge: { value: -1 },
      }),
    ).toEqual({ value: 1, source: "REVIEWER", hint: "Cite the source.", excludeOverride: false });
  });

  it("a reviewer label without hint or exclude leaves them unset", () => {
    expect(effectiveLabel({ reviewer: { value: -1, hint: "  " }, judge: { value: 1 } })).toEqual({
      value: -1,
      source: "REVIEWER",
      hint: null,
      excludeOverride: null,
    });
  });

  it("the user's explicit feedback beats the judge; its hint/exclude are not overrides", () => {
    expect(effectiveLabel({ user: { value: -1, hint: "ignored", exclude: true }, judge: { value: 1 } })).toEqual({
      value: -1,
      source: "USER",
      hint: null,
      excludeOverride: null,
    });
  });

  it("falls back to the judge", () => {
    expect(effectiveLabel({ reviewer: null, user: null, judge: { value: 0 } })).toEqual({
      value: 0,
      source: "JUDGE",
      hint: null,
      excludeOverride: null,
    });
  });
});

describe("latestLabels", () => {
  it("keeps the most recent label per human source", () => {
    const at = (s: string) => new Date(`2026-01-01T00:00:${s}Z`);
    const labels: { source: LabelSource; value: number; createdAt: Date }[] = [
      { source: "REVIEWER", value: 1, createdAt: at("05") },
      { source: "USER", value: -1, createdAt: at("09") },
      { source: "REVIEWER", value: -1, createdAt: at("07") },
      { source: "USER", value: 1, createdAt: at("01") },
      { source: "JUDGE", value: 1, createdAt: at("10") },
    ];
    const latest = latestLabels(labels);
    expect(latest.reviewer?.value).toBe(-1);
    expect(latest.user?.value).toBe(-1);
    expect(latestLabels([]).reviewer).toBeNull();
  });
});
