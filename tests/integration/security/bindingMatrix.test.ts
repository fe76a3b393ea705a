// The binding matrix: a key bound to experiment A against every REST route (from the route table, so a new route
// is covered automatically) and every raw endpoint, with the ids of experiment B's rows (the experiment by id
// and slug, its run, session and turn) in the path, the query and the body. The answer is never a 2xx about B:
// a route that names a row answers 4xx, and no 2xx body carries any of B's ids. Then the raw endpoints with A's
// own experiment id and B's run, session and turn ids (export filters, the metrics stream's run filter, playground
// feedback on B's turn through a real proxy): answered for A only, never with or about B's rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../../server/gateway/rest/table";
import { handleApi } from "../../../server/gateway/handler";
import { db } from "../../../server/platform/db/client";
import { publish } from "../../../server/platform/bus/pubsub";
import { startProxy } from "../../../server/proxy/server";
import { startFakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { proxiedExperiment, tempDataDir } from "../proxy/setup";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, login, makeExperiment, makeKey, makeRun, makeUser } from "../../helpers/fixtures";
import { makeJudgedSession, SLIME_EXPERIMENT } from "../training/leases/helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("binding matrix", () => {
  it("a key bound to A gets 403/404 (never B's data) from every route and raw endpoint with B's ids", async () => {
    const a = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
    const b = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
    const run = await makeRun(b.id);
    const { turnIds } = await makeJudgedSession(b.id, run.id, 2);
    const session = await db().agentSession.findFirstOrThrow({ where: { experimentId: b.id } });
    const secrets = [b.id, run.id, session.id, ...turnIds];
    const candidates = [b.id, b.slug, run.id, session.id, turnIds[0]!];
    const leaks: string[] = [];
    let refused = 0;

    for (const scopes of [["write"], ["admin"]] as const) {
      const headers = { authorization: `Bearer ${await makeKey([...scopes], a.id)}` };
      const call = async (method: string, url: string, named: boolean) => {
        const hasBody = method !== "GET" && method !== "DELETE";
        const res = await fetch(`${server.url}${url}`, {
          method,
          headers: { ...headers, ...(hasBody ? { "content-type": "application/json" } : {}) },
          body: hasBody
            ? JSON.stringify({ experimentId: b.id, runId: run.id, turnId: turnIds[0], turnIds, sessionId: session.id })
            : undefined,
        });
        const text = await res.text();
        const what = `${scopes[0]} key: ${method} ${url} → ${res.status}`;
        if (res.status === 403 || res.status === 404) refused++;
        if (res.status < 300 && named) leaks.push(`${what} (a route naming B's row succeeded)`);
        if (res.status < 300 && secrets.some((s) => text.includes(s))) leaks.push(`${what} (B's ids in the body)`);
      };
      for (const r of routes) {
        const named = r.path.includes(":");
        for (const c of named ? candidates : [b.id]) {
          const path = r.path.replace(/:(\w+)/g, (_, name: string) =>
            name === "experimentId" ? b.id : name === "version" ? "0" : c,
          );
          await call(r.method, `/api/v1${path}${r.method === "GET" ? `?experimentId=${b.id}` : ""}`, named);
        }
      }
      await call("GET", `/api/export/turns?experimentId=${b.id}`, true);
      await call("POST", `/api/import/openclaw?experimentId=${b.id}`, true);
      await call("GET", `/api/stream/metrics?experimentId=${b.id}`, true);
      await call("POST", "/api/playground/chat", true);
      await call("POST", "/api/playground/feedback", true);
    }
    expect(leaks).toEqual([]);
    // Not vacuous: most calls were refused by the binding (not by a malformed request), and a key bound to B
    // does read the same rows through the same requests.
    expect(refused).toBeGreaterThan(routes.length);
    const own = { authorization: `Bearer ${await makeKey(["write"], b.id)}` };
    const mine = await fetch(`${server.url}/api/v1/experiments/${b.id}`, { headers: own });
    expect(mine.status).toBe(200);
    const exported = await fetch(`${server.url}/api/export/turns?experimentId=${b.id}`, { headers: own });
    expect(exported.status).toBe(200);
    expect(await exported.text()).toContain(turnIds[0]);
  });

  it("answers A's own experiment id with B's run, session and turn ids for A only (export, stream, playground)", async () => {
    const fake = await startFakeUpstream();
    const a = await proxiedExperiment(fake);
    const b = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
    const runA = await makeRun(a.id);
    const runB = await makeRun(b.id);
    const { turnIds } = await makeJudgedSession(b.id, runB.id, 2);
    const sessionB = await db().agentSession.findFirstOrThrow({ where: { experimentId: b.id } });
    const secrets = [b.id, runB.id, sessionB.id, ...turnIds];
    const headers = { authorization: `Bearer ${await makeKey(["write"], a.id)}` };

    for (const query of [`runId=${runB.id}`, `sessionId=${sessionB.id}`, `sessionId=${sessionB.externalId}`]) {
      const res = await fetch(`${server.url}/api/export/turns?experimentId=${a.id}&${query}`, { headers });
      const text = await res.text();
      expect(res.status < 300 ? secrets.filter((x) => text.includes(x)) : [], query).toEqual([]);
    }

    // The stream with B's run in its filter: B's point is published first, then A's; only A's arrives.
    const ctrl = new AbortController();
    // (Straight into the handler: the test server buffers whole answers, which a stream never finishes.)
    const stream = await handleApi(
      new Request(`http://local/api/stream/metrics?experimentId=${a.id}&runIds=${runB.id},${runA.id}`, {
        headers,
        signal: ctrl.signal,
      }),
    );
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const dec = new TextDecoder();
    let seen = "";
    const until = async (marker: string) => {
      while (!seen.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${marker}`);
        seen += dec.decode(value, { stream: true });
      }
    };
    await until("event: ready");
    const point = (name: string) => [{ name, value: 1, step: 1, ts: Date.now() }];
    await publish("metrics", { experimentId: b.id, runId: runB.id, points: point("leak/b") });
    await publish("metrics", { experimentId: a.id, runId: runA.id, points: point("mine/a") });
    await until("mine/a");
    ctrl.abort();
    await reader.cancel().catch(() => {});
    expect(seen).not.toContain("leak/b");
    expect(seen).not.toContain(runB.id);

    // Playground feedback naming B's turn under A's experiment, relayed to a real proxy: refused, no label on B.
    const proxy = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      metricsIntervalMs: 3_600_000,
      redis: false,
      log: () => {},
    });
    process.env.PROXY_URL = proxy.url;
    try {
      const reviewer = await makeUser("REVIEWER");
      const cookie = await login(server.url, reviewer.email, reviewer.password);
      const res = await fetch(`${server.url}/api/playground/feedback`, {
        method: "POST",
        headers: { cookie, origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ experimentId: a.id, turnId: turnIds[0], value: -1 }),
      });
      expect(res.status).toBe(404);
      const answer = await res.text();
      expect(secrets.filter((x) => x !== turnIds[0] && answer.includes(x))).toEqual([]);
      expect(await db().label.count({ where: { turnId: { in: turnIds } } })).toBe(0);
      // Not vacuous: the same relay does label a turn of A.
      const chat = await fetch(`${server.url}/api/playground/chat`, {
        method: "POST",
        headers: { cookie, origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ experimentId: a.id, sessionId: "pg-1", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(chat.status).toBe(200);
      const turnA = chat.headers.get("x-turn-id")!;
      await chat.text();
      const ok = await fetch(`${server.url}/api/playground/feedback`, {
        method: "POST",
        headers: { cookie, origin: server.url, "content-type": "application/json" },
        body: JSON.stringify({ experimentId: a.id, turnId: turnA, value: 1 }),
      });
      expect(ok.status, await ok.clone().text()).toBeLessThan(300);
    } finally {
      delete process.env.PROXY_URL;
      await proxy.close();
      await fake.close();
    }
  });
});
