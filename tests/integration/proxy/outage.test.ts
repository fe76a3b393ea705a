// Postgres outage during traffic: the proxy keeps answering, buffers turns on disk (surviving a restart
// of the proxy itself), and once Postgres is back every turn is recorded exactly once, with next states
// and compact storage intact. Redis outage: turns are stored and the sweeper queues them for the judge later.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { env } from "../../../server/platform/env";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import type { JudgeItem } from "../../../server/proxy/recorder/sql";
import { startFakeUpstream, type FakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { makeKey, uniq } from "../../helpers/fixtures";
import { proxiedExperiment, post, tempDataDir } from "./setup";
import { startForwarder } from "../../../bench/lib/tcpForwarder";

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());

describe("Postgres outage", () => {
  it("serves through it, buffers durably (across a proxy restart), and records every turn exactly once afterwards", async () => {
    const pgUrl = new URL(env().DATABASE_URL);
    const fwd = await startForwarder({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    const writerUrl = new URL(env().DATABASE_URL);
    writerUrl.hostname = "127.0.0.1";
    writerUrl.port = String(fwd.port());
    const experiment = await proxiedExperiment(fake);
    const key = await makeKey(["proxy"], experiment.id);
    const dataDir = await tempDataDir();
    const start = () =>
      startProxy({
        port: 0,
        host: "127.0.0.1",
        dataDir,
        databaseUrl: writerUrl.toString(),
        writerProbeMs: 50,
        metricsIntervalMs: 3_600_000,
        log: () => {},
      });

    // Three header sessions; each keeps its history like an agent does.
    const sessions = ["a", "b", "c"].map((n) => ({
      id: uniq(`out-${n}`),
      history: [{ role: "system", content: `agent ${n}` }] as Msg[],
      sent: [] as { turnId: string; messages: Msg[] }[],
    }));
    let proxy: ProxyServer = await start();
    const turn = async (p: ProxyServer, s: (typeof sessions)[number], i: number, stream: boolean) => {
      const client = new OpenAI({ apiKey: key, baseURL: `${p.url}/v1`, maxRetries: 0 });
      const user: Msg = { role: "user", content: `message ${i} of ${s.id}` };
      const messages = [...s.history, user];
      const headers = { "X-Session-Id": s.id, "X-Turn-Type": "main" };
      let content = "";
      let turnId: string;
      if (stream) {
        const r = await client.chat.completions
          .create({ model: "x", messages, stream: true }, { headers })
          .withResponse();
        for await (const c of r.data) content += c.choices[0]?.delta.content ?? "";
        turnId = r.response.headers.get("x-turn-id")!;
      } else {
        const r = await client.chat.completions.create({ model: "x", messages }, { headers }).withResponse();
        content = r.data.choices[0]!.message.content!;
        turnId = r.response.headers.get("x-turn-id")!;
      }
      expect(content).toBe(`echo: message ${i} of ${s.id}`);
      s.sent.push({ turnId, messages });
      s.history = [...messages, { role: "assistant", content }];
    };

    try {
      for (let i = 0; i < 2; i++) for (const s of sessions) await turn(proxy, s, i, i % 2 === 0);
      await proxy.writer.drain();

      await fwd.down();
      for (let i = 2; i < 5; i++) await Promise.all(sessions.map((s) => turn(proxy, s, i, i % 2 === 0)));
      const fb = await post(
        `${proxy.url}/v1/feedback`,
        { session_id: sessions[0]!.id, value: -1, comment: "during the outage" },
        { authorization: `Bearer ${key}` },
      );
      expect(fb.status).toBe(200);
      await until(() => proxy.writer.degraded, "the writer to notice the outage");
      expect(proxy.writer.depth).toBeGreaterThan(0);
      const ready = await fetch(`${proxy.url}/readyz`).then((r) => r.json());
      expect(ready.database).toMatch(/unreachable/);

      // The proxy itself restarts while Postgres is still down: the buffer is on disk.
      await proxy.close();
      const files = await readdir(path.join(dataDir, "proxy-buffer"));
      expect(files.some((f) => /^seg-\d+\.jsonl$/.test(f))).toBe(true);
      proxy = await start();
      expect(proxy.writer.depth).toBeGreaterThan(0);
      for (const s of sessions) await turn(proxy, s, 5, false);

      await fwd.up();
      await proxy.writer.drain(30_000);
    } finally {
      await proxy.close();
      await fwd.close();
    }

    const stored = await db().turn.findMany({
      where: { experimentId: experiment.id },
      orderBy: [{ sessionId: "asc" }, { index: "asc" }],
    });
    const sentIds = sessions.flatMap((s) => s.sent.map((x) => x.turnId));
    expect(stored).toHaveLength(sentIds.length);
    expect(new Set(stored.map((t) => t.id))).toEqual(new Set(sentIds));
    for (const s of sessions) {
      const row = await db().agentSession.findUniqueOrThrow({
        where: { experimentId_externalId: { experimentId: experiment.id, externalId: s.id } },
      });
      const turns = stored.filter((t) => t.sessionId === row.id);
      expect(turns.map((t) => t.id)).toEqual(s.sent.map((x) => x.turnId)); // index order = request order
      expect(row.turnCount).toBe(s.sent.length);
      for (const [i, t] of turns.entries()) {
        expect(await reassembleMessages(t)).toEqual(s.sent[i]!.messages);
        const next = s.sent[i + 1];
        expect(t.nextState).toEqual(next ? next.messages.at(-1) : null);
      }
    }
    const labels = await db().label.findMany({ where: { turn: { experimentId: experiment.id } } });
    expect(labels.map((l) => [l.value, l.comment, l.source])).toEqual([[-1, "during the outage", "USER"]]);
  });
});

describe("Redis outage", () => {
  it("stores turns anyway; the enqueuer retries and the sweeper queues ready turns once Redis is back", async () => {
    const experiment = await proxiedExperiment(fake);
    const key = await makeKey(["proxy"], experiment.id);
    let redisUp = false;
    const queued: JudgeItem[] = [];
    const enqueueJudge = async (item: JudgeItem) => {
      if (!redisUp) throw new Error("Redis is down");
      queued.push(item);
    };
    const proxy = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      enqueueJudge,
      judgeRetryMs: 30,
      sweepEveryMs: 0,
      metricsIntervalMs: 3_600_000,
      log: () => {},
    });
    const client = new OpenAI({ apiKey: key, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    try {
      let history: Msg[] = [];
      for (let i = 0; i < 3; i++) {
        const messages: Msg[] = [...history, { role: "user", content: `q${i}` }];
        const r = await client.chat.completions
          .create({ model: "x", messages }, { headers: { "X-Session-Id": "redis-down", "X-Turn-Type": "main" } })
          .withResponse();
        ids.push(r.response.headers.get("x-turn-id")!);
        history = [...messages, { role: "assistant", content: r.data.choices[0]!.message.content }];
      }
      await proxy.writer.drain();
      const linked = await db().turn.findMany({
        where: { id: { in: ids }, nextStateAt: { not: null } },
        select: { id: true },
      });
      expect(linked.map((t) => t.id).sort()).toEqual(ids.slice(0, 2).sort());
      expect(queued.filter((q) => q.experimentId === experiment.id)).toEqual([]);

      redisUp = true;
      await until(
        () => ids.slice(0, 2).every((id) => queued.some((q) => q.turnId === id)),
        "the linked turns to be queued",
      );
    } finally {
      await proxy.close();
    }

    // A process that crashed before queueing: the next one's start-up sweep finds the ready turns.
    const swept: JudgeItem[] = [];
    const next = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      enqueueJudge: async (item) => void swept.push(item),
      metricsIntervalMs: 3_600_000,
      log: () => {},
    });
    try {
      await until(() => ids.slice(0, 2).every((id) => swept.some((q) => q.turnId === id)), "the start-up sweep");
      expect(swept.some((q) => q.turnId === ids[2])).toBe(false); // no next state yet, session open
    } finally {
      await next.close();
    }
  });
});
