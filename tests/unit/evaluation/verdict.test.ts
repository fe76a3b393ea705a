import { describe, expect, it } from "vitest";
import {
  HELD_OUT_RISE,
  JUDGED_RISE,
  MIN_FIRST_REPLIES,
  learningVerdict,
  recentFirstReplies,
} from "../../../server/evaluation/verdict";
import { sessionsUntilStable } from "../../../server/trajectories/stableEffect";

const side = (firstReward: number, firstTurns = MIN_FIRST_REPLIES) => ({ firstTurns, firstReward });
const recent = (firstReward: number, firstTurns = MIN_FIRST_REPLIES) => ({ firstTurns, firstReward, fromVersion: 7 });

describe("learningVerdict", () => {
  it("is too early until both sides have enough judged first replies", () => {
    const v = learningVerdict({ base: side(-0.9, MIN_FIRST_REPLIES - 1), recent: recent(0.9), heldOut: null });
    expect(v.verdict).toBe("too early");
    expect(v.judgedGain).toBeNull();
    expect(learningVerdict({ base: side(-0.9), recent: null, heldOut: null }).verdict).toBe("too early");
  });

  it("calls a judged rise learning when held-out rises too or is not evaluated yet", () => {
    expect(learningVerdict({ base: side(-0.8), recent: recent(0.2), heldOut: null }).verdict).toBe("learning");
    const v = learningVerdict({
      base: side(-0.8),
      recent: recent(0.2),
      heldOut: { base: 0.1, latest: 0.1 + HELD_OUT_RISE, latestVersion: 9 },
    });
    expect(v.verdict).toBe("learning");
    expect(v.judgedGain).toBeCloseTo(1.0);
    expect(v.reason).toContain("held-out 0.10 → 0.20 at version 9");
  });

  it("calls a judged rise with flat held-out fitting the judge", () => {
    const v = learningVerdict({
      base: side(-0.8),
      recent: recent(0.9),
      heldOut: { base: 0.3, latest: 0.32, latestVersion: 12 },
    });
    expect(v.verdict).toBe("fitting the judge");
    expect(v.heldOutGain).toBeCloseTo(0.02);
  });

  it("separates flat from getting worse at the rise threshold", () => {
    expect(learningVerdict({ base: side(0), recent: recent(JUDGED_RISE - 0.01), heldOut: null }).verdict).toBe("flat");
    expect(learningVerdict({ base: side(0), recent: recent(-JUDGED_RISE), heldOut: null }).verdict).toBe(
      "getting worse",
    );
    expect(learningVerdict({ base: side(0), recent: recent(JUDGED_RISE), heldOut: null }).verdict).toBe("learning");
  });
});

describe("recentFirstReplies", () => {
  it("pools the newest trained versions back until enough first replies, skipping the base and empty ones", () => {
    const r = recentFirstReplies(
      [
        { version: 0, firstTurns: 50, firstReward: -1 },
        { version: 1, firstTurns: 10, firstReward: -0.5 },
        { version: 2, firstTurns: 4, firstReward: 0 },
        { version: 3, firstTurns: 0, firstReward: null },
        { version: 4, firstTurns: 6, firstReward: 1 },
      ],
      12,
    );
    // 6 at +1 (v4), 4 at 0 (v2), 10 at −0.5 (v1): 20 replies, (6 − 5) / 20.
    expect(r).toEqual({ firstTurns: 20, firstReward: 1 / 20, fromVersion: 1 });
    expect(recentFirstReplies([{ version: 0, firstTurns: 5, firstReward: 1 }])).toBeNull();
  });
});

describe("sessionsUntilStable", () => {
  it("counts the sessions before the first three in a row that met the preference", () => {
    expect(sessionsUntilStable([false, true, false, true, true, true, false])).toBe(3);
    expect(sessionsUntilStable([true, true, true])).toBe(0);
    expect(sessionsUntilStable([true, true, false, true, true])).toBeNull();
    expect(sessionsUntilStable([])).toBeNull();
  });
});
