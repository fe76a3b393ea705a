// The per-user scheduler on hand-made cases: who is due (minimum batch, train-when-idle, the hour window), fair
// share (least recently trained first; a backlog costs one bounded version per tick, so the users behind it are
// not kept waiting across ticks) and the per-minute cap, first as the plan alone, then through real ticks.
import { beforeAll, describe, expect, it } from "vitest";
import type { ExperimentConfigInput } from "../../../server/config/experimentConfig";
import { initBackend } from "../../../server/engine/backend";
import { db } from "../../../server/platform/db/client";
import { inWindow, perUserTick, planTick, type Candidate } from "../../../server/personalization/schedule";
import { oldestBatch } from "../../../server/personalization/train";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment } from "../../helpers/fixtures";

beforeAll(async () => {
  await initBackend();
});

const at = (iso: string) => new Date(iso);
const NOW = at("2026-12-03T12:00:00Z");
const rules = { minSamples: 4, idleAfterS: 0, windowUtc: null };
const cand = (endUserId: string, over: Partial<Candidate> = {}): Candidate => ({
  experimentId: "e1",
  endUserId,
  pending: 4,
  waitingSince: at("2026-12-03T11:00:00Z"),
  lastTrainedAt: null,
  lastTurnAt: at("2026-12-03T11:59:00Z"),
  rules,
  ...over,
});
const names = (cs: readonly Candidate[]) => cs.map((c) => c.endUserId);
const reasons = (plan: ReturnType<typeof planTick>) =>
  Object.fromEntries(plan.skipped.map((s) => [s.candidate.endUserId, s.reason]));

describe("planTick", () => {
  it("trains users with a full buffer, least recently trained first, then the longest waiting", () => {
    const plan = planTick(
      [
        cand("recent", { lastTrainedAt: at("2026-12-03T11:58:00Z"), pending: 400 }),
        cand("older", { lastTrainedAt: at("2026-12-03T10:00:00Z") }),
        cand("new-late", { waitingSince: at("2026-12-03T11:30:00Z") }),
        cand("new-early", { waitingSince: at("2026-12-03T09:00:00Z") }),
        cand("short", { pending: 3 }),
      ],
      { now: NOW, trainedLastMinute: 0, maxPerMinute: 0 },
    );
    expect(names(plan.train)).toEqual(["new-early", "new-late", "older", "recent"]);
    expect(reasons(plan)).toEqual({ short: "too_few_samples" });
  });

  it("caps versions per rolling minute, counting those already trained; the rest keep their place", () => {
    const users = [cand("a", { lastTrainedAt: at("2026-12-03T11:00:00Z") }), cand("b"), cand("c")];
    const plan = planTick(users, { now: NOW, trainedLastMinute: 1, maxPerMinute: 3 });
    expect(names(plan.train)).toEqual(["b", "c"]);
    expect(reasons(plan)).toEqual({ a: "rate_capped" });
    expect(planTick(users, { now: NOW, trainedLastMinute: 5, maxPerMinute: 3 }).train).toEqual([]);
  });

  it("trains when idle: only once the user's newest turn is old enough, and inside the hour window", () => {
    const idle = { ...rules, idleAfterS: 600 };
    const plan = planTick(
      [
        cand("talking", { rules: idle, lastTurnAt: at("2026-12-03T11:55:00Z") }),
        cand("quiet", { rules: idle, lastTurnAt: at("2026-12-03T11:50:00Z") }),
        cand("night-only", { rules: { ...rules, windowUtc: { from: 22, to: 6 } } }),
        cand("noon", { rules: { ...rules, windowUtc: { from: 11, to: 13 } } }),
      ],
      { now: NOW, trainedLastMinute: 0, maxPerMinute: 0 },
    );
    expect(names(plan.train)).toEqual(["noon", "quiet"]);
    expect(reasons(plan)).toEqual({ talking: "not_idle", "night-only": "outside_window" });
    expect([23, 0, 5, 6, 12].map((h) => inWindow(h, { from: 22, to: 6 }))).toEqual([true, true, true, false, false]);
  });

  it("cuts a batch after the oldest samples but never between samples of the same instant", () => {
    const s = ["10:00", "10:01", "10:01", "10:02"].map((t) => ({ createdAt: at(`2026-12-03T${t}:00Z`) }));
    expect(oldestBatch(s, 2)).toHaveLength(3);
    expect(oldestBatch(s, 1)).toHaveLength(1);
    expect(oldestBatch(s, 9)).toHaveLength(4);
  });
});

