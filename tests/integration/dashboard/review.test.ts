// Review queue over real HTTP with two (and three) signed-in reviewers: locks that exclude each other
// under concurrency and expire, disputed first, skip-seen, N reviewers per item with agreement, assignees,
// and verdicts that land in the audit log and in what training reads.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { api, login, makeExperiment, makeUser } from "../../helpers/fixtures";
import { db } from "../../../server/platform/db/client";
import { effectiveLabelsForTurns } from "../../../server/labels/effective";
import { seedJudgment } from "../../helpers/judgments";
import { seedSession, seedUserFeedback } from "./seed";

let server: Awaited<ReturnType<typeof startApiServer>>;
type Call = ReturnType<typeof api>;
let admin: Call;

interface Item {
  id: string;
  turnId: string;
  disputed: boolean;
  disputeReason: string | null;
  status: string;
  submittedCount: number;
  lockExpiresAt: string | null;
  submissions: { reviewer: string; value: number }[];
  agreement: { reviewers: number; agreeing: number; ratio: number } | null;
}

async function reviewerSession(
  role: "REVIEWER" | "ADMIN" = "REVIEWER",
): Promise<{ call: Call; email: string; id: string }> {
  const u = await makeUser(role);
  return { call: api(server.url, { cookie: await login(server.url, u.email, u.password) }), email: u.email, id: u.id };
}

/** An experiment with `n` judged main turns; turns listed in `disputed` get split votes. */
async function judgedTurns(n: number, disputed: number[] = []) {
  const exp = await makeExperiment({ method: "grpo" });
  const { turns } = await seedSession(
    exp.id,
    Array.from({ length: n }, (_, i) => ({
      user: `question ${i}`,
      reply: `answer ${i}`,
      createdAt: new Date(Date.UTC(2026, 1, 1, 0, i)),
    })),
  );
  for (const [i, t] of turns.entries())
    await seedJudgment(t.id, { score: 1, votes: disputed.includes(i) ? [1, 1, -1] : [1, 1, 1] });
  return { exp, turnIds: turns.map((t) => t.id) };
}

