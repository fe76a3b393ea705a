// The trainer's pure parts, on hand-computed cases: the per-run sample decision on top of the effective
// label, staleness and importance weights, the ETA estimator, step accounting, and the served prompt.
import { describe, expect, it } from "vitest";
import { END_ID, encode, SPECIAL_TOKENS } from "../../../server/engine/tokenizer";
import type { TrainingLabel } from "../../../server/labels/trainingLabel";
import { decideSample, type SampleFacts } from "../../../server/training/decide";
import { ArrivalRate } from "../../../server/training/eta";
import { stepMetrics } from "../../../server/training/metrics";
import { importanceWeight, isTooStale, stalenessOf } from "../../../server/training/staleness";
import { servedPromptIds } from "../../../server/training/trainInputs";

const judged = (over: Partial<TrainingLabel> = {}): TrainingLabel => ({
  turnId: "t",
  experimentId: "e",
  value: 1,
  source: "JUDGE",
  labelId: null,
  judgmentId: "j",
  hint: null,
  hintFromTurnId: null,
  needsTeacherRescore: false,
  teacherLogprobs: null,
  kind: "RL",
  reward: 1,
  excluded: false,
  excludeReason: null,
  ...over,
});
const facts = (over: Partial<SampleFacts> = {}): SampleFacts => ({
  method: "grpo",
  currentVersion: 3,
  servedVersion: 3,
  maxStaleness: 2,
  stalePolicy: "drop",
  tokenCount: 4,
  logprobCount: 4,
  ...over,
});

describe("decideSample", () => {
  it("keeps the effective label's kind and reward, and measures staleness", () => {
    expect(decideSample(judged(), facts({ servedVersion: 1 }))).toEqual({
      kind: "RL",
      reward: 1,
      labelSource: "JUDGE",
      excluded: false,
      excludeReason: null,
      staleness: 2,
      teacher: null,
    });
  });

  it("records nothing for a turn nobody has labelled yet", () => {
    expect(
      decideSample(
        judged({ value: null, source: null, kind: null, excluded: true, excludeReason: "not_judged" }),
        facts(),
      ),
    ).toBeNull();
  });

  it("keeps an excluded label as an excluded sample with its reason, under the method's kind when the dispatch gave none", () => {
    expect(
      decideSample(judged({ value: 0, reward: 0, excluded: true, excludeReason: "zero_score" }), facts()),
    ).toMatchObject({ kind: "RL", excluded: true, excludeReason: "zero_score" });
    const none = judged({ value: 0, reward: 0, kind: null, excluded: true, excludeReason: "no_hint_and_zero_eval" });
    expect(decideSample(none, facts({ method: "combine" }))).toMatchObject({
      kind: "BOTH",
      excluded: true,
      excludeReason: "no_hint_and_zero_eval",
    });
    expect(decideSample(none, facts({ method: "opd" }))).toMatchObject({ kind: "OPD", excluded: true });
  });

  it("drops a sample staler than maxStaleness under 'drop', keeps it under 'importance-weight'", () => {
    expect(decideSample(judged(), facts({ servedVersion: 0 }))).toMatchObject({
      excluded: true,
      excludeReason: "stale",
      staleness: 3,
    });
    expect(decideSample(judged(), facts({ servedVersion: 1 }))).toMatchObject({ excluded: false, staleness: 2 });
    expect(decideSample(judged(), facts({ servedVersion: 0, stalePolicy: "importance-weight" }))).toMatchObject({
      excluded: false,
      staleness: 3,
    });
    // After a rollback the served version can be newer than the trained one: just as off-policy.
    expect(decideSample(judged(), facts({ currentVersion: 1, servedVersion: 5 }))).toMatchObject({
      excluded: true,
      staleness: 4,
    });
  });

  it("excludes turns whose recorded tokens cannot train", () => {
    expect(decideSample(judged(), facts({ tokenCount: 0, logprobCount: 0 }))).toMatchObject({
      excluded: true,
      excludeReason: "no_token_ids",
    });
    expect(decideSample(judged(), facts({ logprobCount: 3 }))).toMatchObject({
      excluded: true,
      excludeReason: "logprob_length_mismatch",
    });
    const opd = judged({ kind: "OPD", reward: 0, teacherLogprobs: [-1, -2, -3] });
    expect(decideSample(opd, facts({ method: "opd" }))).toMatchObject({
      excluded: true,
      excludeReason: "teacher_length_mismatch",
    });
    expect(decideSample({ ...opd, teacherLogprobs: [-1, -2, -3, -4] }, facts({ method: "opd" }))).toMatchObject({
      excluded: false,
      kind: "OPD",
      teacher: "judgment",
    });
  });

  it("a reviewer's new hint makes the turn an OPD/combine sample whose teacher is rescored", () => {
    // effectiveLabels cannot use a hint the teacher has not scored: it dispatches without it (RL here).
    const reviewer = judged({
      source: "REVIEWER",
      labelId: "l",
      value: -1,
      reward: -1,
      hint: "Ask first.",
      needsTeacherRescore: true,
      kind: "RL",
    });
    expect(decideSample(reviewer, facts({ method: "combine" }))).toMatchObject({
      kind: "BOTH",
      reward: -1,
      labelSource: "REVIEWER",
      excluded: false,
      teacher: "rescore",
    });
    expect(
      decideSample(
        { ...reviewer, value: 0, reward: 0, kind: null, excluded: true, excludeReason: "no_hint_and_zero_eval" },
        facts({ method: "combine" }),
      ),
    ).toMatchObject({ kind: "OPD", reward: 0, excluded: false, teacher: "rescore" });
    expect(decideSample(reviewer, facts({ method: "grpo" }))).toMatchObject({ kind: "RL", reward: -1, teacher: null });
    // A reviewer's forced exclusion still wins.
    expect(
      decideSample({ ...reviewer, excluded: true, excludeReason: "reviewer_excluded" }, facts({ method: "combine" })),
    ).toMatchObject({ excluded: true, excludeReason: "reviewer_excluded" });
  });
});

