// step_wise advantages on hand-computed cases (the arithmetic is in the comments), and against the fork's own
// function: tests/fixtures/stepwise/fork-cases.json holds what slime's _post_process_step_wise_rewards
// returned on each case, run by integrations/contracts/extract_step_wise.py at the pinned commit.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  broadcastStepAdvantages,
  stepWiseAdvantages,
  type StepWiseSample,
} from "../../../server/environments/advantages/stepWise";

const spans = (n: number) => Array.from({ length: n }, (_, i) => [i * 2, i * 2 + 2] as const);
const sample = (group: number, scores: number[]): StepWiseSample => ({
  group,
  stepScores: scores,
  stepTokenSpans: spans(scores.length),
});

describe("stepWiseAdvantages", () => {
  it("z-normalises per (group, step index); a bucket of one keeps its raw value", () => {
    // Bucket (0,0) = {0.5, 0.0}: mean 0.25, population variance 0.125 − 0.0625 = 0.0625, std 0.25,
    // so ±0.25 / (0.25 + 1e-6). Bucket (0,1) = {1.0} alone: raw 1.0.
    const r = stepWiseAdvantages([sample(0, [0.5, 1.0]), sample(0, [0.0])]);
    const z = 0.25 / (0.25 + 1e-6);
    expect(r.steps[0].rewards[0]).toBeCloseTo(z, 12);
    expect(r.steps[0].rewards[1]).toBe(1.0);
    expect(r.steps[1].rewards).toHaveLength(1);
    expect(r.steps[1].rewards[0]).toBeCloseTo(-z, 12);
    expect(r.droppedBuckets).toEqual([]);
  });

  it("normalises each group on its own, even for the same step index", () => {
    // Group 0 bucket 0 = {2, 0}: mean 1, std 1 → ±1/(1+1e-6). Group 1 bucket 0 = {10, 4}: mean 7, std 3.
    const r = stepWiseAdvantages([sample(0, [2]), sample(1, [10]), sample(0, [0]), sample(1, [4])]);
    expect(r.steps.map((s) => s.rewards[0])).toEqual([
      1 / (1 + 1e-6),
      3 / (3 + 1e-6),
      -1 / (1 + 1e-6),
      -3 / (3 + 1e-6),
    ]);
  });

  it("drops a constant bucket and keeps the sample's other steps", () => {
    // Bucket (1,0) = {1, 1}: variance 0 → dropped. Bucket (1,1) = {0.2, −0.2}: mean 0, std 0.2.
    const r = stepWiseAdvantages([sample(1, [1, 0.2]), sample(1, [1, -0.2])]);
    expect(r.droppedBuckets).toEqual(["1:0"]);
    expect(r.keptBuckets).toEqual(["1:1"]);
    expect(r.steps[0].indices).toEqual([1]);
    expect(r.steps[0].spans).toEqual([[2, 4]]);
    expect(r.steps[0].rewards[0]).toBeCloseTo(0.2 / (0.2 + 1e-6), 12);
    expect(r.steps[1].rewards[0]).toBeCloseTo(-0.2 / (0.2 + 1e-6), 12);
    expect(r.steps.map((s) => s.removed)).toEqual([false, false]);
  });

  it("removes a sample that loses every step", () => {
    // Group 2's only bucket {0.3, 0.3} is constant; group 0's {1, 0} is not, so nothing falls back.
    const r = stepWiseAdvantages([sample(2, [0.3]), sample(2, [0.3]), sample(0, [1]), sample(0, [0])]);
    expect(r.droppedBuckets).toEqual(["2:0"]);
    expect(r.steps.map((s) => s.removed)).toEqual([true, true, false, false]);
    expect(r.steps[0]).toEqual({ rewards: [], indices: [], spans: [], removed: true });
    expect(broadcastStepAdvantages(r.steps[0], 4)).toEqual([0, 0, 0, 0]);
  });

  it("keeps the first bucket when every bucket is constant (it normalises to 0)", () => {
    // Buckets (3,0) = {1,1} and (3,1) = {5,5} are both constant: (3,0), seen first, is kept: (1−1)/(0+1e-6) = 0.
    const r = stepWiseAdvantages([sample(3, [1, 5]), sample(3, [1, 5])]);
    expect(r.keptBuckets).toEqual(["3:0"]);
    expect(r.droppedBuckets).toEqual(["3:1"]);
    expect(r.steps.map((s) => s.rewards)).toEqual([[0], [0]]);
    expect(r.steps.map((s) => s.removed)).toEqual([false, false]);
  });

  it("prefers stepScoresWithOutcome, aligns by explicit step indices, and trims to the valid spans", () => {
    const r = stepWiseAdvantages(
      [
        {
          group: 0,
          stepScores: [9, 9, 9],
          stepScoresWithOutcome: [1, 2, 3],
          stepIndices: [0, 2, 4],
          // The null span is dropped first, so only two steps survive: rewards [1, 2] on spans [0,2], [2,4].
          stepTokenSpans: [
            [null, 1],
            [0, 2],
            [2, 4],
          ],
        },
      ],
      { normalize: false },
    );
    expect(r.steps[0]).toEqual({
      rewards: [1, 2],
      indices: [0, 2],
      spans: [
        [0, 2],
        [2, 4],
      ],
      removed: false,
    });
    // Without normalisation nothing is dropped or removed; an empty stepScoresWithOutcome falls back.
    const raw = stepWiseAdvantages([{ ...sample(0, [0.3]), stepScoresWithOutcome: [] }, sample(0, [0.3])], {
      normalize: false,
    });
    expect(raw.steps.map((s) => s.rewards)).toEqual([[0.3], [0.3]]);
    expect(raw.droppedBuckets).toEqual([]);
  });
});

