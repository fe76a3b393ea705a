// Trajectory browser and conversation view over real HTTP: every filter, keyset pagination, full-text search,
// the reassembled conversation, the OPD heat map, relabels with their audit entries, and key scoping.
import { createTRPCClient, httpLink } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../../../server/gateway/trpc/root";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { db } from "../../../server/platform/db/client";
import { seedJudgment } from "../../helpers/judgments";
import { seedSession, seedUserFeedback } from "./seed";

let server: Awaited<ReturnType<typeof startApiServer>>;
let call: ReturnType<typeof api>;
let key: string;
let exp: { id: string; name: string };
let runId: string;
let ids: string[];
let sideId: string;
let sessionId: string;
let externalId: string;

type Row = {
  id: string;
  score: number | null;
  votesValid: number | null;
  votesAgree: number | null;
  disputed: boolean;
  reviewerValue: number | null;
  userValue: number | null;
};
type Page = { items: Row[]; nextCursor: string | null };

const t0 = Date.UTC(2026, 0, 10, 12, 0, 0);

beforeAll(async () => {
  server = await startApiServer();
  key = await makeKey(["admin"]);
  call = api(server.url, { bearer: key });
  exp = await makeExperiment({ method: "combine" });
  const run = await makeRun(exp.id);
  runId = run.id;
  const at = (minutes: number) => new Date(t0 + minutes * 60_000);
  const { session, turns } = await seedSession(
    exp.id,
    [
      {
        user: "Please compute the quarterly revenue",
        reply: "Revenue was 42 million",
        createdAt: at(0),
        runId,
        policyVersion: 1,
      },
      {
        user: "No, I meant the net profit instead",
        reply: "Net profit was 7 million",
        createdAt: at(1),
        runId,
        policyVersion: 2,
        tokenIds: [72, 105, 0xc3, 0xa9, 260],
        logprobs: [-1, -2, -0.5, -0.5, -0.1],
      },
      { user: "thanks! now draft an email to the board", reply: "Dear board, ...", createdAt: at(2), policyVersion: 2 },
      { user: "send it", reply: "Sent.", next: null, createdAt: at(3), policyVersion: 3 },
      { user: "[heartbeat]", reply: "HEARTBEAT_OK", turnType: "SIDE", next: null, createdAt: at(4) },
    ],
    { externalId: `ext-${exp.id}` },
  );
  sessionId = session.id;
  externalId = session.externalId;
  ids = turns.slice(0, 4).map((t) => t.id);
  sideId = turns[4]!.id;
  await seedJudgment(ids[0]!, { score: 1, votes: [1, 1, 1] });
  // Split 2–1, with an accepted hint and teacher log-probs for the OPD heat map.
  await seedJudgment(ids[1]!, {
    score: -1,
    votes: [-1, -1, 1],
    hint: "Answer with the net profit the user asked for.",
    teacherLogprobs: [-0.5, -1, -1.5, 0.5, -0.1],
    dispatch: "BOTH",
  });
  // A tie gives 0 (excluded).
  await seedJudgment(ids[2]!, { score: 0, votes: [1, -1, null] });
  await seedUserFeedback(ids[0]!, -1); // the user disagrees with the judge's +1
  // Another experiment's turn must never leak into this one's lists.
  const other = await makeExperiment();
  await seedSession(other.id, [{ user: "quarterly revenue elsewhere", reply: "other", createdAt: at(1) }]);
});
afterAll(() => server.close());

