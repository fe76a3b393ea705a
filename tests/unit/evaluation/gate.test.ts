// The gate's and the rollback's pure decisions, at and around their boundaries.
import { describe, expect, it } from "vitest";
import { decideCandidates, decideGate, type VersionScore } from "../../../server/evaluation/gate";
import { drawSeed, seedFor } from "../../../server/evaluation/runner";
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

describe("the gate over several candidates, and its confirmation on fresh seeds (serving.gate.confirm)", () => {
  /** scores by "version:draw" */
  const table =
    (scores: Record<string, number>) =>
    (version: number, draw: number): VersionScore => ({ version, mean: scores[`${version}:${draw}`] ?? null });
  const candidates = [6, 5, 4].map((version) => ({ version, hasCheckpoint: true }));
  const common = { candidates, served: 3, tolerance: 0.05, label: "eval" };
  // v3 (served) was selected on a lucky 0.80 on draw 0
  const draw0 = { "3:0": 0.8, "4:0": 0.7, "5:0": 0.74, "6:0": 0.5 };

  it("without confirmation: the best passing candidate wins at once on the common draw", () => {
    const held = decideCandidates({ ...common, scoreOf: table(draw0), draw: 0, confirm: false });
    // 0.74 and 0.70 are below 0.80 − 0.05: the lucky draw holds every candidate back (the winner's curse)
    expect(held.promote).toBeNull();
    expect(held.due).toEqual([]);
    expect(held.held.find((h) => h.version === 5)!.reason).toBe("eval 0.740 < served v3's 0.800 − tolerance 0.050");
    const won = decideCandidates({ ...common, scoreOf: table({ ...draw0, "3:0": 0.7 }), draw: 0, confirm: false });
    expect([won.promote, won.reason]).toEqual([5, "eval 0.740 ≥ served v3's 0.700 − tolerance 0.050"]);
    expect(won.held.find((h) => h.version === 4)!.reason).toMatch(/but v5 scored higher$/);
  });

  it("compares on the served version's draw, and asks for what is missing there", () => {
    // v3 was confirmed on draw 1 (0.62 there): the candidates are compared on draw 1; v4 and v6 are not scored yet
    const v = decideCandidates({
      ...common,
      scoreOf: table({ ...draw0, "3:1": 0.62, "5:1": 0.6 }),
      draw: 1,
      confirm: true,
    });
    // (v4, older than the newest two, is decided once something scores it there)
    expect(v.due).toEqual([
      { version: 6, draw: 1 },
      { version: 5, draw: 2 },
      { version: 3, draw: 2 },
    ]);
    const reasons = Object.fromEntries(v.held.map((h) => [h.version, h.reason]));
    expect(reasons[5]).toBe(
      "passed (eval on fresh seeds 0.600 ≥ served v3's on fresh seeds 0.620 − tolerance 0.050); awaiting its confirmation on fresh seeds",
    );
    expect(reasons[4]).toBe("awaiting evaluation (gated promotion)");
  });

  it("confirms the winner on the next draw, where the served version is scored afresh too (paired)", () => {
    const scores = { ...draw0, "3:1": 0.62, "4:1": 0.55, "5:1": 0.6, "6:1": 0.3 };
    // on draw 2 v5 scores 0.58 against v3's 0.61 there: passes
    const v = decideCandidates({
      ...common,
      scoreOf: table({ ...scores, "5:2": 0.58, "3:2": 0.61 }),
      draw: 1,
      confirm: true,
    });
    expect(v.promote).toBe(5);
    expect(v.due).toEqual([]);
    expect(v.reason).toBe(
      "eval on fresh seeds 0.580 ≥ served v3's on fresh seeds 0.610 − tolerance 0.050 (selected on eval on fresh seeds 0.600 ≥ served v3's on fresh seeds 0.620 − tolerance 0.050)",
    );
    expect(v.held.map((h) => h.version)).toEqual([6, 4]);
  });

  it("refuses a winner that does not pass on the fresh draw and tries the next passing candidate there", () => {
    const scores = { ...draw0, "3:1": 0.62, "4:1": 0.58, "5:1": 0.6, "6:1": 0.3, "5:2": 0.4, "3:2": 0.61 };
    const v = decideCandidates({ ...common, scoreOf: table(scores), draw: 1, confirm: true });
    expect(v.promote).toBeNull();
    expect(v.due).toEqual([{ version: 4, draw: 2 }]);
    expect(v.held.find((h) => h.version === 5)!.reason).toBe(
      "passed (eval on fresh seeds 0.600 ≥ served v3's on fresh seeds 0.620 − tolerance 0.050) but not on fresh seeds: eval on fresh seeds 0.400 < served v3's on fresh seeds 0.610 − tolerance 0.050",
    );
    const next = decideCandidates({ ...common, scoreOf: table({ ...scores, "4:2": 0.59 }), draw: 1, confirm: true });
    expect(next.promote).toBe(4);
  });

  it("asks for the newest two candidates' scores on the draw; older ones are decided once scored", () => {
    const many = [9, 8, 7, 6].map((version) => ({ version, hasCheckpoint: true }));
    const v = decideCandidates({
      ...common,
      candidates: many,
      scoreOf: table({ "3:1": 0.6, "6:1": 0.5 }),
      draw: 1,
      confirm: true,
    });
    expect(v.due).toEqual([
      { version: 9, draw: 1 },
      { version: 8, draw: 1 },
    ]);
    expect(v.held.find((h) => h.version === 6)!.reason).toBe(
      "eval on fresh seeds 0.500 < served v3's on fresh seeds 0.600 − tolerance 0.050",
    );
  });

  it("never asks for, nor promotes, a candidate whose checkpoint was pruned", () => {
    const v = decideCandidates({
      ...common,
      candidates: [{ version: 5, hasCheckpoint: false }],
      scoreOf: table({ "3:0": 0.5 }),
      draw: 0,
      confirm: true,
    });
    expect(v.promote).toBeNull();
    expect(v.due).toEqual([]);
    expect(v.held).toEqual([{ version: 5, reason: "checkpoint pruned before it was evaluated", scored: false }]);
  });
});

describe("the seeds of a draw", () => {
  it("gives each draw its own range after the common one, and wraps every reply's seed into 32 bits", () => {
    // 14 prompts × K 2: the common draw's seeds and the first fresh draw's do not meet
    const seeds = (draw: number) =>
      Array.from({ length: 14 * 2 }, (_, i) => seedFor(drawSeed(1, draw), Math.floor(i / 2), 2, i % 2));
    expect(seeds(0).slice(0, 3)).toEqual([1, 2, 3]);
    expect(seeds(1)[0]).toBe(1_000_004);
    expect(seeds(1).some((x) => seeds(0).includes(x))).toBe(false);
    const big = seedFor(drawSeed(2 ** 31 - 2, 3), 5, 4, 1);
    expect(big).toBeGreaterThanOrEqual(0);
    expect(big).toBeLessThan(2 ** 31);
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