describe("perUserTick", () => {
  const perUser = (over: NonNullable<ExperimentConfigInput["perUser"]> = {}) =>
    makeExperiment({
      personalization: "per-user",
      perUser: { minSamples: 2, maxSamplesPerVersion: 2, heldOutFraction: 0, lr: 0.5, ...over },
    });
  const turns = async (experimentId: string, endUserId: string, n: number, from: Date) => {
    for (let i = 0; i < n; i++)
      await makeEndUserTurn({
        experimentId,
        endUserId,
        prompt: `q${i}`,
        reply: i % 2 ? "Yes." : "No, not at all.",
        reward: i % 2 ? 1 : -1,
        createdAt: new Date(from.getTime() + i * 1000),
      });
  };
  const versions = (experimentId: string, endUserId: string) =>
    db().userAdapter.findMany({ where: { experimentId, endUserId }, orderBy: { version: "asc" } });

  it("does not let one user's backlog starve another: one bounded version each per tick, in turn", async () => {
    const e = await perUser();
    await turns(e.id, "backlog", 6, at("2026-12-03T08:00:00Z"));
    await turns(e.id, "late", 2, at("2026-12-03T09:00:00Z"));
    const t1 = await perUserTick([e.id]);
    expect(t1[e.id]).toMatchObject({ backlog: { trained: true, samples: 2 }, late: { trained: true, samples: 2 } });
    // The backlog's remaining four samples make two more versions over the next ticks, not one long one.
    const t2 = await perUserTick([e.id]);
    expect(t2[e.id]).toMatchObject({ backlog: { trained: true, samples: 2 }, late: { trained: false } });
    await perUserTick([e.id]);
    expect((await versions(e.id, "backlog")).map((v) => v.samples)).toEqual([2, 2, 2]);
    expect((await perUserTick([e.id]))[e.id].backlog).toMatchObject({ trained: false, reason: "too_few_samples" });
  });

  it("keeps to the cap per minute, and the user left out goes first on the next tick", async () => {
    const e = await perUser();
    await turns(e.id, "ann", 2, at("2026-12-03T08:00:00Z"));
    await turns(e.id, "bob", 2, at("2026-12-03T08:10:00Z"));
    const t1 = await perUserTick([e.id], { maxPerMinute: 1 });
    expect(t1[e.id]).toMatchObject({ ann: { trained: true }, bob: { trained: false, reason: "rate_capped" } });
    // Within the same minute the cap still holds (counted from the stored versions, not this process's memory).
    expect((await perUserTick([e.id], { maxPerMinute: 1 }))[e.id].bob).toMatchObject({ reason: "rate_capped" });
    await turns(e.id, "ann", 2, at("2026-12-03T08:20:00Z"));
    const later = new Date(Date.now() + 61_000);
    const t3 = await perUserTick([e.id], { maxPerMinute: 1, now: later });
    expect(t3[e.id]).toMatchObject({ bob: { trained: true }, ann: { trained: false, reason: "rate_capped" } });
  });

  it("trains when idle: waits for a quiet user", async () => {
    const e = await perUser({ idleAfterS: 3600 });
    const lastTurn = at("2026-12-03T08:00:00Z");
    await turns(e.id, "kim", 2, new Date(lastTurn.getTime() - 1000));
    const soon = await perUserTick([e.id], { now: new Date(lastTurn.getTime() + 60_000) });
    expect(soon[e.id].kim).toMatchObject({ trained: false, reason: "not_idle" });
    const quiet = await perUserTick([e.id], { now: new Date(lastTurn.getTime() + 3_600_000) });
    expect(quiet[e.id].kim).toMatchObject({ trained: true, version: 1 });
  });
});