describe("staleness", () => {
  it("is the version distance, and only beyond maxStaleness is too stale", () => {
    expect(stalenessOf(7, 4)).toBe(3);
    expect(stalenessOf(2, 6)).toBe(4);
    expect(isTooStale(2, 2)).toBe(false);
    expect(isTooStale(3, 2)).toBe(true);
  });

  it("importance weight = min(1, exp(mean(current − behaviour)))", () => {
    expect(importanceWeight([-1, -2], [-0.5, -1.5])).toBeCloseTo(Math.exp(-0.5), 12);
    expect(importanceWeight([-1, -2], [-1.5, -2.5])).toBe(1);
    expect(importanceWeight([], [])).toBe(0);
  });
});

describe("ArrivalRate", () => {
  it("estimates the time to a full batch from recent arrivals", () => {
    const r = new ArrivalRate(60_000);
    expect(r.etaSeconds(3, 16)).toBeNull();
    r.observe(0, 10);
    r.observe(10_000, 15); // 0.5 samples/s
    expect(r.rate()).toBeCloseTo(0.5, 12);
    expect(r.etaSeconds(6, 16)).toBeCloseTo(20, 12);
    expect(r.etaSeconds(16, 16)).toBe(0);
    r.observe(100_000, 15); // the window slides: nothing arrived in the last minute
    expect(r.etaSeconds(6, 16)).toBeNull();
  });
});

describe("stepMetrics", () => {
  it("accounts the batch like slime names it", () => {
    const m = stepMetrics({
      trainMetrics: { "train/loss": 0.5 },
      rewards: [1, -1, 0, 1],
      evalScores: [1, -1 / 3],
      responseLens: [4, 6, 8, 2],
      kinds: ["RL", "BOTH", "OPD", "BOTH"],
      staleness: [0, 1, 3, 0],
      excludedSinceLast: 5,
      staleDroppedSinceLast: 2,
      importanceWeighted: 1,
      trainStepMs: 200,
      tokens: 100,
      checkpointMs: 7,
    });
    expect(m).toEqual({
      "train/loss": 0.5,
      "rollout/reward_mean": 0.25,
      "rollout/prm_eval_score": expect.closeTo(1 / 3, 12),
      "rollout/response_len/mean": 5,
      "samples/accepted": 4,
      "samples/excluded": 5,
      "samples/stale_dropped": 2,
      "samples/importance_weighted": 1,
      "samples/opd_only": 1,
      "samples/rl_only": 1,
      "samples/both": 2,
      "staleness/mean": 1,
      "staleness/max": 3,
      "perf/train_step_ms": 200,
      "perf/tokens_per_s": 500,
      "perf/checkpoint_ms": 7,
    });
  });
});

describe("servedPromptIds", () => {
  const U = SPECIAL_TOKENS.user;
  const A = SPECIAL_TOKENS.assistant;
  const T = SPECIAL_TOKENS.tool;
  it("renders like the embedded upstream: function messages are tool messages, bad tool definitions are skipped", () => {
    const ids = servedPromptIds(
      [
        { role: "user", content: "hi" },
        { role: "function", content: "42", name: "f" },
      ],
      [{ nope: 1 }],
      null,
    );
    expect(ids).toEqual([U, ...encode("hi"), END_ID, T, ...encode("42"), END_ID, A]);
  });

  it("cuts the prompt from the left to the length the engine reported", () => {
    const full = servedPromptIds([{ role: "user", content: "abcdef" }], undefined, null)!;
    expect(servedPromptIds([{ role: "user", content: "abcdef" }], undefined, 4)).toEqual(full.slice(full.length - 4));
    expect(servedPromptIds([{ role: "user", content: "abcdef" }], undefined, 999)).toEqual(full);
  });

  it("finds a prompt the engine fitted by whole messages from its reported length", () => {
    const messages = [
      { role: "user", content: "How do I boil an egg?" },
      { role: "assistant", content: "Boil it." },
      { role: "user", content: "no — use a bullet list." },
    ];
    const latest = [U, ...encode("no — use a bullet list."), END_ID, A];
    expect(servedPromptIds(messages, undefined, latest.length)).toEqual(latest);
  });

  it("is null for a request the template cannot render", () => {
    expect(servedPromptIds([{ role: "robot", content: "x" }], undefined, null)).toBeNull();
  });
});
