// effectiveLabelsForTurns, the trainer's view of every turn: reviewer > user feedback > judge, then the
// reference's combine dispatch on the winning value. Expected outcomes are worked out by hand per case.
import { describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { effectiveLabelsForTurns } from "../../../server/labels/effective";
import { seedJudgment } from "../../helpers/judgments";
import { seedSession, seedUserFeedback } from "./seed";
import { makeExperiment } from "../../helpers/fixtures";

async function turnsFor(
  method: "grpo" | "opd" | "combine",
  specs: { next?: string | null; turnType?: "MAIN" | "SIDE"; status?: "OK" | "FAILED" }[],
) {
  const exp = await makeExperiment({ method });
  const { turns } = await seedSession(
    exp.id,
    specs.map((s, i) => ({
      user: `u${i}`,
      reply: `a${i}`,
      next: s.next === undefined ? `n${i}` : s.next,
      turnType: s.turnType,
      status: s.status,
    })),
  );
  return turns.map((t) => t.id);
}

const reviewer = (turnId: string, value: number, extra: { hint?: string; exclude?: boolean; createdAt?: Date } = {}) =>
  db().label.create({
    data: {
      turnId,
      source: "REVIEWER",
      value,
      hint: extra.hint,
      exclude: extra.exclude ?? null,
      createdAt: extra.createdAt,
    },
  });

describe("effectiveLabelsForTurns", () => {
  it("grpo: judge alone, user feedback over the judge, reviewer over both, the latest reviewer label wins", async () => {
    const [a, b, c, d] = await turnsFor("grpo", [{}, {}, {}, {}]);
    for (const id of [a!, b!, c!, d!]) await seedJudgment(id, { score: 1, votes: [1, 1, 1] });
    await seedUserFeedback(b!, -1);
    await seedUserFeedback(c!, -1);
    await reviewer(c!, 1);
    await reviewer(d!, -1, { createdAt: new Date(Date.now() - 60_000) });
    await reviewer(d!, 1, { createdAt: new Date() });
    const m = await effectiveLabelsForTurns([a!, b!, c!, d!]);
    expect(m.get(a!)).toMatchObject({
      source: "JUDGE",
      value: 1,
      kind: "RL",
      reward: 1,
      excluded: false,
      labelId: null,
    });
    expect(m.get(b!)).toMatchObject({ source: "USER", value: -1, kind: "RL", reward: -1, excluded: false });
    expect(m.get(c!)).toMatchObject({ source: "REVIEWER", value: 1, kind: "RL", reward: 1, excluded: false });
    expect(m.get(d!)).toMatchObject({ source: "REVIEWER", value: 1, reward: 1 });
  });

  it("exclusions: judge 0, reviewer 0, reviewer exclude, no next state (unless a human labelled it), side, failed, unjudged", async () => {
    const [zero, revZero, revEx, noNext, noNextUser, side, failed, unjudged] = await turnsFor("grpo", [
      {},
      {},
      {},
      { next: null },
      { next: null },
      { turnType: "SIDE" },
      { status: "FAILED" },
      {},
    ]);
    await seedJudgment(zero!, { score: 0, votes: [1, -1, 0] });
    await seedJudgment(revZero!, { score: 1, votes: [1] });
    await reviewer(revZero!, 0);
    await seedJudgment(revEx!, { score: 1, votes: [1] });
    await reviewer(revEx!, 1, { exclude: true });
    await seedJudgment(noNext!, { score: 0, votes: [], excludeReason: "no_next_state" });
    await seedJudgment(noNextUser!, { score: 0, votes: [] });
    await seedUserFeedback(noNextUser!, 1);
    const m = await effectiveLabelsForTurns([
      zero!,
      revZero!,
      revEx!,
      noNext!,
      noNextUser!,
      side!,
      failed!,
      unjudged!,
      "no-such-turn",
    ]);
    expect(m.get(zero!)).toMatchObject({ excluded: true, excludeReason: "zero_score", source: "JUDGE" });
    expect(m.get(revZero!)).toMatchObject({
      excluded: true,
      excludeReason: "zero_score",
      source: "REVIEWER",
      value: 0,
    });
    expect(m.get(revEx!)).toMatchObject({
      excluded: true,
      excludeReason: "reviewer_excluded",
      source: "REVIEWER",
      value: 1,
    });
    expect(m.get(noNext!)).toMatchObject({ excluded: true, excludeReason: "no_next_state" });
    expect(m.get(noNextUser!)).toMatchObject({ excluded: false, source: "USER", kind: "RL", reward: 1 });
    expect(m.get(side!)).toMatchObject({ excluded: true, excludeReason: "side_turn", value: null });
    expect(m.get(failed!)).toMatchObject({ excluded: true, excludeReason: "failed_turn" });
    expect(m.get(unjudged!)).toMatchObject({ excluded: true, excludeReason: "not_judged", value: null });
    expect(m.has("no-such-turn")).toBe(false);
  });

  it("a reviewer's exclude: false lifts the dispatch's exclusion where the turn can still train", async () => {
    const [grpoZero, grpoUnset] = await turnsFor("grpo", [{}, {}]);
    const [combineZero] = await turnsFor("combine", [{}]);
    const [opdNoHint] = await turnsFor("opd", [{}]);
    for (const t of [grpoZero, grpoUnset, combineZero, opdNoHint]) await seedJudgment(t!, { score: 1, votes: [1] });
    await reviewer(grpoZero!, 0, { exclude: false });
    await reviewer(grpoUnset!, 0);
    await reviewer(combineZero!, 0, { exclude: false });
    await reviewer(opdNoHint!, 1, { exclude: false });
    const m = await effectiveLabelsForTurns([grpoZero!, grpoUnset!, combineZero!, opdNoHint!]);
    expect(m.get(grpoZero!)).toMatchObject({
      excluded: false,
      excludeReason: null,
      kind: "RL",
      reward: 0,
      source: "REVIEWER",
    });
    expect(m.get(grpoUnset!)).toMatchObject({ excluded: true, excludeReason: "zero_score" });
    expect(m.get(combineZero!)).toMatchObject({ excluded: false, kind: "RL", reward: 0 });
    // OPD has nothing to distil without teacher log-probs: the lift cannot make a sample of it.
    expect(m.get(opdNoHint!)).toMatchObject({ excluded: true, excludeReason: "no_valid_hint" });
  });

  it("carries the judge's hint candidates, shortest first, when its hint is the shortest (train-time hint selection)", async () => {
    const [shortest, longest, reviewed] = await turnsFor("combine", [{}, {}, {}]);
    const [short, long] = ["Use metric units only.", "Answer in at most two sentences and skip the preamble."];
    const lp = [-0.1, -0.2];
    const hintVotes = async (judgmentId: string) => {
      const votes: [number | null, string][] = [
        [1, long],
        [1, ` ${short} `],
        [-1, "Rejected by its own vote, however long it is."],
        [1, short],
      ];
      for (const [index, [value, hint]] of votes.entries())
        await db().judgeVote.create({ data: { judgmentId, kind: "hint", index, raw: hint, value, hint } });
    };
    await hintVotes((await seedJudgment(shortest!, { score: 1, votes: [1], hint: short, teacherLogprobs: lp })).id);
    await hintVotes((await seedJudgment(longest!, { score: 1, votes: [1], hint: long, teacherLogprobs: lp })).id);
    await hintVotes((await seedJudgment(reviewed!, { score: 1, votes: [1], hint: short, teacherLogprobs: lp })).id);
    await reviewer(reviewed!, 1, { hint: "A different, reviewer-written hint." });
    const m = await effectiveLabelsForTurns([shortest!, longest!, reviewed!]);
    expect(m.get(shortest!)).toMatchObject({ hint: short, hintCandidates: [short, long] });
    // The reference's longest hint, or the reviewer's, is one hint: nothing to choose among.
    expect(m.get(longest!)?.hintCandidates).toBeUndefined();
    expect(m.get(reviewed!)?.hintCandidates).toBeUndefined();
  });

  it("combine and opd: hints with teacher log-probs, and a reviewer hint that needs re-scoring", async () => {
    const [both, hintOnly, revHint, sameHint] = await turnsFor("combine", [{}, {}, {}, {}]);
    const hint = "Use the metric system, as the user asked.";
    const lp = [-0.1, -0.2];
    await seedJudgment(both!, { score: -1, votes: [-1, -1], hint, teacherLogprobs: lp });
    await seedJudgment(hintOnly!, { score: 0, votes: [1, -1], hint, teacherLogprobs: lp });
    await seedJudgment(revHint!, { score: 1, votes: [1], hint, teacherLogprobs: lp });
    await reviewer(revHint!, 1, { hint: "A different, reviewer-written hint." });
    await seedJudgment(sameHint!, { score: 1, votes: [1], hint, teacherLogprobs: lp });
    await reviewer(sameHint!, -1, { hint: `  ${hint} ` });
    const m = await effectiveLabelsForTurns([both!, hintOnly!, revHint!, sameHint!]);
    expect(m.get(both!)).toMatchObject({
      kind: "BOTH",
      reward: -1,
      hint,
      teacherLogprobs: lp,
      needsTeacherRescore: false,
    });
    expect(m.get(hintOnly!)).toMatchObject({ kind: "OPD", reward: 0, excluded: false });
    // Teacher log-probs belong to the judge's hint: with the reviewer's hint the turn trains RL until re-scored.
    expect(m.get(revHint!)).toMatchObject({
      kind: "RL",
      reward: 1,
      hint: "A different, reviewer-written hint.",
      needsTeacherRescore: true,
      teacherLogprobs: null,
    });
    // The same hint (after trimming) keeps its teacher log-probs; the reviewer's −1 becomes the reward.
    expect(m.get(sameHint!)).toMatchObject({
      kind: "BOTH",
      reward: -1,
      needsTeacherRescore: false,
      teacherLogprobs: lp,
    });

    const [opdHint, opdNone] = await turnsFor("opd", [{}, {}]);
    await seedJudgment(opdHint!, { score: 1, votes: [1], hint, teacherLogprobs: lp });
    await seedJudgment(opdNone!, { score: 1, votes: [1] });
    const o = await effectiveLabelsForTurns([opdHint!, opdNone!]);
    expect(o.get(opdHint!)).toMatchObject({ kind: "OPD", reward: 0, excluded: false });
    expect(o.get(opdNone!)).toMatchObject({ kind: null, excluded: true, excludeReason: "no_valid_hint" });
  });
});