describe("broadcastStepAdvantages", () => {
  it("puts each step's scalar on its token span, zero elsewhere, masked, skipping spans outside the response", () => {
    const step = {
      rewards: [0.5, -2, 7],
      indices: [0, 1, 2],
      spans: [
        [0, 3],
        [5, 8],
        [8, 12], // ends past the 10-token response: skipped, as upstream does
      ] as [number, number][],
      removed: false,
    };
    const mask = [1, 1, 1, 1, 1, 1, 0, 1, 1, 1];
    expect(broadcastStepAdvantages(step, 10, mask)).toEqual([0.5, 0.5, 0.5, 0, 0, -2, 0, -2, 0, 0]);
  });
});

interface ForkCase {
  name: string;
  normalize: boolean;
  samples: StepWiseSample[];
  expected: { rewards: number[][]; spans: number[][][]; indices: number[][]; removed: boolean[] };
}
const fork = JSON.parse(readFileSync("tests/fixtures/stepwise/fork-cases.json", "utf8")) as {
  header: { commit: string };
  cases: ForkCase[];
};

describe("stepWiseAdvantages against the fork's function", () => {
  it("is pinned to the fork's commit", () => {
    expect(fork.header.commit).toBe("f48ac358adf9873b5cb2210f1cb234a52ed8a8a3");
    expect(fork.cases.length).toBeGreaterThanOrEqual(10);
  });

  it.each(fork.cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const r = stepWiseAdvantages(c.samples, { normalize: c.normalize });
    expect(r.steps.map((s) => s.indices)).toEqual(c.expected.indices);
    expect(r.steps.map((s) => s.spans)).toEqual(c.expected.spans);
    expect(r.steps.map((s) => s.removed)).toEqual(c.expected.removed);
    r.steps.forEach((s, i) => {
      expect(s.rewards).toHaveLength(c.expected.rewards[i].length);
      s.rewards.forEach((v, j) => expect(v).toBeCloseTo(c.expected.rewards[i][j], 12));
    });
  });
});
