import { describe, expect, it } from "vitest";
import { dispatchTurn } from "../../../server/judge/core/dispatch";
import type { Dispatch, JudgeMethod, VoteValue } from "../../../server/judge/core/schemas";

type Row = [JudgeMethod, boolean, VoteValue, boolean, Dispatch];
const ok = (kind: Dispatch["kind"], reward: number): Dispatch => ({
  kind,
  reward,
  excluded: false,
  excludeReason: null,
});
const excluded = (kind: Dispatch["kind"], reason: string): Dispatch => ({
  kind,
  reward: 0,
  excluded: true,
  excludeReason: reason,
});

// [method, hasNextState, score, hintUsable, expected]
const table: Row[] = [
  ["grpo", true, 1, false, ok("RL", 1)],
  ["grpo", true, -1, false, ok("RL", -1)],
  ["grpo", true, 0, false, excluded("RL", "zero_score")],
  ["grpo", false, 0, false, excluded("RL", "no_next_state")],
  ["grpo", true, 1, true, ok("RL", 1)], // hints never matter for grpo
  ["opd", true, 1, true, ok("OPD", 0)],
  ["opd", true, -1, true, ok("OPD", 0)], // eval is only a metric for opd
  ["opd", true, 1, false, excluded(null, "no_valid_hint")],
  ["opd", false, 0, true, excluded(null, "no_next_state")],
  ["combine", true, 1, true, ok("BOTH", 1)],
  ["combine", true, -1, true, ok("BOTH", -1)],
  ["combine", true, 0, true, ok("OPD", 0)],
  ["combine", true, 1, false, ok("RL", 1)],
  ["combine", true, -1, false, ok("RL", -1)],
  ["combine", true, 0, false, excluded(null, "no_hint_and_zero_eval")],
  ["combine", false, 1, true, excluded(null, "no_next_state")],
];

describe("dispatchTurn", () => {
  it.each(table)("%s next=%s score=%i hint=%s", (method, hasNextState, score, hintUsable, expected) => {
    expect(dispatchTurn({ method, hasNextState, score, hintUsable })).toEqual(expected);
  });
});
