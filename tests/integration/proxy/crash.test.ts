// SIGKILL of the proxy process (the serve worker, spawned as `npm start` spawns it) the instant its 2xx answers
// have arrived, with no grace: every answered request must still end up as exactly one turn, with next states
// linked across the crashes. One crash happens while Postgres hangs (a stalled relay), so the answered turns
// are certainly not committed when the process dies: only the write-ahead journal can bring them back.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { env } from "../../../server/platform/env";
import { Cluster, exited, freePort } from "../../../bench/lib/cluster";
import { startFakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { makeKey, uniq } from "../../helpers/fixtures";
import { proxiedExperiment, tempDataDir } from "./setup";
import { startForwarder } from "../../../bench/lib/tcpForwarder";

type Msg = { role: string; content: string };

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

async function until(cond: () => Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const journalFiles = async (dir: string) =>
  (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith("proxy-journal-"));

it("keeps every turn answered with a 2xx through SIGKILLs right after the answers (also while Postgres hangs)", async () => {
  const fake = await startFakeUpstream();
  cleanups.push(() => fake.close());
  const pgUrl = new URL(env().DATABASE_URL);
  const relay = await startForwarder({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  cleanups.push(() => relay.close());
  const relayed = new URL(env().DATABASE_URL);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(relay.port());
  const experiment = await proxiedExperiment(fake);
  const key = await makeKey(["proxy"], experiment.id);
  const dataDir = await tempDataDir();
  const bufferDir = path.join(dataDir, "proxy-buffer");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cluster = new Cluster({
    ...process.env,
    DATABASE_URL: relayed.toString(),
    PROXY_PORT: String(port),
    PROXY_HOST: "127.0.0.1",
    DATA_DIR: dataDir,
  });
  cleanups.push(() => cluster.stopAll(5000));

  const start = async () => {
    const p = cluster.start("serve");
    await until(
      async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok === true,
      "the proxy to answer",
      90_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${p.lines.slice(-20).join("\n")}`);
    });
  };

  // Six header sessions, odd ones streaming; each keeps its history as an agent does.
  const sessions = Array.from({ length: 6 }, (_, i) => ({
    id: uniq(`crash-${i}`),
    stream: i % 2 === 1,
    history: [{ role: "system", content: `agent ${i}` }] as Msg[],
    sent: [] as { turnId: string; user: Msg }[],
  }));
  const ask = async (s: (typeof sessions)[number], n: number): Promise<string> => {
    const user = { role: "user", content: `message ${n} of ${s.id}` };
    const messages = [...s.history, user];
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${key}`,
        "x-session-id": s.id,
        "x-turn-type": "main",
      },
      body: JSON.stringify({ model: "x", messages, stream: s.stream }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    const turnId = res.headers.get("x-turn-id")!;
    let content: string;
    if (s.stream) {
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
      content = text
        .split("\n\n")
        .filter((e) => e.startsWith("data: {"))
        .map(
          (e) =>
            (JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? "",
        )
        .join("");
    } else content = (JSON.parse(text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    expect(content).toBe(`echo: ${user.content}`);
    s.sent.push({ turnId, user });
    s.history = [...messages, { role: "assistant", content }];
    return turnId;
  };
  /** One turn of every session at once; with `kill`, SIGKILL in the same tick the last answer completes. */
  const burst = async (n: number, kill: boolean): Promise<string[]> => {
    let left = sessions.length;
    const child = cluster.get("serve").child;
    const ids = await Promise.all(
      sessions.map((s) =>
        ask(s, n).finally(() => {
          if (--left === 0 && kill) child.kill("SIGKILL");
        }),
      ),
    );
    if (kill) expect((await exited(child)).signal).toBe("SIGKILL");
    return ids;
  };

  await start();
  await burst(0, true);
  await start(); // replays the dead process's journal before it listens
  await burst(1, true);
  await start();
  await burst(2, false); // caches the key and experiment: no Postgres read needed on the next burst
  relay.stall();
  const hung = await burst(3, true);
  // Postgres never saw these: the journal on disk holds every one of them.
  const files = await journalFiles(bufferDir);
  const journaled = (await Promise.all(files.map((f) => readFile(path.join(bufferDir, f), "utf8")))).join("");
  for (const id of hung) expect(journaled).toContain(`"id":"${id}"`);
  expect(await db().turn.count({ where: { id: { in: hung } } })).toBe(0);
  relay.resume();
  await start();
  await burst(4, false);

  const sentIds = sessions.flatMap((s) => s.sent.map((x) => x.turnId));
  expect(sentIds).toHaveLength(30);
  await until(
    async () => (await db().turn.count({ where: { id: { in: sentIds } } })) === sentIds.length,
    "every answered turn to be written",
  );
  // SIGTERM (SIGKILL after the grace if the process lingers once the proxy has closed).
  await cluster.stopAll(15_000);
  expect(cluster.get("serve").lines.some((l) => /SIGTERM received/.test(l))).toBe(true);
  expect(await journalFiles(bufferDir)).toEqual([]); // a clean stop leaves no journal behind

  // Exactly one turn per 2xx, nothing else; per session in request order with next states linked across crashes.
  const stored = await db().turn.findMany({
    where: { experimentId: experiment.id },
    orderBy: [{ sessionId: "asc" }, { index: "asc" }],
  });
  expect(stored).toHaveLength(sentIds.length);
  expect(new Set(stored.map((t) => t.id))).toEqual(new Set(sentIds));
  for (const s of sessions) {
    const row = await db().agentSession.findUniqueOrThrow({
      where: { experimentId_externalId: { experimentId: experiment.id, externalId: s.id } },
    });
    const turns = stored.filter((t) => t.sessionId === row.id);
    expect(turns.map((t) => t.id)).toEqual(s.sent.map((x) => x.turnId));
    expect(row.turnCount).toBe(s.sent.length);
    expect(turns.map((t) => t.nextState)).toEqual([...s.sent.slice(1).map((x) => x.user), null]);
  }
}, 300_000);