async function list(query: Record<string, string>): Promise<Page> {
  const res = await call("GET", `/api/v1/turns?${new URLSearchParams({ experimentId: exp.id, ...query })}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as Page;
}
const idsOf = (p: Page) => p.items.map((r) => r.id);

describe("trajectory browser", () => {
  it("lists newest first with the latest judgment, vote agreement, labels and dispute flag", async () => {
    const page = await list({});
    expect(idsOf(page)).toEqual([sideId, ids[3], ids[2], ids[1], ids[0]]);
    const byId = new Map(page.items.map((r) => [r.id, r]));
    expect(byId.get(ids[0]!)).toMatchObject({ score: 1, votesValid: 3, votesAgree: 3, userValue: -1, disputed: true });
    expect(byId.get(ids[1]!)).toMatchObject({ score: -1, votesValid: 3, votesAgree: 2, disputed: true });
    expect(byId.get(ids[2]!)).toMatchObject({ score: 0, votesValid: 2, votesAgree: 0, disputed: true });
    expect(byId.get(ids[3]!)).toMatchObject({ score: null, votesValid: null, disputed: false });
  });

  it("filters by score, agreement, dispute, turn type, status, run, session, policy version and time", async () => {
    expect(idsOf(await list({ score: "1" }))).toEqual([ids[0]]);
    expect(idsOf(await list({ score: "-1" }))).toEqual([ids[1]]);
    expect(idsOf(await list({ score: "unjudged" }))).toEqual([sideId, ids[3]]);
    expect(idsOf(await list({ agreement: "unanimous" }))).toEqual([ids[0]]);
    expect(idsOf(await list({ agreement: "split" }))).toEqual([ids[2], ids[1]]);
    expect(idsOf(await list({ disputed: "false" }))).toEqual([sideId, ids[3]]);
    expect(idsOf(await list({ turnType: "SIDE" }))).toEqual([sideId]);
    expect(idsOf(await list({ status: "FAILED" }))).toEqual([]);
    expect(idsOf(await list({ runId }))).toEqual([ids[1], ids[0]]);
    expect(idsOf(await list({ sessionId: externalId, turnType: "MAIN" }))).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(idsOf(await list({ sessionId, policyVersion: "2" }))).toEqual([ids[2], ids[1]]);
    const from = new Date(t0 + 60_000).toISOString();
    const to = new Date(t0 + 3 * 60_000).toISOString();
    expect(idsOf(await list({ from, to }))).toEqual([ids[2], ids[1]]);
  });

  it("searches messages, responses and next states in full text, within the experiment", async () => {
    expect(idsOf(await list({ q: "quarterly" }))).toEqual([ids[0]]); // the user's message (delta) of turn 0
    expect(idsOf(await list({ q: "profit" }))).toEqual([ids[2], ids[1], ids[0]]); // echoed reply in 2, reply of 1, next state of 0
    expect(idsOf(await list({ q: '"draft an email"' }))).toEqual([ids[2], ids[1]]);
    expect(idsOf(await list({ q: "revenue -profit" }))).toEqual([]); // turn 0 mentions both
    expect(idsOf(await list({ q: "board", score: "0" }))).toEqual([ids[2]]);
  });

  it("says where each search result matched, with the hit marked in an excerpt", async () => {
    const page = (await list({ q: "profit" })) as unknown as {
      items: { id: string; hits: { field: string; snippet: string }[] }[];
    };
    const hitsOf = (id: string) => page.items.find((r) => r.id === id)!.hits;
    // Turn 0's own texts say nothing of profit: its next state (the user's reply) does.
    expect(hitsOf(ids[0]!)).toEqual([{ field: "next state", snippet: "No, I meant the net ⟦profit⟧ instead" }]);
    expect(hitsOf(ids[1]!).map((h) => h.field)).toEqual(["response", "messages"]);
    expect(hitsOf(ids[1]!)[0]!.snippet).toBe("Net ⟦profit⟧ was 7 million");
    expect(hitsOf(ids[1]!)[1]!.snippet).toContain("net ⟦profit⟧ instead");
    // Stemmed like the index: "profits" finds "profit".
    expect((await list({ q: "profits" })).items.length).toBe(3);
    // No query, no hits.
    expect(
      ((await list({})) as unknown as { items: { hits: unknown[] }[] }).items.every((r) => r.hits.length === 0),
    ).toBe(true);
  });

  it("pages with a keyset cursor: every row exactly once, in order", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list({ limit: "2", ...(cursor ? { cursor } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...idsOf(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([sideId, ids[3], ids[2], ids[1], ids[0]]);
    // Search lists page the same way.
    const found: string[] = [];
    cursor = null;
    do {
      const page: Page = await list({ q: "profit", limit: "1", ...(cursor ? { cursor } : {}) });
      found.push(...idsOf(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(found).toEqual([ids[2], ids[1], ids[0]]);
    const bad = await call("GET", `/api/v1/turns?experimentId=${exp.id}&cursor=nonsense`);
    expect(bad.status).toBe(400);
  });

  it("keeps a key bound to another experiment out", async () => {
    const other = await makeExperiment();
    const bound = api(server.url, { bearer: await makeKey(["read"], other.id) });
    expect((await bound("GET", `/api/v1/turns?experimentId=${exp.id}`)).status).toBe(403);
    const own = await bound("GET", "/api/v1/turns");
    expect((own.body as unknown as Page).items).toEqual([]);
    expect((await bound("GET", `/api/v1/turns/${ids[0]}`)).status).toBe(403);
    expect((await bound("GET", `/api/v1/sessions/${sessionId}/conversation`)).status).toBe(403);
  });
});

describe("a session by the client's session id", () => {
  it("GET /sessions/{id} accepts the client's id like /turns?sessionId= does; one used in two experiments needs experimentId", async () => {
    const byOurs = await call("GET", `/api/v1/sessions/${sessionId}`);
    const byClient = await call("GET", `/api/v1/sessions/${encodeURIComponent(externalId)}`);
    expect(byClient.status).toBe(200);
    expect((byClient.body as { id: string }).id).toBe(sessionId);
    expect(byClient.body).toEqual(byOurs.body);

    // In two fresh experiments, so the turn lists the other tests count stay as they are.
    const shared = `shared-${exp.id}`;
    const mine = await makeExperiment();
    const other = await makeExperiment();
    const a = await seedSession(mine.id, [{ user: "hi", reply: "hello" }], { externalId: shared });
    await seedSession(other.id, [{ user: "hi", reply: "hello" }], { externalId: shared });
    const ambiguous = await call("GET", `/api/v1/sessions/${shared}`);
    expect(ambiguous.status).toBe(409);
    expect(JSON.stringify(ambiguous.body)).toContain("experimentId");
    const chosen = await call("GET", `/api/v1/sessions/${shared}?experimentId=${mine.id}`);
    expect((chosen.body as { id: string }).id).toBe(a.session.id);
    // A key bound to one experiment sees its own session under that id, and nothing of the other's.
    const bound = api(server.url, { bearer: await makeKey(["read"], other.id) });
    expect((await bound("GET", `/api/v1/sessions/${shared}`)).status).toBe(200);
    expect((await bound("GET", `/api/v1/sessions/${encodeURIComponent(externalId)}`)).status).toBe(404);
    expect((await call("GET", "/api/v1/sessions/no-such-session")).status).toBe(404);
  });
});

describe("conversation view", () => {
  it("returns the main lane with delta messages, the system blob, and each turn's annotations", async () => {
    const res = await call("GET", `/api/v1/sessions/${sessionId}/conversation?limit=3`);
    expect(res.status).toBe(200);
    const body = res.body as unknown as {
      system: { content: string };
      turns: {
        id: string;
        messagesDelta: { role: string; content: string }[];
        judgment: { score: number; agreement: { valid: number; agree: number }; votes: unknown[] } | null;
        training: { kind: string | null; reward: number; source: string; excluded: boolean };
      }[];
      nextCursor: number | null;
    };
    expect(body.system.content).toBe("You are a helpful assistant.");
    expect(body.turns.map((t) => t.id)).toEqual(ids.slice(0, 3));
    expect(body.turns[1]!.messagesDelta).toEqual([
      { role: "assistant", content: "Revenue was 42 million" },
      { role: "user", content: "No, I meant the net profit instead" },
    ]);
    expect(body.turns[1]!.judgment).toMatchObject({ score: -1, agreement: { valid: 3, agree: 2 } });
    expect(body.turns[1]!.judgment!.votes).toHaveLength(3);
    // User feedback −1 beats the judge's +1; combine with a +/-1 label and no hint → RL.
    expect(body.turns[0]!.training).toMatchObject({ source: "USER", kind: "RL", reward: -1, excluded: false });
    expect(body.nextCursor).toBe(2);
    const rest = await call("GET", `/api/v1/sessions/${sessionId}/conversation?cursor=2`);
    expect((rest.body as unknown as typeof body).turns.map((t) => t.id)).toEqual([ids[3]]);
  });

  it("reassembles a turn's full request and lays the teacher − policy gap over its tokens", async () => {
    const res = await call("GET", `/api/v1/turns/${ids[2]}`);
    expect(res.status).toBe(200);
    const turn = res.body as unknown as { messages: { role: string; content: string }[]; staleness: number | null };
    expect(turn.messages.map((m) => m.content)).toEqual([
      "You are a helpful assistant.",
      "Please compute the quarterly revenue",
      "Revenue was 42 million",
      "No, I meant the net profit instead",
      "Net profit was 7 million",
      "thanks! now draft an email to the board",
    ]);
    expect(turn.staleness).toBeNull(); // no policy version published yet

    const opd = (await call("GET", `/api/v1/turns/${ids[1]}`)).body as unknown as {
      opd: { cells: { text: string; gap: number; tokens: number }[]; meanGap: number; decoded: boolean };
    };
    // Bytes 72 'H', 105 'i', then 'é' (0xC3 0xA9, one cell, mean of its two gaps), then <|end|>.
    expect(opd.opd.decoded).toBe(true);
    expect(opd.opd.cells.map((c) => c.text)).toEqual(["H", "i", "é", "<|end|>"]);
    expect(opd.opd.cells.map((c) => c.gap)).toEqual([0.5, 1, (-1 + 1) / 2, 0]);
    expect(opd.opd.meanGap).toBeCloseTo((0.5 + 1 - 1 + 1 + 0) / 5, 12);
  });

  it("relabels a turn: the label wins for training and the audit log shows the effective label before and after", async () => {
    const reviewer = api(server.url, { bearer: await makeKey(["write"]) });
    const res = await reviewer("POST", "/api/v1/labels", {
      turnId: ids[1],
      value: 1,
      hint: "Quote the exact figure asked for.",
    });
    expect(res.status).toBe(201);
    const turn = (await call("GET", `/api/v1/turns/${ids[1]}`)).body as unknown as {
      training: {
        source: string;
        value: number;
        hint: string;
        needsTeacherRescore: boolean;
        kind: string;
        reward: number;
      };
      audit: { action: string; before: Record<string, unknown>; after: Record<string, unknown> }[];
    };
    // The reviewer's new hint has no teacher log-probs yet: RL with the reviewer's +1 until it is re-scored.
    expect(turn.training).toMatchObject({
      source: "REVIEWER",
      value: 1,
      hint: "Quote the exact figure asked for.",
      needsTeacherRescore: true,
      kind: "RL",
      reward: 1,
    });
    expect(turn.audit[0]).toMatchObject({
      action: "label.create",
      before: {
        source: "JUDGE",
        value: -1,
        kind: "BOTH",
        reward: -1,
        hint: "Answer with the net profit the user asked for.",
      },
      after: { source: "REVIEWER", value: 1, kind: "RL", reward: 1, labelValue: 1, via: "relabel" },
    });
    const audit = await call("GET", `/api/v1/audit/relabels?experimentId=${exp.id}`);
    const entries = (
      audit.body as unknown as {
        items: {
          resourceId: string;
          turnIndex: number;
          experimentId: string;
          experimentName: string;
          after: { hint?: string };
        }[];
      }
    ).items;
    // The audit log names the turn's experiment and index beside its full id, and keeps the reviewer's hint.
    expect(entries.find((a) => a.resourceId === ids[1])).toMatchObject({
      turnIndex: 1,
      experimentId: exp.id,
      experimentName: exp.name,
      after: { hint: "Quote the exact figure asked for." },
    });
    expect(idsOf(await list({ relabeled: "true" }))).toEqual([ids[1]]);
    expect(idsOf(await list({ relabeled: "false", turnType: "MAIN" }))).toEqual([ids[3], ids[2], ids[0]]);
    const stored = await db().label.findMany({ where: { turnId: ids[1], source: "REVIEWER" } });
    expect(stored).toHaveLength(1);
  });
});

describe("trajectory reads over tRPC", () => {
  // tRPC answers through each procedure's output schema (an answer that does not parse is a 500) and strips
  // the keys the schema does not name; REST sends the handler's value as is. Equal answers: the schemas
  // accept these rows (judged, split, relabelled, with a heat map) and drop nothing.
  it("answer within their output schemas, dropping no field REST sends", async () => {
    const t = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/api/trpc`, headers: { authorization: `Bearer ${key}` } })],
    });
    const rest = async (path: string) => {
      const res = await call("GET", path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    expect(await t.sessions.list.query({ experimentId: exp.id })).toEqual(
      await rest(`/api/v1/sessions?experimentId=${exp.id}`),
    );
    expect(await t.sessions.get.query({ id: sessionId })).toEqual(await rest(`/api/v1/sessions/${sessionId}`));
    const conversation = await t.sessions.conversation.query({ sessionId, lane: "ALL" });
    expect(conversation.turns.some((x) => x.opd !== null && x.judgment !== null && x.labels.length > 0)).toBe(true);
    expect(conversation).toEqual(await rest(`/api/v1/sessions/${sessionId}/conversation?lane=ALL`));
    expect(await t.turns.list.query({ experimentId: exp.id, q: "profit" })).toEqual(
      await rest(`/api/v1/turns?experimentId=${exp.id}&q=profit`),
    );
    for (const id of [ids[0]!, ids[1]!, sideId])
      expect(await t.turns.get.query({ id })).toEqual(await rest(`/api/v1/turns/${id}`));
  });
});
