// The "is it learning?" report over recorded data: first replies against the base, the held-out pass rate on the
// same eval set version, hint acceptance per version, sessions until a stable effect per simulated user, and the
// verdict that follows — read through the REST route a dashboard or script would call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { api, makeKey, uniq } from "../../helpers/fixtures";
import { startApiServer } from "../../helpers/apiServer";
import { seedExperiment, seedSession } from "../dashboard/seed";
import { seedJudgment } from "../../helpers/judgments";

let server: Awaited<ReturnType<typeof startApiServer>>;
let reader: ReturnType<typeof api>;
beforeAll(async () => {
  server = await startApiServer();
  reader = api(server.url, { bearer: await makeKey(["read"]) });
});
afterAll(() => server.close());

/** One conversation per entry: its first reply's version and judged score, then a corrected second reply. */
async function conversations(experimentId: string, persona: string, firsts: { version: number; score: -1 | 1 }[]) {
  for (const f of firsts) {
    const { session, turns } = await seedSession(
      experimentId,
      [
        { user: "q", reply: "a", policyVersion: f.version },
        { user: "no — again", reply: "b", policyVersion: f.version, next: "thanks" },
      ],
      { simulated: true, externalId: uniq("s") },
    );
    await db().agentSession.update({ where: { id: session.id }, data: { persona } });
    await seedJudgment(turns[0]!.id, { score: f.score, votes: [f.score] });
    // The reply after a correction always meets the preference: it must not count as a first reply.
    await seedJudgment(turns[1]!.id, { score: 1, votes: [1], hint: f.score < 0 ? "use bullet points" : undefined });
  }
}

async function evaluation(experimentId: string, setVersionId: string, policyVersion: number, mean: number) {
  await db().evaluation.create({
    data: {
      experimentId,
      setVersionId,
      policyVersion,
      status: "DONE",
      grader: "persona",
      graderVersion: "persona-v2",
      mean,
    },
  });
}

async function report(experimentId: string) {
  const res = await reader("GET", `/api/v1/evaluations/learning?experimentId=${experimentId}`);
  expect(res.status).toBe(200);
  return res.body as unknown as {
    verdict: string;
    reason: string;
    rule: string;
    judgedGain: number | null;
    heldOutGain: number | null;
    versions: {
      version: number;
      firstTurns: number;
      firstReward: number | null;
      heldOut: number | null;
      hinted: number;
      hintAcceptance: number | null;
    }[];
    stableEffect: {
      sessions: number;
      sessionsUntilStable: number | null;
      byUser: { user: string; sessionsUntilStable: number | null }[];
    };
  };
}

describe("learning report", () => {
  it("says too early, then learning, then fitting the judge when held-out stays flat", async () => {
    const e = await seedExperiment({ method: "combine" });
    // Base: 12 conversations, first replies all −1. Leo after 4 conversations of v1 (−1) keeps +1 from then on.
    await conversations(
      e.id,
      "leo",
      Array.from({ length: 12 }, () => ({ version: 0, score: -1 as const })),
    );
    expect((await report(e.id)).verdict).toBe("too early");

    await conversations(e.id, "leo", [
      ...Array.from({ length: 4 }, () => ({ version: 1, score: -1 as const })),
      ...Array.from({ length: 10 }, () => ({ version: 2, score: 1 as const })),
    ]);
    let r = await report(e.id);
    // Recent: v2's 10 (+1) and v1's 4 (−1) = 14 first replies, mean 6/14; base −1.
    expect(r.judgedGain).toBeCloseTo(6 / 14 + 1);
    expect(r.verdict).toBe("learning");
    expect(r.reason).toContain("no held-out evaluation");
    const v0 = r.versions.find((v) => v.version === 0)!;
    expect(v0).toMatchObject({ firstTurns: 12, firstReward: -1, hinted: 0, hintAcceptance: null });
    // Sessions: 12 + 4 failing, then 10 in a row.
    expect(r.stableEffect.sessions).toBe(26);
    expect(r.stableEffect.sessionsUntilStable).toBe(16);
    expect(r.stableEffect.byUser).toEqual([{ user: "leo", sessions: 26, sessionsUntilStable: 16 }]);

    // Held-out on the same set version: base 0.20, v2 0.22 — the judged rise is not confirmed.
    const set = await db().evalSet.create({
      data: {
        experimentId: e.id,
        name: uniq("set"),
        versions: { create: { version: 1, source: "persona", itemCount: 8 } },
      },
      include: { versions: true },
    });
    await evaluation(e.id, set.versions[0]!.id, 0, 0.2);
    await evaluation(e.id, set.versions[0]!.id, 2, 0.22);
    r = await report(e.id);
    expect(r.verdict).toBe("fitting the judge");
    expect(r.heldOutGain).toBeCloseTo(0.02);
    expect(r.versions.find((v) => v.version === 2)!.heldOut).toBeCloseTo(0.22);
    await evaluation(e.id, set.versions[0]!.id, 3, 0.6);
    expect((await report(e.id)).verdict).toBe("learning");
  });

  it("counts a per-user experiment's versions as its users' adapter versions (its shared policy never changes)", async () => {
    const e = await seedExperiment({ method: "grpo", personalization: "per-user" });
    const adapter = await db().userAdapter.create({
      data: {
        experimentId: e.id,
        endUserId: "leo",
        version: 1,
        rank: 2,
        alpha: 4,
        state: "PROMOTED",
        weights: Buffer.from([0]),
      },
    });
    // Every turn is served by policy version 0: 12 conversations by the base (−1), then 14 by Leo's adapter v1 (+1).
    await conversations(
      e.id,
      "leo",
      Array.from({ length: 12 }, () => ({ version: 0, score: -1 as const })),
    );
    const byBase = (await db().turn.findMany({ where: { experimentId: e.id }, select: { id: true } })).map((t) => t.id);
    await conversations(
      e.id,
      "leo",
      Array.from({ length: 14 }, () => ({ version: 0, score: 1 as const })),
    );
    await db().turn.updateMany({
      where: { experimentId: e.id, id: { notIn: byBase } },
      data: { adapterId: adapter.id },
    });
    const r = await report(e.id);
    expect(r).toMatchObject({ versionsOf: "adapter", verdict: "learning" });
    expect(r.versions.map((v) => [v.version, v.firstTurns, v.firstReward])).toEqual([
      [0, 12, -1],
      [1, 14, 1],
    ]);
  });

  it("gives hint acceptance per version from the judgments that asked for a hint", async () => {
    const e = await seedExperiment({ method: "opd" });
    const { turns } = await seedSession(e.id, [
      { user: "q1", reply: "a1", policyVersion: 1 },
      { user: "q2", reply: "a2", policyVersion: 1 },
      { user: "q3", reply: "a3", policyVersion: 1, next: "ok" },
    ]);
    for (const [i, t] of turns.entries()) {
      const j = await seedJudgment(t.id, { score: -1, votes: [-1], hint: i === 0 ? "be brief" : undefined });
      await db().judgeVote.create({
        data: { judgmentId: j.id, kind: "hint", index: 0, raw: "…", value: i === 0 ? 1 : null },
      });
    }
    const r = await report(e.id);
    expect(r.versions.find((v) => v.version === 1)).toMatchObject({ hinted: 3 });
    expect(r.versions.find((v) => v.version === 1)!.hintAcceptance).toBeCloseTo(1 / 3);
  });

  it("refuses an experiment the caller cannot see", async () => {
    const res = await reader("GET", `/api/v1/evaluations/learning?experimentId=${uniq("missing")}`);
    expect(res.status).toBe(404);
  });
});
