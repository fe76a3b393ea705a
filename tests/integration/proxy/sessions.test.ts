// Session semantics as OpenClaw-RL defines them (headers, body fallbacks), next-state linking, side turns,
// session end, the judge queue, and explicit feedback.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { queue } from "../../../server/platform/bus/queues";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { uniq } from "../../helpers/fixtures";
import { startProxy } from "../../../server/proxy/server";
import { harness, post, tempDataDir, type Harness } from "./setup";

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

async function turnsOf(externalId: string) {
  await h.proxy.writer.drain();
  const s = await db().agentSession.findUniqueOrThrow({
    where: { experimentId_externalId: { experimentId: h.experiment.id, externalId } },
  });
  const turns = await db().turn.findMany({ where: { sessionId: s.id }, orderBy: { index: "asc" } });
  return { session: s, turns };
}

async function ask(messages: Msg[], headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  const { data, response } = await h.client.chat.completions
    .create({ model: "x", messages, ...extra } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, {
      headers,
    })
    .withResponse();
  return {
    message: data.choices[0]!.message,
    turnId: response.headers.get("x-turn-id")!,
    type: response.headers.get("x-turn-type"),
  };
}

describe("sessions, next states and side turns", () => {
  it("links each main turn to the next main request's last message, skips side turns, and closes on X-Session-Done", async () => {
    const sid = uniq("sess");
    const main = { "X-Session-Id": sid, "X-Turn-Type": "main" };
    const sys: Msg = { role: "system", content: "You are terse." };
    const u1: Msg = { role: "user", content: "Book a table for two." };
    h.fake.enqueue({ toolCalls: [{ name: "book", arguments: '{"people":2}' }] });
    const t1 = await ask([sys, u1], main);
    const history: Msg[] = [sys, u1, { role: "assistant", content: null, tool_calls: t1.message.tool_calls }];

    // A side call in the middle (a heartbeat with its own prompt): stored, never linked.
    const side = await ask(
      [
        { role: "system", content: "heartbeat" },
        { role: "user", content: "ping" },
      ],
      { "X-Session-Id": sid, "X-Turn-Type": "side" },
    );
    expect(side.type).toBe("side");

    const tool: Msg = { role: "tool", tool_call_id: t1.message.tool_calls![0]!.id, content: '{"ok":true}' };
    const t2 = await ask([...history, tool], main);
    history.push(tool, { role: "assistant", content: t2.message.content });
    const u3: Msg = { role: "user", content: "No, I meant three people." };
    const t3 = await ask([...history, u3], main);
    // The body-field fallbacks work like the headers (and are not forwarded).
    history.push(u3, { role: "assistant", content: t3.message.content });
    const u4: Msg = { role: "user", content: "Thanks!" };
    const t4 = await ask([...history, u4], {}, { session_id: sid, turn_type: "main", session_done: true });
    expect(h.fake.requests.at(-1)!.body).not.toHaveProperty("session_done");
    expect(h.fake.requests.at(-1)!.body).not.toHaveProperty("session_id");

    const { session, turns } = await turnsOf(sid);
    expect(turns.map((t) => t.id)).toEqual([t1.turnId, side.turnId, t2.turnId, t3.turnId, t4.turnId]);
    expect(turns.map((t) => t.turnType)).toEqual(["MAIN", "SIDE", "MAIN", "MAIN", "MAIN"]);
    expect(turns.map((t) => t.typeSource)).toEqual(["header", "header", "header", "header", "body"]);
    const byId = new Map(turns.map((t) => [t.id, t]));
    expect(byId.get(t1.turnId)).toMatchObject({ nextState: tool, nextStateRole: "tool" });
    expect(byId.get(t2.turnId)).toMatchObject({ nextState: u3, nextStateRole: "user" });
    expect(byId.get(t3.turnId)).toMatchObject({ nextState: u4, nextStateRole: "user" });
    expect(byId.get(t4.turnId)!.nextState).toBeNull();
    expect(byId.get(side.turnId)!.nextState).toBeNull();
    expect(session).toMatchObject({ done: true, turnCount: 5, idSource: "header" });

    // Judge queue: every linked main turn, plus the session's last one; never the side turn.
    const q = queue("judgeTurn");
    for (const id of [t1.turnId, t2.turnId, t3.turnId, t4.turnId])
      expect((await q.getJob(id))?.data).toEqual({ turnId: id, experimentId: h.experiment.id });
    expect(await q.getJob(side.turnId)).toBeUndefined();

    // Compact storage reassembles each turn's request exactly, main and side lanes alike.
    const sent = h.fake.requests.slice(-5).map((r) => r.body.messages);
    for (const [i, t] of turns.entries()) expect(await reassembleMessages(t)).toEqual(sent[i]);
    // The last main turn stores only what it added to the previous main turn's body [u1, a1, tool, a2, u3].
    expect(turns[4]!.messagesOffset).toBe(5);
    expect(turns[4]!.messagesDelta).toEqual([{ role: "assistant", content: t3.message.content }, u4]);
  });

  it("defaults to side when the experiment says so, as the reference does, and treats any non-main X-Turn-Type as side", async () => {
    const h2 = await harness({ serving: { defaultTurnType: "side" } });
    try {
      const a = await h2.client.chat.completions
        .create({ model: "x", messages: [{ role: "user", content: "hello" }] }, { headers: { "X-Session-Id": "s" } })
        .withResponse();
      const b = await h2.client.chat.completions
        .create(
          { model: "x", messages: [{ role: "user", content: "hello" }] },
          { headers: { "X-Session-Id": "s", "X-Turn-Type": "heartbeat" } },
        )
        .withResponse();
      await h2.proxy.writer.drain();
      const ta = await db().turn.findUniqueOrThrow({ where: { id: a.response.headers.get("x-turn-id")! } });
      const tb = await db().turn.findUniqueOrThrow({ where: { id: b.response.headers.get("x-turn-id")! } });
      expect([ta.turnType, ta.typeSource]).toEqual(["SIDE", "default"]);
      expect([tb.turnType, tb.typeSource]).toEqual(["SIDE", "header"]);
    } finally {
      await h2.close();
    }
  });

  it("reopens a finished session as a new episode without linking across the end", async () => {
    const sid = uniq("episode");
    const hdr = { "X-Session-Id": sid, "X-Turn-Type": "main" };
    await ask([{ role: "user", content: "first" }], { ...hdr, "X-Session-Done": "yes" });
    const again = await ask([{ role: "user", content: "second episode" }], hdr);
    const { session, turns } = await turnsOf(sid);
    expect(turns).toHaveLength(2);
    expect(turns[0]!.nextState).toBeNull();
    expect(session.done).toBe(false);
    expect(turns[1]!.id).toBe(again.turnId);
  });

  it("links a session's next state after a proxy restart (the writer finds the previous turn)", async () => {
    const sid = uniq("restart");
    const hdr = { "X-Session-Id": sid, "X-Turn-Type": "main" };
    const u1: Msg = { role: "user", content: "before restart" };
    const first = await ask([u1], hdr);
    await h.proxy.writer.drain();
    // A second proxy process: same database and key, empty memory.
    const other = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      metricsIntervalMs: 3_600_000,
    });
    try {
      const client = new OpenAI({ apiKey: h.key, baseURL: `${other.url}/v1`, maxRetries: 0 });
      const u2: Msg = { role: "user", content: "after restart" };
      await client.chat.completions.create(
        { model: "x", messages: [u1, { role: "assistant", content: first.message.content }, u2] },
        { headers: hdr },
      );
      await other.writer.drain();
      const { turns } = await turnsOf(sid);
      expect(turns).toHaveLength(2);
      expect(turns[0]).toMatchObject({ id: first.turnId, nextState: u2 });
      // The session's order is in Redis, not in the first process: the new one stores only what the turn
      // added (offset 1 = u1 kept), exactly as the first process would have.
      expect(turns[1]).toMatchObject({ index: 1, messagesOffset: 1 });
      expect(await reassembleMessages(turns[1]!)).toEqual([
        u1,
        { role: "assistant", content: first.message.content },
        u2,
      ]);
    } finally {
      await other.close();
    }
  });
});

