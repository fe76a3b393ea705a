// Fail-closed recording: while Postgres is down and the disk buffer is full, the proxy answers 503
// recording_unavailable with Retry-After instead of serving turns it cannot keep, and every turn it did answer
// with a 2xx is stored once Postgres is back (an event the buffer could not take stays in the journal and is
// replayed at the next start). PROXY_RECORDING_FAIL_CLOSED=0 serves on, as before. A journal whose fsync
// fails (a dying disk) counts the acknowledged turns it could not make durable in `recording.lossy` (the serve
// worker's heartbeat stat on the Workers page) and refuses further turns until an fsync succeeds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { env } from "../../../server/platform/env";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { startFakeUpstream, type FakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { startForwarder } from "../../../bench/lib/tcpForwarder";
import { makeKey, uniq } from "../../helpers/fixtures";
import { proxyWorkerStats } from "../../../server/proxy/workerStats";
import { post, proxiedExperiment, tempDataDir } from "./setup";

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake.close());

async function until(cond: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("recording fail-closed", () => {
  it("answers 503 with Retry-After once the disk buffer is full, and loses no turn it acknowledged", async () => {
    const pgUrl = new URL(env().DATABASE_URL);
    const fwd = await startForwarder({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
    const writerUrl = new URL(env().DATABASE_URL);
    writerUrl.hostname = "127.0.0.1";
    writerUrl.port = String(fwd.port());
    const experiment = await proxiedExperiment(fake);
    const key = await makeKey(["proxy"], experiment.id);
    const dataDir = await tempDataDir();
    const start = (bufferMaxBytes: number) =>
      startProxy({
        port: 0,
        host: "127.0.0.1",
        dataDir,
        databaseUrl: writerUrl.toString(),
        bufferMaxBytes,
        writerProbeMs: 50,
        metricsIntervalMs: 3_600_000,
        redis: false,
        log: () => {},
      });
    let proxy: ProxyServer = await start(6_000);
    const acknowledged: string[] = [];
    const chat = (p: ProxyServer, i: number) =>
      post(
        `${p.url}/v1/chat/completions`,
        { model: "x", messages: [{ role: "user", content: `message ${i} ${"x".repeat(400)}` }] },
        { authorization: `Bearer ${key}`, "x-session-id": uniq("s") },
      );
    try {
      await fwd.down();
      let refused: Awaited<ReturnType<typeof chat>> | null = null;
      for (let i = 0; i < 40 && !refused; i++) {
        const res = await chat(proxy, i);
        if (res.status === 200) acknowledged.push(res.headers.get("x-turn-id")!);
        else refused = res;
        // Let the writer notice the outage and spill the turn to disk before the next request.
        await until(() => proxy.writer.depth === 0 || proxy.writer.degraded, "the writer to spill");
        await new Promise((r) => setTimeout(r, 30));
      }
      expect(refused?.status).toBe(503);
      expect(refused?.json).toMatchObject({ error: { code: "recording_unavailable" } });
      expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(acknowledged.length).toBeGreaterThan(0);
      const fb = await post(
        `${proxy.url}/v1/feedback`,
        { turn_id: acknowledged[0], value: 1 },
        {
          authorization: `Bearer ${key}`,
        },
      );
      expect(fb.status).toBe(503);

      // Postgres back; a restart (with room in the buffer) replays from the journal what the full buffer could
      // not take: the journal kept it, unsettled.
      await fwd.up();
      await proxy.writer.drain(30_000);
      await proxy.close();
      proxy = await start(10_000_000);
      await proxy.writer.drain(30_000);
    } finally {
      await proxy.close();
      await fwd.close();
    }
    const stored = await db().turn.findMany({ where: { experimentId: experiment.id }, select: { id: true } });
    expect(new Set(stored.map((t) => t.id))).toEqual(new Set(acknowledged));
  });

  it("counts a turn whose journal fsync failed in recording.lossy and refuses turns until an fsync succeeds", async () => {
    const experiment = await proxiedExperiment(fake);
    const key = await makeKey(["proxy"], experiment.id);
    let diskFails = true;
    const proxy = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      // The interval never fires by itself here: the test runs the group fsync when it wants it.
      journalFsyncMs: 3_600_000,
      journalFdatasync: async () => {
        if (diskFails) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
      },
      metricsIntervalMs: 3_600_000,
      redis: false,
      log: () => {},
    });
    const chat = () =>
      post(
        `${proxy.url}/v1/chat/completions`,
        { model: "x", messages: [{ role: "user", content: "hello" }] },
        { authorization: `Bearer ${key}`, "x-session-id": uniq("s") },
      );
    try {
      expect(proxyWorkerStats(proxy)["recording.lossy"]).toBe(0);
      expect((await chat()).status).toBe(200);
      await proxy.writer.syncJournal();
      expect(proxyWorkerStats(proxy)["recording.lossy"]).toBe(1);
      const refused = await chat();
      expect(refused.status).toBe(503);
      expect(refused.json).toMatchObject({ error: { code: "recording_unavailable" } });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // The disk recovers: the next group fsync succeeds and turns are accepted again.
      diskFails = false;
      await proxy.writer.syncJournal();
      expect(proxy.writer.journalFailing).toBe(false);
      expect((await chat()).status).toBe(200);
      await proxy.writer.syncJournal();
      expect(proxyWorkerStats(proxy)["recording.lossy"]).toBe(1);
      await proxy.writer.drain(30_000);
    } finally {
      await proxy.close();
    }
    expect(await db().turn.count({ where: { experimentId: experiment.id } })).toBe(2);
  });
});
