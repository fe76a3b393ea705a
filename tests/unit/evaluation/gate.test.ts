// The gate's and the rollback's pure decisions, at and around their boundaries.
import { describe, expect, it } from "vitest";
import { decideGate } from "../../../server/evaluation/gate";
import { decideRollback } from "../../../server/policyVersions/rollbackRule";
import { summarize } from "../../../server/evaluation/stats";

describe("promotion gate", () => {
  const served = { version: 3, mean: 0.6 };
  it("promotes at or above served − tolerance, holds below with the numbers in the reason", () => {
    expect(decideGate({ candidate: { version: 4, mean: 0.55 }, served, tolerance: 0.05 }).promote).toBe(true);
    expect(decideGate({ candidate: { version: 4, mean: 0.8 }, served, tolerance: 0 }).promote).toBe(true);
    const held = decideGate({ candidate: { version: 4, mean: 0.5 }, served, tolerance: 0.05 });
    expect(held).toEqual({ promote: false, reason: "eval 0.500 < served v3's 0.600 − tolerance 0.050" });
  });
  it("holds below the floor even when the served version is worse", () => {
    expect(
      decideGate({
        candidate: { version: 4, mean: 0.3 },
        served: { version: 3, mean: 0.1 },
        tolerance: 0.05,
        floor: 0.4,
      }),
    ).toEqual({ promote: false, reason: "eval 0.300 is below the floor 0.400" });
  });
  it("waits for both evaluations", () => {
    expect(decideGate({ candidate: { version: 4, mean: null }, served, tolerance: 0.05 }).reason).toMatch(
      /awaiting evaluation/,
    );
    expect(
      decideGate({ candidate: { version: 4, mean: 0.9 }, served: { version: 3, mean: null }, tolerance: 0.05 }).reason,
    ).toBe("awaiting the evaluation of served version 3");
  });
});

describe("automatic rollback", () => {
  const base = { margin: 0.3, minTurns: 20 };
  it("fires when the served version's reward dropped by more than the margin", () => {
    const d = decideRollback({
      ...base,
      served: { version: 5, turns: 25, reward: 0.1 },
      previous: { version: 4, turns: 30, reward: 0.6 },
    });
    expect(d.rollback).toBe(true);
    expect(d.reason).toMatch(/dropped 0\.500 > margin 0\.300/);
  });
  it("does not fire on a drop within the margin, nor before both versions have enough turns", () => {
    expect(
      decideRollback({
        ...base,
        served: { version: 5, turns: 25, reward: 0.35 },
        previous: { version: 4, turns: 30, reward: 0.6 },
      }).rollback,
    ).toBe(false);
    expect(
      decideRollback({
        ...base,
        served: { version: 5, turns: 19, reward: -1 },
        previous: { version: 4, turns: 30, reward: 1 },
      }).rollback,
    ).toBe(false);
  });
});

describe("evaluation summary", () => {
  it("averages items (each over its replies) and gives a 95% CI over items", () => {
    // item means 1, 0.5, 0, 0.5 → mean 0.5; sample sd = sqrt(((.5)²+0+(.5)²+0)/3) = sqrt(1/6); half = 1.96·sqrt(1/6)/2
    const s = summarize(
      new Map([
        ["a", [1, 1]],
        ["b", [1, 0]],
        ["c", [0, 0]],
        ["d", [0, 1]],
      ]),
    );
    const half = (1.96 * Math.sqrt(1 / 6)) / 2;
    expect(s.items).toBe(4);
    expect(s.mean).toBeCloseTo(0.5, 12);
    expect(s.ciLow).toBeCloseTo(0.5 - half, 12);
    expect(s.ciHigh).toBeCloseTo(0.5 + half, 12);
    expect(summarize(new Map([["a", [1]]]))).toEqual({ items: 1, mean: 1, ciLow: null, ciHigh: null });
  });
});
