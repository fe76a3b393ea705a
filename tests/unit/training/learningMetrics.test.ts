// Per-step learning metrics (recorded as metric points, so the dashboard charts them per version): the vote mix, the
// reward of first replies beside replies after a correction or an approval, and the hindsight demonstrations.
import { describe, expect, it } from "vitest";
import { stepMetrics } from "../../../server/training/metrics";

describe("learning metrics", () => {
  it("split the batch's reward by where the reply was served and count the vote mix", () => {
    const m = stepMetrics({
      trainMetrics: { "train/kl_base": 0.2 },
      rewards: [1, -1, -1, 1, 1, 0],
      contexts: ["first", "first", undefined, "afterCorrection", "afterApproval", "afterApproval"],
      evalScores: [],
      responseLens: [1, 1, 1, 1, 1, 1],
      kinds: ["RL", "RL", "RL", "RL", "RL", "RL"],
      staleness: [0, 0, 0, 0, 0, 0],
      excludedSinceLast: 0,
      staleDroppedSinceLast: 0,
      importanceWeighted: 0,
      trainStepMs: 1,
      tokens: 6,
      checkpointMs: 1,
      demos: 3,
    });
    expect(m).toMatchObject({
      "train/kl_base": 0.2,
      "rollout/approved_frac": 0.5,
      "rollout/corrected_frac": expect.closeTo(1 / 3, 12),
      // a sample without a context counts as a first reply: (1 − 1 − 1)/3
      "rollout/reward_first": expect.closeTo(-1 / 3, 12),
      "rollout/reward_after_correction": 1,
      "rollout/reward_after_approval": 0.5,
      "samples/hindsight_demos": 3,
    });
  });

  it("leave out a context the batch has no reply in", () => {
    const m = stepMetrics({
      trainMetrics: {},
      rewards: [1],
      contexts: ["first"],
      evalScores: [],
      responseLens: [1],
      kinds: ["RL"],
      staleness: [0],
      excludedSinceLast: 0,
      staleDroppedSinceLast: 0,
      importanceWeighted: 0,
      trainStepMs: 1,
      tokens: 1,
      checkpointMs: 1,
    });
    expect(m["rollout/reward_first"]).toBe(1);
    expect(m).not.toHaveProperty("rollout/reward_after_correction");
  });
});
