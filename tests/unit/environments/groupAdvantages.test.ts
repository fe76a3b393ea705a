// A GRPO group's advantages by estimator, on hand-computed cases.
import { describe, expect, it } from "vitest";
import { groupAdvantages } from "../../../server/environments/advantages/group";

const member = (outcome: number, steps: number, prm: (number | null)[] = []) => ({
  outcome,
  steps: Array.from({ length: steps }, (_, i) => ({ prmScore: prm[i] ?? null })),
});

describe("groupAdvantages", () => {
  it("grpo: the outcome z-normalised over the group, on every step of the episode", () => {
    // Outcomes 1, 1, −1, −1: mean 0, population std 1.
    const a = groupAdvantages([member(1, 2), member(1, 1), member(-1, 3), member(-1, 1)], "grpo");
    const z = 1 / (1 + 1e-6);
    expect(a).toEqual([[z, z], [z], [-z, -z, -z], [-z]]);
    // A group that all failed (or all passed) teaches nothing: zero advantages.
    expect(groupAdvantages([member(-1, 1), member(-1, 2)], "grpo")).toEqual([[0], [0, 0]]);
  });

  it("step_wise: buckets per step index; PRM scores where judged, else the outcome; constant buckets dropped", () => {
    // Step 0: PRM scores 1 and 0 → mean 0.5, std 0.5 → ±0.5/(0.5+1e-6). Step 1: outcomes 1 and 1 → constant,
    // dropped. Step 2: only the second member has it → a bucket of one keeps its raw value (its outcome 1).
    const a = groupAdvantages([member(1, 2, [1]), member(1, 3, [0])], "step_wise");
    const z = 0.5 / (0.5 + 1e-6);
    expect(a[0][0]).toBeCloseTo(z, 12);
    expect(a[1][0]).toBeCloseTo(-z, 12);
    expect(a[0][1]).toBeNull();
    expect(a[1][1]).toBeNull();
    expect(a[1][2]).toBe(1);
  });
});
