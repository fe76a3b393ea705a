// The turn_facets triggers: every writer (proxy SQL, judge, labels, updates, deletes) keeps the browser's
// filter columns equal to what the turn, its latest judgment, votes and labels say.
import { describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { seedJudgment, makeJudgment } from "../../helpers/judgments";
import { seedSession, seedUserFeedback } from "./seed";
import { makeExperiment, makeRun } from "../../helpers/fixtures";

const facet = (turnId: string) => db().turnFacet.findUniqueOrThrow({ where: { turnId } });

describe("turn facets", () => {
  it("follow inserts, judgments (latest wins), votes, user feedback, relabels, updates and deletes", async () => {
    const exp = await makeExperiment();
    const { turns } = await seedSession(exp.id, [{ user: "a", reply: "b", policyVersion: 2 }]);
    const id = turns[0]!.id;
    expect(await facet(id)).toMatchObject({
      experimentId: exp.id,
      judged: false,
      score: null,
      split: false,
      relabeled: false,
      disputed: false,
      policyVersion: 2,
      turnType: "MAIN",
    });

    const first = await seedJudgment(id, { score: 1, votes: [1, 1, -1] });
    expect(await facet(id)).toMatchObject({
      judged: true,
      score: 1,
      validVotes: 3,
      agreeVotes: 2,
      split: true,
      disputed: true,
    });
    // A newer judgment (another judge version) replaces the older one's verdict.
    await makeJudgment(id, { judgeVersion: "v2", score: -1, createdAt: new Date(Date.now() + 1000), votes: [-1] });
    expect(await facet(id)).toMatchObject({ score: -1, validVotes: 1, agreeVotes: 1, split: false, disputed: false });
    await seedUserFeedback(id, 1);
    expect(await facet(id)).toMatchObject({ userValue: 1, disputed: true });
    await db().label.create({ data: { turnId: id, source: "REVIEWER", value: 1 } });
    expect(await facet(id)).toMatchObject({ relabeled: true });

    const run = await makeRun(exp.id);
    await db().turn.update({ where: { id }, data: { runId: run.id, policyVersion: 7, status: "FAILED" } });
    expect(await facet(id)).toMatchObject({ runId: run.id, policyVersion: 7, status: "FAILED" });
    // A next state arriving changes no facet column (and must not fail the proxy's update).
    await db().turn.update({ where: { id }, data: { nextStateRole: "user" } });

    await db().judgment.deleteMany({ where: { turnId: id, judgeVersion: "v2" } });
    expect(await facet(id)).toMatchObject({ score: 1, split: true, judged: true });
    await db().judgment.delete({ where: { id: first.id } });
    await db().label.deleteMany({ where: { turnId: id } });
    expect(await facet(id)).toMatchObject({
      judged: false,
      score: null,
      relabeled: false,
      userValue: null,
      disputed: false,
    });
    await db().turn.delete({ where: { id } });
    expect(await db().turnFacet.findUnique({ where: { turnId: id } })).toBeNull();
  });

  it("are written for turns inserted by raw multi-row SQL, as the proxy's recorder does", async () => {
    const exp = await makeExperiment();
    const { session } = await seedSession(exp.id, []);
    await db().$executeRaw`
      INSERT INTO turns (id, "requestId", "experimentId", "sessionId", index, "messagesDelta", "tokenIds", logprobs)
      VALUES ('raw-a-' || ${exp.id}, 'raw-a-' || ${exp.id}, ${exp.id}, ${session.id}, 0, '[]', '{}', '{}'),
             ('raw-b-' || ${exp.id}, 'raw-b-' || ${exp.id}, ${exp.id}, ${session.id}, 1, '[]', '{}', '{}')
      ON CONFLICT ("requestId") DO NOTHING`;
    expect(await db().turnFacet.count({ where: { experimentId: exp.id } })).toBe(2);
  });
});
