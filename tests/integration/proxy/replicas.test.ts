// Several proxy replicas behind an ordinary round-robin balancer (no stickiness): each replica is its own
// process (bench/proxy/proxyMain.ts, as workers/serve runs it) with its own memory and recording buffer,
// sharing Postgres and Redis. Consecutive requests of a conversation land on different replicas and must
// still form one session — stitched or with headers — with the turns in order, the right next states and
// deltas that reassemble every request exactly; a replica SIGKILLed mid-conversation loses nothing; and the
// per-key rate limit holds across replicas.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { startRoundRobin, type RoundRobin } from "../../../bench/lib/roundRobin";
import { startFakeUpstream, type FakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { makeKey, uniq } from "../../helpers/fixtures";
import { collect, OpenClawAgent, scriptedAnswer, type Body, type Msg } from "../../../bench/lib/openclawShapes";
import { proxiedExperiment, tempDataDir } from "./setup";

const RATE_LIMIT = 100;

interface Replica {
  proc: ChildProcess;
  url: string;
  dataDir: string;
}

async function startReplica(dataDir?: string): Promise<Replica> {
  const dir = dataDir ?? (await tempDataDir());
  // node itself, not the tsx launcher: a SIGKILL must reach the proxy, not a wrapper that leaves it running.
  const proc = spawn(process.execPath, ["--import", "tsx", path.resolve("bench/proxy/proxyMain.ts")], {
    // This test is about the session replicas share through Redis. Past the default waits (250 ms for the order,
    // 50 ms for the stitch lookup) a replica decides from its own memory (the degraded mode, for Redis outages); a
    // loaded CI machine must not put it there.
    env: {
      ...process.env,
      DATA_DIR: dir,
      PROXY_RATE_LIMIT_PER_MIN: String(RATE_LIMIT),
      PROXY_REDIS_TIMEOUT_MS: "10000",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once("line", (l) => resolve((JSON.parse(l) as { url: string }).url));
    proc.once("exit", (code) => reject(new Error(`proxy replica exited with ${code}`)));
  });
  return { proc, url, dataDir: dir };
}

const stop = (r: Replica, signal: NodeJS.Signals = "SIGTERM") =>
  new Promise<void>((res) =>
    r.proc.exitCode !== null || r.proc.signalCode !== null
      ? res()
      : (r.proc.once("exit", () => res()), r.proc.kill(signal)),
  );

let fake: FakeUpstream;
let experiment: Awaited<ReturnType<typeof proxiedExperiment>>;
let replicas: Replica[] = [];
let lb: RoundRobin;

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.respond((body) => scriptedAnswer(body));
  experiment = await proxiedExperiment(fake);
  replicas = await Promise.all([startReplica(), startReplica()]);
  lb = await startRoundRobin(replicas.map((r) => r.url));
}, 120_000);

afterAll(async () => {
  await lb?.close();
  await Promise.all(replicas.map((r) => stop(r)));
  await fake?.close();
});

const clientFor = (key: string) => new OpenAI({ apiKey: key, baseURL: `${lb.url}/v1`, maxRetries: 0 });

/**
 * Waits until Postgres holds `n` turns of the experiment (the replicas' writers batch asynchronously; a restarted
 * replica replays its journal). A hang guard of two minutes, not a speed claim: a loaded machine needed over 30 s.
 */
async function storedTurns(experimentId: string, where: Record<string, unknown>, n: number, linkedN = n - 1) {
  for (let i = 0; i < 1200; i++) {
    const turns = await db().turn.findMany({
      where: { experimentId, ...where },
      orderBy: [{ sessionId: "asc" }, { index: "asc" }],
    });
    const linked = turns.filter((t) => t.nextStateAt !== null).length;
    if (turns.length >= n && linked >= linkedN) return turns;
    await new Promise((r) => setTimeout(r, 100));
  }
  return db().turn.findMany({ where: { experimentId, ...where }, orderBy: [{ sessionId: "asc" }, { index: "asc" }] });
}

