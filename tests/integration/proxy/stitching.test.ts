// Stock OpenClaw, both measured versions, through the proxy with no session headers: conversations are
// stitched into one session each, turn types inferred (tool follow-ups main, the compaction call side),
// next states are what the user actually said (not the injected context block), and every turn's full
// request comes back exactly from compact storage.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { stableStringify } from "../../../server/proxy/normalize";
import { harness, post, type Harness } from "./setup";
import { makeKey } from "../../helpers/fixtures";
import { collect, OpenClawAgent, scriptedAnswer, type Body } from "../../../bench/lib/openclawShapes";

let h: Harness;
beforeAll(async () => {
  h = await harness();
  h.fake.respond((body) => scriptedAnswer(body));
});
afterAll(() => h.close());

const send = async (body: Body) => {
  const { data, response } = await h.client.chat.completions
    .create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming)
    .withResponse();
  return { ...(await collect(data)), turnId: response.headers.get("x-turn-id")! };
};

async function turnOf(turnId: string | undefined) {
  return db().turn.findUniqueOrThrow({ where: { id: turnId! } });
}

describe("header-less OpenClaw conversations", () => {
  it("stitches both versions, infers types, links next states and reassembles every request exactly", async () => {
    const old = new OpenClawAgent("2026.3.1", send);
    const neu = new OpenClawAgent("2026.9.6", send);
    // Interleaved, on the same API key, as two users of one deployment would be.
    await old.say("Plan a trip to Paris for me");
    await neu.say("Remind me to call the dentist");
    await old.say("What's the weather there this weekend?");
    await neu.say("What's the weather at home?");
    await old.say("Book the bistro near the Louvre");
    await neu.say("Thanks, that's all");
    await old.compact();
    await old.say("And the train tickets?");
    await neu.say("One more thing: water the plants");
    await old.say("Perfect, thanks");

    await h.proxy.writer.drain();
    const sessions = await db().agentSession.findMany({ where: { experimentId: h.experiment.id } });
    expect(sessions).toHaveLength(2);
    expect(sessions.every((s) => s.idSource === "stitched")).toBe(true);

    for (const agent of [old, neu]) {
      const mine = await Promise.all(agent.sent.map(async (req) => ({ req, turn: await turnOf(req.reply.turnId) })));
      expect(new Set(mine.map((m) => m.turn.sessionId)).size).toBe(1);
      expect(mine.map((m) => m.turn.turnType)).toEqual(
        agent.sent.map((r) => (r.kind === "compaction" ? "SIDE" : "MAIN")),
      );

      const sources = mine.map((m) => m.turn.typeSource);
      expect(sources[0]).toBe("default"); // the first request continues nothing
      for (const [i, m] of mine.entries()) {
        if (i === 0) continue;
        if (m.req.kind === "compaction") expect(sources[i]).toBe("pattern");
        else if (mine[i - 1]!.req.kind === "compaction")
          expect(sources[i]).toBe("summary"); // resumes after compaction
        else expect(sources[i]).toBe("stitched");
      }

      for (const { req, turn } of mine) {
        // Next state: the user's message (never the injected block) or the tool result.
        expect(turn.nextState).toEqual(req.kind === "main" ? req.nextState : null);
        if (req.reply.toolCalls.length) expect(turn.nextStateRole).toBe("tool");

        // Byte-exact reassembly of the messages and tools (key order included: stored as json, not jsonb),
        // and of the whole request up to the order of its top-level parameters.
        const messages = await reassembleMessages(turn);
        const tools = turn.toolsHash
          ? (await db().blob.findUniqueOrThrow({ where: { hash: turn.toolsHash } })).content
          : undefined;
        expect(JSON.stringify(messages)).toBe(JSON.stringify((req.body as unknown as { messages: unknown }).messages));
        if (tools)
          expect(JSON.stringify(tools)).toBe(JSON.stringify((req.body as unknown as { tools: unknown }).tools));
        const rebuilt = { ...(turn.params as object), messages, ...(tools ? { tools } : {}) };
        expect(stableStringify(rebuilt)).toBe(stableStringify(req.body));
        // …which is also exactly what the policy was sent.
        expect(h.fake.requests.some((r) => stableStringify(r.body.messages) === stableStringify(messages))).toBe(true);
      }

      // Compact storage: the system prompt and tools are stored once; continuing turns store only their additions.
      const main = mine.filter((m) => m.req.kind === "main");
      expect(new Set(main.map((m) => m.turn.systemHash)).size).toBe(1);
      for (const [i, m] of main.entries()) {
        if (i === 0 || m.turn.typeSource === "summary") expect(m.turn.messagesOffset).toBe(0);
        else expect((m.turn.messagesDelta as unknown[]).length).toBeLessThanOrEqual(5);
      }
    }

    // The judge sees a real user message as the next state of the 2026.9.6 turns, never the context block.
    const withNext = (await db().turn.findMany({ where: { experimentId: h.experiment.id } })).filter(
      (t) => t.nextState,
    );
    for (const t of withNext) expect(JSON.stringify(t.nextState)).not.toContain("BEGIN_OPENCLAW_INTERNAL_CONTEXT");
  });

  it("starts a new session for an unrelated conversation and for a retry of an older turn (a fork)", async () => {
    const a = new OpenClawAgent("2026.3.1", send, { systemChars: 2000, tools: 2 });
    await a.say("first question");
    await a.say("second question");
    const forked = new OpenClawAgent("2026.3.1", send, { systemChars: 2000, tools: 2 });
    forked.history = a.history.slice(0, 2); // the user edits their second message instead
    await forked.say("second question, rephrased");
    await h.proxy.writer.drain();
    const ids = await Promise.all(
      [a.sent[0]!, a.sent[1]!, forked.sent[0]!].map(async (req) => (await turnOf(req.reply.turnId)).sessionId),
    );
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[1]);
  });

  it("never stitches two API keys' conversations into one, even when they open the same way", async () => {
    const keys = [await makeKey(["proxy"], h.experiment.id), await makeKey(["proxy"], h.experiment.id)];
    const opening = [
      { role: "system", content: "You are a shared assistant." },
      { role: "user", content: `hi ${Date.now()}` },
    ];
    const chat = async (key: string, messages: unknown[]) => {
      const res = await post(
        `${h.proxy.url}/v1/chat/completions`,
        { model: "x", messages },
        { authorization: `Bearer ${key}` },
      );
      expect(res.status).toBe(200);
      const body = res.json as { choices: { message: { content: string } }[] };
      return { turnId: res.headers.get("x-turn-id")!, reply: body.choices[0]!.message.content };
    };
    const firsts = [await chat(keys[0]!, opening), await chat(keys[1]!, opening)];
    expect(firsts[0]!.reply).toBe(firsts[1]!.reply); // the same greedy reply: the two prefixes are identical
    const follow = async (i: number) =>
      chat(keys[i]!, [
        ...opening,
        { role: "assistant", content: firsts[i]!.reply },
        { role: "user", content: `mine is ${i}` },
      ]);
    const seconds = [await follow(0), await follow(1)];
    await h.proxy.writer.drain();
    for (const i of [0, 1]) {
      const first = await turnOf(firsts[i]!.turnId);
      const second = await turnOf(seconds[i]!.turnId);
      expect(second.sessionId).toBe(first.sessionId);
      expect(first.nextState).toEqual({ role: "user", content: `mine is ${i}` });
    }
    expect((await turnOf(firsts[0]!.turnId)).sessionId).not.toBe((await turnOf(firsts[1]!.turnId)).sessionId);
  });
});
