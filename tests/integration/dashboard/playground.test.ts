// Playground relay against a fake proxy on 127.0.0.1 that follows the proxy's OpenAI-compatible contract:
// streamed chunks pass through as they are, the turn id comes back, feedback reaches /v1/feedback, and the
// relay authenticates with a short-lived proxy key bound to the experiment.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyApiKey } from "../../../server/access/apiKeys";
import { handleApi } from "../../../server/gateway/handler";
import { startApiServer } from "../../helpers/apiServer";
import { login, makeExperiment, makeUser } from "../../helpers/fixtures";

interface Seen {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}
const seen: Seen[] = [];
let fake: Server;
let api: Awaited<ReturnType<typeof startApiServer>>;
let exp: { id: string; slug: string };
const CHUNKS = ["Hel", "lo ", "there"];

beforeAll(async () => {
  fake = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({
      path: req.url ?? "",
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>,
    });
    if (req.url === "/v1/chat/completions") {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "x-turn-id": "turn-123",
        "x-session-id": String(req.headers["x-session-id"]),
      });
      for (const c of CHUNKS)
        res.write(
          `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: c }, finish_reason: null }] })}\n\n`,
        );
      res.write(
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
      );
      res.end("data: [DONE]\n\n");
    } else if (req.url === "/v1/feedback") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, turn_id: "turn-123" }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
  process.env.PROXY_URL = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  api = await startApiServer();
  exp = await makeExperiment();
});
afterAll(async () => {
  await api.close();
  await new Promise((r) => fake.close(r));
});

async function as(role: "REVIEWER" | "VIEWER") {
  const u = await makeUser(role);
  const cookie = await login(api.url, u.email, u.password);
  return (path: string, body: unknown) =>
    handleApi(
      new Request(`http://local${path}`, {
        method: "POST",
        headers: { cookie, origin: "http://local", host: "local", "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
}

describe("playground relay", () => {
  it("streams the proxy's chunks with the turn id, sending the experiment slug, session id and a bound proxy key", async () => {
    const post = await as("REVIEWER");
    const res = await post("/api/playground/chat", {
      experimentId: exp.id,
      sessionId: "pg-1",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-turn-id")).toBe("turn-123");
    const text = await res.text();
    const deltas = text
      .split("\n\n")
      .filter((l) => l.startsWith("data: {"))
      .map(
        (l) =>
          (JSON.parse(l.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]!.delta.content ?? "",
      );
    expect(deltas.join("")).toBe("Hello there");
    expect(text.trim().endsWith("data: [DONE]")).toBe(true);
    const call = seen.find((s) => s.path === "/v1/chat/completions")!;
    expect(call.body).toEqual({ model: exp.slug, messages: [{ role: "user", content: "hi" }], stream: true });
    expect(call.headers["x-session-id"]).toBe("pg-1");
    expect(call.headers["x-turn-type"]).toBe("main");
    const principal = await verifyApiKey(String(call.headers.authorization).slice("Bearer ".length));
    expect(principal).toMatchObject({ kind: "apiKey", scopes: ["proxy"], experimentId: exp.id });

    const fb = await post("/api/playground/feedback", {
      experimentId: exp.id,
      turnId: "turn-123",
      value: -1,
      comment: "too short",
    });
    expect(fb.status).toBe(200);
    const fbCall = seen.find((s) => s.path === "/v1/feedback")!;
    expect(fbCall.body).toEqual({ turn_id: "turn-123", value: -1, comment: "too short" });
    // One key per user and experiment, reused.
    expect(fbCall.headers.authorization).toBe(call.headers.authorization);
  });

  it("refuses viewers and bad input, and says when the proxy is down", async () => {
    const viewer = await as("VIEWER");
    expect(
      (
        await viewer("/api/playground/chat", {
          experimentId: exp.id,
          sessionId: "x",
          messages: [{ role: "user", content: "hi" }],
        })
      ).status,
    ).toBe(403);
    const post = await as("REVIEWER");
    expect((await post("/api/playground/chat", { experimentId: exp.id, sessionId: "x", messages: [] })).status).toBe(
      400,
    );
    expect((await post("/api/playground/feedback", { experimentId: exp.id, turnId: "t", value: 0 })).status).toBe(400);
    const saved = process.env.PROXY_URL;
    process.env.PROXY_URL = "http://127.0.0.1:9";
    const down = await post("/api/playground/chat", {
      experimentId: exp.id,
      sessionId: "x",
      messages: [{ role: "user", content: "hi" }],
    });
    process.env.PROXY_URL = saved;
    expect(down.status).toBe(500);
    expect(((await down.json()) as { error: { message: string } }).error.message).toMatch(/unreachable/);
  });
});