describe("two proxy replicas behind a round-robin balancer", () => {
  it("records a stitched OpenClaw conversation, compaction included, as one session: in order, next states right, every request reassembled exactly", async () => {
    const key = await makeKey(["proxy"], experiment.id);
    const client = clientFor(key);
    const send = async (body: Body) => {
      const { data, response } = await client.chat.completions
        .create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming)
        .withResponse();
      return { ...(await collect(data)), turnId: response.headers.get("x-turn-id")! };
    };
    const script = [
      "Plan a trip to Paris.",
      "What's the weather there?",
      "Book a table for two.",
      "And the trains?",
      "What's the weather tomorrow?",
      "Thanks, summarize.",
    ];
    const before = [...lb.counts];
    // A compaction (a side call summarizing the history, then a rewritten history) is attributed through
    // Redis: the side call and the request resumed after it land on other replicas than the turns before.
    const converse = async (a: OpenClawAgent) => {
      for (const text of script) await a.say(text);
      await a.compact();
      await a.say("Continue from the summary, please.");
      await a.say("What's the weather on Sunday?");
    };
    const agent = new OpenClawAgent("2026.9.6", send, { systemChars: 3000, tools: 3 });
    await converse(agent);
    // Both replicas served this conversation.
    expect(lb.counts.map((c, i) => c - before[i]!).every((c) => c >= agent.sent.length / 2 - 1)).toBe(true);

    const ids = agent.sent.map((r) => r.reply.turnId!);
    const withNext = agent.sent.filter((r) => r.nextState !== null).length;
    const turns = await storedTurns(experiment.id, { id: { in: ids } }, ids.length, withNext);
    expect(turns.map((t) => t.id)).toEqual(ids); // one session, indices in the order sent, none twice, none lost
    expect(new Set(turns.map((t) => t.sessionId)).size).toBe(1);
    expect(turns.map((t) => t.index)).toEqual(ids.map((_, i) => i));
    expect(turns.map((t) => t.typeSource)).toContain("summary"); // the resumed request continued this session
    for (const [i, t] of turns.entries()) {
      expect(t.turnType).toBe(agent.sent[i]!.kind === "compaction" ? "SIDE" : "MAIN");
      expect(t.nextState).toEqual(agent.sent[i]!.nextState);
      expect(JSON.stringify(await reassembleMessages(t))).toBe(JSON.stringify(agent.sent[i]!.body.messages));
    }

    // The same conversation through one replica alone (another experiment, same upstream) is stored the same:
    // deltas are against the true predecessor whichever replica recorded it.
    const single = await proxiedExperiment(fake);
    const one = new OpenAI({
      apiKey: await makeKey(["proxy"], single.id),
      baseURL: `${replicas[1]!.url}/v1`,
      maxRetries: 0,
    });
    const alone = new OpenClawAgent(
      "2026.9.6",
      async (body) => {
        const { data, response } = await one.chat.completions
          .create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming)
          .withResponse();
        return { ...(await collect(data)), turnId: response.headers.get("x-turn-id")! };
      },
      { systemChars: 3000, tools: 3 },
    );
    await converse(alone);
    const reference = await storedTurns(single.id, {}, alone.sent.length, withNext);
    // Tool-call ids are the fake upstream's running counter (OpenClaw 2026.9.6 renumbers them in its history).
    const calls = (c: unknown) =>
      Array.isArray(c) ? c.map(({ id: _id, ...rest }: Record<string, unknown>) => rest) : c;
    const stored = (rows: typeof turns) =>
      rows.map((t) => [
        t.index,
        t.turnType,
        t.typeSource,
        t.status,
        t.systemHash,
        t.toolsHash,
        t.messagesOffset,
        t.messagesDelta,
        t.nextState,
        t.nextStateRole,
        t.content,
        calls(t.toolCalls),
      ]);
    expect(stored(turns)).toEqual(stored(reference));
  }, 300_000);

  // A next state can reach Postgres before its turn (that turn still in the killed replica's journal, or its batch
  // committed just before the kill): either order links it (tests/integration/proxy/linkOrder.test.ts).
  it(
    "records a header session as one session; a replica SIGKILLed mid-conversation loses nothing and the other continues it",
    { timeout: 300_000 },
    async () => {
      const key = await makeKey(["proxy"], experiment.id);
      const client = clientFor(key);
      const sid = uniq("replicas");
      const hdr = { "X-Session-Id": sid, "X-Turn-Type": "main" };
      const messages: Msg[] = [];
      const sent: { turnId: string; messages: Msg[]; replica: string }[] = [];
      const say = async (text: string) => {
        messages.push({ role: "user", content: text });
        const { data, response } = await client.chat.completions
          .create(
            { model: "x", messages: [...messages] as OpenAI.Chat.Completions.ChatCompletionMessageParam[] },
            { headers: hdr },
          )
          .withResponse();
        sent.push({ turnId: response.headers.get("x-turn-id")!, messages: [...messages], replica: "" });
        messages.push({ role: "assistant", content: data.choices[0]!.message.content ?? "" });
      };
      for (let i = 0; i < 4; i++) await say(`step ${i}`);
      // SIGKILL one replica right after it answered (its last batch is likely still uncommitted, only journaled).
      const victim = replicas[0]!;
      await stop(victim, "SIGKILL");
      expect(victim.proc.signalCode).toBe("SIGKILL");
      const victimServed = lb.counts[0];
      for (let i = 4; i < 8; i++) await say(`step ${i}`); // the balancer skips the dead replica: the other continues
      expect(lb.counts[0]).toBe(victimServed);
      // A supervisor restarts the killed replica on its disk: the journal replays what it had not committed.
      replicas[0] = await startReplica(victim.dataDir);
      lb.setBackends(replicas.map((r) => r.url));
      for (let i = 8; i < 10; i++) await say(`step ${i}`);

      const ids = sent.map((s) => s.turnId);
      const turns = await storedTurns(experiment.id, { id: { in: ids } }, ids.length);
      expect(turns.map((t) => t.id)).toEqual(ids);
      expect(new Set(turns.map((t) => t.sessionId)).size).toBe(1);
      expect(turns.map((t) => t.index)).toEqual(ids.map((_, i) => i));
      for (const [i, t] of turns.entries()) {
        expect(t.nextState).toEqual(i + 1 < sent.length ? { role: "user", content: `step ${i + 1}` } : null);
        expect(await reassembleMessages(t)).toEqual(sent[i]!.messages);
      }
      const session = await db().agentSession.findUniqueOrThrow({ where: { id: turns[0]!.sessionId } });
      expect(session.turnCount).toBe(ids.length);
    },
  );

  it("takes feedback on another replica right after the answer: by session (the latest turn, not the one before) and by turn id", async () => {
    const key = await makeKey(["proxy"], experiment.id);
    const client = clientFor(key);
    const sid = uniq("fb-replicas");
    const hdr = { "X-Session-Id": sid, "X-Turn-Type": "main" };
    const ids: string[] = [];
    const messages: Msg[] = [];
    for (let i = 0; i < 3; i++) {
      messages.push({ role: "user", content: `question ${i}` });
      const { data, response } = await client.chat.completions
        .create(
          { model: "x", messages: [...messages] as OpenAI.Chat.Completions.ChatCompletionMessageParam[] },
          { headers: hdr },
        )
        .withResponse();
      ids.push(response.headers.get("x-turn-id")!);
      messages.push({ role: "assistant", content: data.choices[0]!.message.content ?? "" });
    }
    // Round robin: each of these lands on the replica that did not answer the request before it.
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const bySession = await fetch(`${lb.url}/v1/feedback`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ session_id: sid, value: -1 }),
    });
    expect(bySession.status).toBe(200);
    expect(((await bySession.json()) as { turn_id: string }).turn_id).toBe(ids[2]);
    const byTurn = await fetch(`${lb.url}/v1/feedback`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ turn_id: ids[2], value: 1, comment: "fine after all" }),
    });
    expect(byTurn.status).toBe(200);
    let labels: { value: number }[] = [];
    for (let i = 0; i < 300 && labels.length < 2; i++) {
      labels = await db().label.findMany({ where: { turnId: ids[2] }, orderBy: { createdAt: "asc" } });
      if (labels.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(labels.map((l) => l.value)).toEqual([-1, 1]);
  }, 300_000);

  it(`holds the per-key rate limit across replicas (${RATE_LIMIT}/min, exact below 200/min)`, async () => {
    const key = await makeKey(["proxy"], experiment.id);
    // Fixed one-minute windows: start in a fresh one so the burst stays in one window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const window = Math.floor(Date.now() / 60_000);
    const statuses = await Promise.all(
      Array.from({ length: RATE_LIMIT + 30 }, (_, i) =>
        fetch(`${lb.url}/v1/chat/completions`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "x-session-id": `rl-${i % 5}`,
          },
          body: JSON.stringify({ model: "x", messages: [{ role: "user", content: `hi ${i}` }] }),
        }).then(async (r) => (await r.text(), r.status)),
      ),
    );
    expect(Math.floor(Date.now() / 60_000)).toBe(window); // precondition: one window
    const count = (code: number) => statuses.filter((s) => s === code).length;
    expect([count(200), count(429)]).toEqual([RATE_LIMIT, 30]);
  }, 300_000);
});