async function createQueue(experimentId: string, extra: Record<string, unknown> = {}) {
  const res = await admin("POST", "/api/v1/review/queues", { experimentId, name: `queue ${Math.random()}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as unknown as { id: string };
}

const next = async (c: Call, queueId: string) => {
  const res = await c("POST", `/api/v1/review/queues/${queueId}/next`, {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as Item | null;
};

beforeAll(async () => {
  server = await startApiServer();
  admin = (await reviewerSession("ADMIN")).call;
});
afterAll(() => server.close());

describe("review queue locking", () => {
  it("two reviewers fetching concurrently never hold the same item, and together drain the queue exactly once", async () => {
    const { exp, turnIds } = await judgedTurns(12);
    const q = await createQueue(exp.id);
    const [a, b] = [await reviewerSession(), await reviewerSession()];
    const claimed = new Map<string, string>();
    // Rounds of simultaneous fetch-next; each reviewer submits what they got before the next round.
    for (let round = 0; round < 10; round++) {
      const got = await Promise.all([next(a.call, q.id), next(b.call, q.id)]);
      if (got[0] && got[1]) expect(got[0].id).not.toBe(got[1].id);
      for (const [i, item] of got.entries()) {
        if (!item) continue;
        expect(claimed.has(item.turnId)).toBe(false);
        claimed.set(item.turnId, i === 0 ? "a" : "b");
        const who = i === 0 ? a : b;
        const res = await who.call("POST", `/api/v1/review/items/${item.id}/submit`, { verdict: "FIX", value: -1 });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      if (!got[0] && !got[1]) break;
    }
    expect([...claimed.keys()].sort()).toEqual([...turnIds].sort());
    expect(await next(a.call, q.id)).toBeNull();
    expect(await next(b.call, q.id)).toBeNull();
    const labels = await db().label.count({ where: { turnId: { in: turnIds }, source: "REVIEWER" } });
    expect(labels).toBe(12);
  });

  it("a burst of parallel fetches from two reviewers hands out distinct items, one per reviewer", async () => {
    const { exp } = await judgedTurns(6);
    const q = await createQueue(exp.id);
    const [a, b] = [await reviewerSession(), await reviewerSession()];
    const got = await Promise.all([...Array(5)].flatMap(() => [next(a.call, q.id), next(b.call, q.id)]));
    const byA = new Set(got.filter((_, i) => i % 2 === 0).map((x) => x!.id));
    const byB = new Set(got.filter((_, i) => i % 2 === 1).map((x) => x!.id));
    // Each reviewer keeps getting the one item they hold; the two items differ.
    expect(byA.size).toBe(1);
    expect(byB.size).toBe(1);
    expect([...byA][0]).not.toBe([...byB][0]);
  });

  it("a locked item cannot be submitted by another reviewer until the lock expires; then it moves on", async () => {
    const { exp } = await judgedTurns(1);
    const q = await createQueue(exp.id, { lockTtlS: 600 });
    const [a, b] = [await reviewerSession(), await reviewerSession()];
    const item = (await next(a.call, q.id))!;
    expect(new Date(item.lockExpiresAt!).getTime()).toBeGreaterThan(Date.now() + 590_000 - 60_000);
    expect(await next(b.call, q.id)).toBeNull();
    const stolen = await b.call("POST", `/api/v1/review/items/${item.id}/submit`, { verdict: "ACCEPT" });
    expect(stolen.status).toBe(409);
    // Age A's lock past its expiry instead of sleeping through it.
    await db().reviewLock.updateMany({ where: { itemId: item.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const taken = await next(b.call, q.id);
    expect(taken?.id).toBe(item.id);
    expect((await b.call("POST", `/api/v1/review/items/${item.id}/submit`, { verdict: "ACCEPT" })).status).toBe(200);
    const late = await a.call("POST", `/api/v1/review/items/${item.id}/submit`, { verdict: "REJECT" });
    expect(late.status).toBe(409);
  });

  it("serves disputed turns first (split votes, then user feedback against the judge), and never re-offers a skipped item", async () => {
    const { exp, turnIds } = await judgedTurns(4, [2]);
    await seedUserFeedback(turnIds[0]!, -1);
    const q = await createQueue(exp.id);
    const a = await reviewerSession();
    const first = (await next(a.call, q.id))!;
    const second = await (async () => {
      expect((await a.call("POST", `/api/v1/review/items/${first.id}/skip`, {})).status).toBe(200);
      return (await next(a.call, q.id))!;
    })();
    expect([first.turnId, second.turnId].sort()).toEqual([turnIds[0], turnIds[2]].sort());
    expect(first.disputed && second.disputed).toBe(true);
    expect([first.disputeReason, second.disputeReason].sort()).toEqual(["split_votes", "user_disagrees"]);
    await a.call("POST", `/api/v1/review/items/${second.id}/skip`, {});
    const rest = [(await next(a.call, q.id))!];
    await a.call("POST", `/api/v1/review/items/${rest[0]!.id}/skip`, {});
    rest.push((await next(a.call, q.id))!);
    await a.call("POST", `/api/v1/review/items/${rest[1]!.id}/skip`, {});
    expect(rest.every((r) => !r.disputed)).toBe(true);
    expect(await next(a.call, q.id)).toBeNull(); // everything seen
    const b = await reviewerSession();
    expect((await next(b.call, q.id))?.id).toBe(first.id); // skipping is per reviewer
  });

  it("N reviewers per item: both may hold it, a third may not; agreement is revealed after you submit", async () => {
    const { exp } = await judgedTurns(2);
    const q = await createQueue(exp.id, { reviewersPerItem: 2 });
    const [a, b, c] = [await reviewerSession(), await reviewerSession(), await reviewerSession()];
    const ia = (await next(a.call, q.id))!;
    const ib = (await next(b.call, q.id))!;
    expect(ib.id).toBe(ia.id);
    const ic = (await next(c.call, q.id))!;
    expect(ic.id).not.toBe(ia.id);
    const ra = await a.call("POST", `/api/v1/review/items/${ia.id}/submit`, { verdict: "FIX", value: -1 });
    const afterA = (ra.body as unknown as { item: Item }).item;
    expect(afterA).toMatchObject({ status: "PENDING", submittedCount: 1, agreement: { reviewers: 1, agreeing: 1 } });
    const rb = await b.call("POST", `/api/v1/review/items/${ia.id}/submit`, { verdict: "ACCEPT" });
    const afterB = (rb.body as unknown as { item: Item }).item;
    // A said −1; B accepted the current label, which by then was A's −1: full agreement, item done.
    expect(afterB).toMatchObject({
      status: "DONE",
      submittedCount: 2,
      agreement: { reviewers: 2, agreeing: 2, ratio: 1 },
    });
    expect(afterB.submissions.map((s) => s.value)).toEqual([-1, -1]);
  });

  it("only assignees may work an assigned queue", async () => {
    const { exp } = await judgedTurns(1);
    const [a, b] = [await reviewerSession(), await reviewerSession()];
    const q = await createQueue(exp.id, { assignees: [a.email] });
    expect((await a.call("POST", `/api/v1/review/queues/${q.id}/next`, {})).status).toBe(200);
    expect((await b.call("POST", `/api/v1/review/queues/${q.id}/next`, {})).status).toBe(403);
    const bad = await admin("POST", "/api/v1/review/queues", {
      experimentId: exp.id,
      name: "x",
      assignees: ["nobody@example.test"],
    });
    expect(bad.status).toBe(400);
  });
});

describe("queue counts", () => {
  it("count the turns the filter matches before any fetch moved them in, and stay the same once they are items", async () => {
    const { exp } = await judgedTurns(5, [1, 3]);
    const q = await createQueue(exp.id);
    const counts = async () => {
      const res = await admin("GET", `/api/v1/review/queues/${q.id}`);
      expect(res.status).toBe(200);
      return res.body as unknown as { pending: number; disputed: number; locked: number; done: number };
    };
    expect(await db().reviewItem.count({ where: { queueId: q.id } })).toBe(0);
    expect(await counts()).toMatchObject({ pending: 5, disputed: 2, locked: 0, done: 0 });
    const a = await reviewerSession();
    const item = (await next(a.call, q.id))!;
    expect(await db().reviewItem.count({ where: { queueId: q.id } })).toBe(5);
    expect(await counts()).toMatchObject({ pending: 5, disputed: 2, locked: 1, done: 0 });
    expect((await a.call("POST", `/api/v1/review/items/${item.id}/submit`, { verdict: "ACCEPT" })).status).toBe(200);
    expect(await counts()).toMatchObject({ pending: 4, done: 1 });
    const list = await admin("GET", `/api/v1/review/queues?experimentId=${exp.id}`);
    expect((list.body as unknown as { id: string; pending: number }[]).find((x) => x.id === q.id)?.pending).toBe(4);
  });
});

describe("verdicts", () => {
  it("accept, fix & accept, and reject become audited reviewer labels that training reads", async () => {
    const { exp, turnIds } = await judgedTurns(3);
    const q = await createQueue(exp.id);
    const a = await reviewerSession();
    const verdicts: Record<string, { verdict: string; value?: number; hint?: string }> = {};
    for (const v of [
      { verdict: "ACCEPT" },
      { verdict: "FIX", value: -1, hint: "Ask which report the user means." },
      { verdict: "REJECT" },
    ]) {
      const item = (await next(a.call, q.id))!;
      verdicts[item.turnId] = v;
      const res = await a.call("POST", `/api/v1/review/items/${item.id}/submit`, v);
      expect(res.status).toBe(200);
    }
    const m = await effectiveLabelsForTurns(turnIds);
    for (const id of turnIds) {
      const v = verdicts[id]!;
      const t = m.get(id)!;
      expect(t.source).toBe("REVIEWER");
      if (v.verdict === "ACCEPT") expect(t).toMatchObject({ value: 1, kind: "RL", reward: 1, excluded: false });
      if (v.verdict === "FIX")
        expect(t).toMatchObject({ value: -1, reward: -1, hint: "Ask which report the user means.", excluded: false });
      if (v.verdict === "REJECT") expect(t).toMatchObject({ excluded: true, excludeReason: "reviewer_excluded" });
    }
    const audit = await db().auditLog.findMany({
      where: { resourceType: "turn", resourceId: { in: turnIds }, action: "label.create" },
    });
    expect(audit).toHaveLength(3);
    const fixed = audit.find((e) => verdicts[e.resourceId!]!.verdict === "FIX")!;
    expect(fixed.before).toMatchObject({ source: "JUDGE", value: 1, reward: 1 });
    expect(fixed.after).toMatchObject({
      source: "REVIEWER",
      value: -1,
      reward: -1,
      via: "review",
      verdict: "FIX",
      queueId: q.id,
    });
    const actor = await db().user.findUnique({ where: { id: fixed.actorUserId! } });
    expect(actor?.role).toBe("REVIEWER");
  });

  it("viewers cannot review", async () => {
    const { exp } = await judgedTurns(1);
    const q = await createQueue(exp.id);
    const v = await reviewerSession();
    await db().user.update({ where: { id: v.id }, data: { role: "VIEWER" } });
    expect((await v.call("POST", `/api/v1/review/queues/${q.id}/next`, {})).status).toBe(403);
  });
});