describe("POST /v1/feedback", () => {
  it("stores +1/-1 with a comment as a USER label on the session's latest main turn or a named turn", async () => {
    const sid = uniq("fb");
    const a = await ask([{ role: "user", content: "one" }], { "X-Session-Id": sid, "X-Turn-Type": "main" });
    const b = await ask(
      [
        { role: "user", content: "one" },
        { role: "assistant", content: a.message.content },
        { role: "user", content: "two" },
      ],
      { "X-Session-Id": sid, "X-Turn-Type": "main" },
    );
    const auth = { authorization: `Bearer ${h.key}` };
    const bySession = await post(
      `${h.proxy.url}/v1/feedback`,
      { session_id: sid, value: -1, comment: "wrong table size" },
      auth,
    );
    expect(bySession.status).toBe(200);
    expect(bySession.json).toMatchObject({ object: "feedback", turn_id: b.turnId, value: -1 });
    const byTurn = await post(`${h.proxy.url}/v1/feedback`, { turn_id: a.turnId, value: 1 }, auth);
    expect(byTurn.status).toBe(200);
    await h.proxy.writer.drain();
    const labels = await db().label.findMany({
      where: { turnId: { in: [a.turnId, b.turnId] } },
      orderBy: { createdAt: "asc" },
    });
    expect(labels.map((l) => [l.turnId, l.source, l.value, l.comment])).toEqual([
      [b.turnId, "USER", -1, "wrong table size"],
      [a.turnId, "USER", 1, null],
    ]);
    expect(labels[0]!.apiKeyId).not.toBeNull();

    expect((await post(`${h.proxy.url}/v1/feedback`, { session_id: "no-such-session", value: 1 }, auth)).status).toBe(
      404,
    );
    expect((await post(`${h.proxy.url}/v1/feedback`, { turn_id: "turn_nope", value: 1 }, auth)).status).toBe(404);
    const bad = await post(`${h.proxy.url}/v1/feedback`, { session_id: sid, value: 5 }, auth);
    expect(bad.status).toBe(400);
    expect(bad.json.error!.param).toBe("value");
    expect((await post(`${h.proxy.url}/v1/feedback`, { session_id: sid, value: 1 })).status).toBe(401);
  });
});
